// How a book looks to people: a card with identifiers, status flags and a pricing sub-table,
// and the columns of book listings.
import { recsOf, type Column, type Rec, type Style } from '../../../output/index.js';
import { cellText as t } from '../../../output/format.js';
import type { Verified } from '../../../spec/contract.js';
import { flags, grid, kv, money, when } from '../../render.js';

const STATUS_FLAGS: Array<[string, string]> = [
  ['is_active', 'active'],
  ['is_published', 'published'],
  ['is_public', 'public'],
  ['is_processed', 'processed'],
  ['is_queued', 'queued'],
  ['is_html', 'html'],
];

function pricingRows(pricing: Rec[]): Array<Array<unknown>> {
  return pricing.map((p) => [
    p.id,
    money(p.price, typeof p.currency === 'string' ? p.currency : undefined),
    p.description ?? '',
    p.is_limited ? `${t(p.limit_days)} days` : 'unlimited',
    p.other_pricing ?? '',
    p.deactivation_date
      ? `deactivated ${when(p.deactivation_date)}`
      : p.is_limited && p.calculated_expiration_date
        ? `expires ${when(p.calculated_expiration_date)}`
        : '',
  ]);
}

const PRICING_HEAD = ['ID', 'PRICE', 'DESCRIPTION', 'ACCESS', 'TYPE', 'NOTE'];

export function pricingGrid(s: Style, pricing: Rec[]): string {
  if (!pricing.length) return '  (no digital pricing)';
  return grid(s, PRICING_HEAD, pricingRows(pricing));
}

export function bookCard(book: Verified<'Book'>, s: Style): string {
  // A verified book has its hash_id and title; the rest may be absent (the interface lets data
  // depend on permissions) or of another type: read with `?.`, and check a list before walking it.
  const id = book.identifiers;
  const st = book.status;
  const drm = book.drm;
  const title = book.subtitle ? `${t(book.title)}: ${t(book.subtitle)}` : book.title;
  // Long fields wrap under their label within the terminal (kv), never cut.
  const description = typeof book.description === 'string' ? oneLine(book.description) : undefined;
  const head = kv(s, [
    ['Title', s.bold(title)],
    ['Author', book.author],
    ['Publisher', book.publisher?.title],
    ['Year', book.publish_year ?? undefined],
    ['Pages', book.num_pages],
    ['Language', book.language],
    ['About', description],
  ]);
  const ids = kv(
    s,
    [
      ['Hash ID', book.hash_id],
      ['ISBN-13', id?.isbn13],
      ['ISBN-10', id?.isbn10],
      ['eISBN-13', id?.eisbn13],
      ['eISBN-10', id?.eisbn10],
      ['SKU', id?.sku],
      ['Book ID', book.id ?? id?.id],
    ],
    '  ',
  );
  const status = kv(
    s,
    [
      ['Flags', flags(s, st ?? undefined, STATUS_FLAGS)],
      ['Processed', when(st?.processed_date)],
      ['Queued', when(st?.queued_date)],
      ['Held', st?.is_held === true ? oneLine(t(st.held_reason ?? 'held in the queue')) : undefined],
    ],
    '  ',
  );
  const drmLine = [
    drm?.copy_percent != null ? `copy ${t(drm.copy_percent)}%` : '',
    drm?.print_allowance_percent != null
      ? `print ${t(drm.print_allowance_percent)}%${drm.print_allowance_range ? ` per ${t(drm.print_allowance_range)}` : ''}`
      : '',
    drm?.offline_range ? `offline ${t(drm.offline_range)}` : '',
    drm?.sample_page_end != null ? `sample to p. ${t(drm.sample_page_end)}` : '',
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

/** Text as one paragraph (its line breaks and runs of spaces one space), for kv to wrap. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * What a listing must say of a book's status: only what is out of the ordinary (held, inactive,
 * unpublished, queued). The usual flags (active, published, processed) are the card's.
 */
function notableStatus(status: Verified<'Book'>['status']): string {
  const out: string[] = [];
  if (status?.is_held === true) out.push('held');
  else if (status?.is_queued === true) out.push('queued');
  if (status?.is_active === false) out.push('inactive');
  if (status?.is_published === false) out.push('unpublished');
  return out.join(',');
}

/** Columns of book listings (search, list). */
export const BOOK_COLUMNS: Column<Verified<'Book'>>[] = [
  { key: 'hash_id', label: 'HASH ID' },
  // A title people can read at 80 columns: ISBN-13 and the author make room for it first.
  { key: 'title', label: 'TITLE', min: 24, want: 32 },
  // When a status shows, the author gives way to it (and to the title) at 80 columns.
  { key: 'author', label: 'AUTHOR', givesWay: true },
  // Never left out for want of room (held and inactive books must show at 80 columns); a page of
  // books with nothing to say has no STATUS column. Keyed on a flattened field so TSV/CSV get a real column.
  { key: 'status.is_active', label: 'STATUS', dropEmpty: true, format: (_v, r) => notableStatus(r.status) },
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
            .map((p) => `${t(p.price)}${p.is_limited ? `/${t(p.limit_days)}d` : ''}`)
            .join(' ')
        : '',
  },
];
