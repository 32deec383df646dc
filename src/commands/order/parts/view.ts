// How orders, their items and single purchases look to people.
import type { Column, Style } from '../../../output/index.js';
import { cellText as t } from '../../../output/format.js';
import type { Answer, Verified } from '../../../spec/contract.js';
import { grid, kv, money, when, yesNo, type GridColumn } from '../../render.js';

/** An order as created or as listed: its id and items are checked, not the items' members. */
type Order = Verified<'Order'> | Verified<'ListedOrder'>;
/** An item of an order: unchecked (absent members, or even a null entry, read as empty). */
type Item = Order['items'][number];
/** A single purchase (user purchase): every member is checked. */
type Purchase = Answer<'user.purchase'>;

function itemState(i: Item | Purchase): string {
  if (i?.is_refunded) return 'refunded';
  if (i?.is_active === false) return 'inactive';
  return 'active';
}

function itemsGrid(s: Style, items: Item[], opts: { refundColumn?: boolean } = {}): string {
  if (!items.length) return '  (no items)';
  // Too wide for the terminal: the purchase date gives way first, then each item is a card.
  const head: GridColumn[] = [
    'ITEM',
    { head: 'BOOK', min: 16 },
    'HASH ID',
    'PRICE',
    { head: 'PURCHASED', optional: true },
    'EXPIRES',
    'STATE',
  ];
  if (opts.refundColumn) head.push('REFUNDABLE');
  return grid(
    s,
    head,
    items.map((i) => {
      const book = i?.book;
      const row = [
        i?.id,
        book?.title ?? '',
        book?.hash_id ?? '',
        money(i?.purchase_price),
        when(i?.purchase_date),
        i?.expiration_date ? when(i.expiration_date) : 'never',
        itemState(i),
      ];
      if (opts.refundColumn) row.push(i?.refund_available === undefined ? '' : i.refund_available ? 'yes' : 'no');
      return row;
    }),
  );
}

function totalsLine(totals: Order['totals']): string {
  if (!totals || typeof totals !== 'object') return '';
  // Totals on creation (shipping) or in a listing (shipping_fee, discount, processing_fee).
  const t: Partial<
    Record<'subtotal' | 'discount' | 'taxes' | 'shipping' | 'shipping_fee' | 'processing_fee' | 'total', unknown>
  > = totals;
  const parts: string[] = [];
  const add = (label: string, v: unknown, always = false) => {
    if (v === undefined || v === null) return;
    if (!always && (v === 0 || v === '0' || v === '0.00')) return;
    parts.push(`${label} ${money(v)}`);
  };
  add('subtotal', t.subtotal, true);
  add('discount', t.discount);
  add('taxes', t.taxes, true);
  add('shipping', t.shipping ?? t.shipping_fee);
  add('processing fee', t.processing_fee);
  add('total', t.total, true);
  return parts.join(' · ');
}

export function orderCard(order: Order, s: Style, opts: { refundColumn?: boolean } = {}): string {
  const items = order.items;
  const buyer = items[0]?.user;
  return [
    kv(s, [
      ['Order', s.bold(String(order.id))],
      [
        'User',
        order.username ? `${t(order.username)}${buyer?.full_name ? ` (${t(buyer.full_name)})` : ''}` : undefined,
      ],
      ['Complete', yesNo(s, order.is_complete)],
      ['Items', order.item_count ?? items.length],
      ['Totals', totalsLine(order.totals)],
    ]),
    '',
    itemsGrid(s, items, opts),
  ].join('\n');
}

/** Columns of order listings (TSV/CSV/--fields): one row per order. */
export const ORDER_COLUMNS: Column[] = [
  { key: 'id', label: 'ORDER' },
  { key: 'username', label: 'USER' },
  { key: 'item_count', label: 'ITEMS' },
  { key: 'items.id', label: 'ITEM IDS', id: true },
  { key: 'totals.total', label: 'TOTAL' },
  { key: 'is_complete', label: 'COMPLETE' },
];

export function purchaseCard(p: Purchase, s: Style, refundData: boolean): string {
  const pricing = p.digital_pricing;
  const book = p.book;
  const user = p.user;
  return kv(s, [
    ['Purchase', s.bold(String(p.id))],
    ['Book', p.book ? `${t(book.title)} (${t(book.hash_id)})` : undefined],
    ['User', p.user ? `${user.full_name ? `${t(user.full_name)} ` : ''}(${t(user.username)})` : undefined],
    [
      'Pricing',
      pricing.description ? `${pricing.description}${pricing.id != null ? ` (id ${pricing.id})` : ''}` : undefined,
    ],
    ['Price', money(p.purchase_price)],
    ['Quantity', p.quantity],
    ['Purchased', when(p.purchase_date)],
    ['Expires', p.expiration_date ? when(p.expiration_date) : 'never'],
    ['State', itemState(p)],
    ['Kind', [p.is_digital ? 'digital' : '', p.is_print ? 'print' : ''].filter(Boolean).join(', ')],
    ['Refundable', refundData ? yesNo(s, p.refund_available) : s.dim('unknown (ask with --refund-data)')],
  ]);
}

/** Columns of order items for TSV/CSV (one row per item, with its order). */
