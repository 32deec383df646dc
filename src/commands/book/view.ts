// How a book looks to people: a card with identifiers, status flags and a pricing sub-table,
// and the columns of book listings.
import { recOf, recsOf, type Column, type Rec, type Style } from '../../output/index.js';
import { cutToWidth, ellipsisFor } from '../../output/text.js';
import { flags, grid, kv, money, when } from '../render.js';

const STATUS_FLAGS: Array<[string, string]> = [
  ['is_active', 'active'],
  ['is_published', 'published'],
  ['is_public', 'public'],
  ['is_processed', 'processed'],
  ['is_queued', 'queued'],
  ['is_html', 'html'],
];

/** Only the flags that are true (for listings). */
function trueFlags(status: Record<string, unknown> | undefined): string {
  if (!status) return '';
  // `held` (the sandbox's queued book that the worker leaves alone) only when it is.
  return [...STATUS_FLAGS, ['is_held', 'held']]
    .filter(([k]) => status[k] === true)
    .map(([, w]) => w)
    .join(',');
}

function pricingRows(pricing: Rec[]): Array<Array<unknown>> {
  return pricing.map((p) => [
    p.id,
    money(p.price, typeof p.currency === 'string' ? p.currency : undefined),
    p.description ?? '',
    p.is_limited ? `${p.limit_days ?? ''} days` : 'unlimited',
    p.other_pricing ?? '',
    p.deactivation_date ? `deactivated ${when(p.deactivation_date)}` : p.is_limited && p.calculated_expiration_date ? `expires ${when(p.calculated_expiration_date)}` : '',
  ]);
}

const PRICING_HEAD = ['ID', 'PRICE', 'DESCRIPTION', 'ACCESS', 'TYPE', 'NOTE'];

export function pricingGrid(s: Style, pricing: Rec[]): string {
  if (!pricing.length) return '  (no digital pricing)';
  return grid(s, PRICING_HEAD, pricingRows(pricing));
}

export function bookCard(book: Rec, s: Style): string {
  const id = recOf(book.identifiers);
  const st = recOf(book.status);
  const drm = recOf(book.drm);
  const title = book.subtitle ? `${book.title}: ${book.subtitle}` : book.title;
  const description = typeof book.description === 'string' ? oneLine(book.description, Math.max(40, s.width - 14), ellipsisFor(s.ascii)) : undefined;
  const head = kv(s, [
    ['Title', s.bold(String(title ?? ''))],
    ['Author', book.author],
    ['Publisher', recOf(book.publisher).title],
    ['Year', book.publish_year ?? undefined],
    ['Pages', book.num_pages],
    ['Language', book.language],
    ['About', description],
  ]);
  const ids = kv(
    s,
    [
      ['Hash ID', book.hash_id ?? id.hash_id],
      ['ISBN-13', id.isbn13],
      ['ISBN-10', id.isbn10],
      ['eISBN-13', id.eisbn13],
      ['eISBN-10', id.eisbn10],
      ['SKU', id.sku],
      ['Book ID', book.id ?? id.id],
    ],
    '  ',
  );
  const status = kv(
    s,
    [
      ['Flags', flags(s, st, STATUS_FLAGS)],
      ['Processed', when(st.processed_date)],
      ['Queued', when(st.queued_date)],
      ['Held', st.is_held === true ? oneLine(String(st.held_reason ?? 'held in the queue'), Math.max(40, s.width - 14), ellipsisFor(s.ascii)) : undefined],
    ],
    '  ',
  );
  const drmLine = [
    drm.copy_percent != null ? `copy ${drm.copy_percent}%` : '',
    drm.print_allowance_percent != null ? `print ${drm.print_allowance_percent}%${drm.print_allowance_range ? ` per ${drm.print_allowance_range}` : ''}` : '',
    drm.offline_range ? `offline ${drm.offline_range}` : '',
    drm.sample_page_end != null ? `sample to p. ${drm.sample_page_end}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const pricing = recsOf(book.digital_pricing);
  return [
    head,
    '',
    s.bold('Identifiers'),
    ids,
    '',
    s.bold('Status'),
    status,
    // Wrapped under itself like every other value of the card (75 columns do not fit every terminal).
    ...(drmLine ? ['', kv(s, [['DRM', drmLine]])] : []),
    '',
    s.bold('Digital pricing'),
    pricingGrid(s, pricing),
  ].join('\n');
}

function oneLine(text: string, width: number, ellipsis: string): string {
  return cutToWidth(text.replace(/\s+/g, ' ').trim(), width, ellipsis);
}

/** Columns of book listings (search, list). */
export const BOOK_COLUMNS: Column[] = [
  { key: 'hash_id', label: 'HASH ID' },
  // A title people can read at 80 columns: ISBN-13 and the author make room for it first.
  { key: 'title', label: 'TITLE', min: 24, want: 32 },
  { key: 'author', label: 'AUTHOR' },
  { key: 'identifiers.isbn13', label: 'ISBN-13', optional: true },
  { key: 'identifiers.sku', label: 'SKU', optional: true },
  {
    key: 'digital_pricing',
    label: 'PRICES',
    optional: true,
    format: (_v, r) =>
      Array.isArray(r.digital_pricing)
        ? recsOf(r.digital_pricing)
            .filter((p) => !p.deactivation_date)
            .map((p) => `${p.price}${p.is_limited ? `/${p.limit_days}d` : ''}`)
            .join(' ')
        : '',
  },
  // Keyed on a flattened field so TSV/CSV get a real column; the table shows every true flag.
  { key: 'status.is_active', label: 'STATUS', optional: true, format: (_v, r) => trueFlags(recOf(r.status)) },
];
