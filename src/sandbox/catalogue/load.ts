// Loading a partner's catalogue into the sandbox: the rules. Records come from a reader (ONIX or
// CSV, read as a stream); each is checked, then added, updated or withdrawn through the books
// repository, all in one transaction: every valid record is in, or with `strict` (or an error
// that stops the file) nothing is.
//
//   - A book is found again by its own ISBN-13 (`eisbn13`): loading it again updates it in place
//     (same id, hash id and prices still ordered), so orders and access granted survive.
//   - Prices: one per currency and term (lifetime, or a rental of N days). A price that is no
//     longer in the record is deactivated, never deleted (orders refer to it); an unchanged one
//     keeps its id.
//   - A withdrawal (ONIX NotificationType 05, CSV action=withdraw) takes the book off sale:
//     inactive, unpublished, prices deactivated.
//   - Books go under the record's publisher (or `publisher`), created when new and given to the
//     partner account; a publisher that another account controls is refused.
//   - Hash ids are derived from the ISBN, so a title loaded again after `sandbox reset` gets the
//     same hash id.
import * as books from '../repo/books.js';
import { deactivateLivePrices, deactivatePrice, insertPrices } from '../repo/prices.js';
import {
  deferBookIndexes,
  deferTextIndex,
  type DeferredBookIndexes,
  type DeferredTextIndex,
} from '../repo/book-indexes.js';
import type { Store } from '../db/store.js';
import {
  checkedPrices,
  DEFAULT_PAGES,
  isbn10Of,
  isbn13Of,
  loadedHashId,
  MAX_PAGES,
  priceTexts,
  type Checked,
} from './checks.js';
import { LoadPublishers } from './publishers.js';
import type { CatalogueRecord } from './record.js';
import { CatalogueFileError, StrictRefusal, type LoadOptions, type LoadSummary } from './summary.js';

/** The columns a record may change, in the order an update names them. */
const FIELD_NAMES: Array<keyof books.BookFields> = [
  'publisher_id',
  'title',
  'subtitle',
  'description',
  'author',
  'language',
  'num_pages',
  'publish_year',
  'isbn13',
  'isbn10',
  // Stryker disable next-line StringLiteral: equivalent, a record never changes the eisbn13 it is found by
  'eisbn13',
  // Stryker disable next-line StringLiteral: equivalent, a record never sets eisbn10 (it follows eisbn13, by which the book is found)
  'eisbn10',
  'parent_isbn',
  'sku',
  // Stryker disable next-line StringLiteral: equivalent, a change of is_published is also written through the is_public check after this list
  'is_published',
];

export class CatalogueLoader {
  readonly summary: LoadSummary;
  private readonly now: number;
  /** ISBN -> the record that first gave it in this file. */
  private readonly seen = new Map<string, number>();
  /** The publishers of this load's books, and which of them the account controls. */
  private readonly publishers: LoadPublishers;
  /** Digital editions of this file without a print ISBN, and print ISBNs that print records name for them. */
  private readonly noParent = new Set<string>();
  private readonly printOf = new Map<string, string>();
  /** A new book's SKU and print ISBN, and the books holding them, read together (see check). */
  private held?: books.KeyHolders;

  constructor(
    private readonly store: Store,
    format: 'onix' | 'csv',
    private readonly opts: LoadOptions = {},
    /** The load's text index (see deferTextIndex), told of renamed books. */
    private readonly textIndex?: DeferredTextIndex,
    /** The load's secondary indexes of books (see deferBookIndexes), told of added books. */
    private readonly bookIndexes?: DeferredBookIndexes,
  ) {
    const account = books.accountIdByRole(store, opts.accountRole ?? 'partner');
    if (account === undefined)
      throw new CatalogueFileError('The sandbox database has no partner account; run `bookdist sandbox reset`.');
    this.now = store.now();
    this.summary = {
      format,
      records: 0,
      added: 0,
      updated: 0,
      withdrawn: 0,
      refused: 0,
      skipped: 0,
      skipped_by_reason: {},
      not_represented: {},
      refusals: [],
      publishers_created: [],
      committed: false,
    };
    this.publishers = new LoadPublishers(store, account, opts.publisher, this.summary.publishers_created);
  }

  /** Check one record and write it (inside the caller's transaction). */
  add(rec: CatalogueRecord): void {
    const s = this.summary;
    s.records++;
    const problem = this.apply(rec);
    if (problem !== undefined) {
      s.refused++;
      s.refusals.push({
        record: rec.number,
        ...(rec.line !== undefined ? { line: rec.line } : {}),
        ...(rec.reference ? { reference: rec.reference } : {}),
        reason: problem,
      });
      return;
    }
    if (rec.unrepresented.length)
      for (const what of new Set(rec.unrepresented)) s.not_represented[what] = (s.not_represented[what] ?? 0) + 1;
  }

  /** A print edition of the file names its digital edition: `printIsbn` is that edition's print ISBN. */
  notePrintEdition(digitalIsbn: string, printIsbn: string): void {
    const d = isbn13Of(digitalIsbn, 'ISBN');
    const p = isbn13Of(printIsbn, 'ISBN');
    if ('isbn' in d && 'isbn' in p) this.printOf.set(d.isbn, p.isbn);
  }

  /** After the last record: link digital editions to print editions named only later in the file. */
  finish(): LoadSummary {
    for (const [digital, print] of this.printOf) {
      if (!this.noParent.has(digital)) continue;
      const b = books.bookByEisbn(this.store, digital);
      if (!b) continue;
      const taken = books.bookByIsbn13Column(this.store, print);
      books.updateBook(
        this.store,
        b.id,
        taken ? { parent_isbn: print } : { parent_isbn: print, isbn13: print, isbn10: isbn10Of(print) },
      );
    }
    const s = this.summary;
    if (this.opts.strict && s.refused > 0) throw new StrictRefusal(s);
    s.committed = true;
    return s;
  }

  /** Why the record is refused, or undefined once it is written (or skipped). */
  private apply(rec: CatalogueRecord): string | undefined {
    if (rec.problems.length) return rec.problems.join('; ');
    if (!rec.isbn)
      return rec.kind === 'digital' || rec.action === 'withdraw'
        ? 'no ISBN-13 (an ISBN-13, a GTIN-13 of 978/979, or an ISBN-10)'
        : this.skip(rec.kind);
    // Stryker disable next-line StringLiteral: equivalent, both readers set isbnKind with the ISBN (csv.ts 'ISBN', onix-product.ts the ProductIDType's name)
    const own = isbn13Of(rec.isbn, rec.isbnKind ?? 'ISBN');
    if ('problem' in own) return own.problem;
    const isbn = own.isbn;
    const first = this.seen.get(isbn);
    if (first !== undefined) return `ISBN ${isbn} is also in record ${first} of this file`;
    this.seen.set(isbn, rec.number);
    // With its live prices (an update reconciles them): one statement, not two.
    const existing = books.bookByEisbnWithPrices(this.store, isbn, this.now);
    if (rec.action === 'withdraw') return this.withdraw(isbn, existing);
    if (rec.kind !== 'digital') return this.skip(rec.kind);
    const v = this.check(rec, isbn, existing);
    if (typeof v === 'string') return v;
    return existing ? this.update(rec, v, existing) : this.insert(rec, v);
  }

  private withdraw(isbn: string, existing: books.LoadedBookRow | undefined): string | undefined {
    if (!existing) return `ISBN ${isbn} is not in the sandbox's catalogue: nothing to withdraw`;
    const denied = this.publishers.denied(existing);
    if (denied) return denied;
    books.withdrawBook(this.store, existing.id);
    deactivateLivePrices(this.store, existing.id, this.now);
    this.summary.withdrawn++;
    return undefined;
  }

  /** The record's values checked, before anything is written; or why it is refused. */
  private check(rec: CatalogueRecord, isbn: string, existing: books.FoundBookRow | undefined): Checked | string {
    let print: string | undefined;
    if (rec.printIsbn) {
      const p = isbn13Of(rec.printIsbn, 'print ISBN');
      if ('problem' in p) return p.problem;
      if (p.isbn === isbn) return `the print ISBN ${isbn} is the edition's own ISBN`;
      print = p.isbn;
    }
    // Stryker disable next-line MethodExpression: equivalent, both readers trim every value (csv.ts each cell, onix.ts each element's text)
    const title = rec.title?.trim();
    if (!existing && !title) return 'no title';
    let pages: number | undefined;
    // Stryker disable next-line MethodExpression,ConditionalExpression,StringLiteral: equivalent, both readers trim every value (csv.ts each cell, onix.ts each element's text) and leave out an empty one (this line's other ConditionalExpression mutants are killed by catalogue.test.ts, page counts)
    if (rec.pages !== undefined && rec.pages.trim() !== '') {
      // Stryker disable next-line MethodExpression: equivalent, both readers trim every value (csv.ts each cell, onix.ts each element's text)
      const n = Number(rec.pages.trim());
      // Stryker disable next-line MethodExpression: equivalent, both readers trim every value (csv.ts each cell, onix.ts each element's text)
      if (!/^\d+$/.test(rec.pages.trim()) || n < 1 || n > MAX_PAGES)
        return `page count "${rec.pages.slice(0, 20)}" is not a whole number from 1 to ${MAX_PAGES}`;
      pages = n;
    }
    const prices = checkedPrices(rec);
    if (typeof prices === 'string') return prices;
    // Stryker disable next-line MethodExpression: equivalent, both readers trim every value (csv.ts each cell, onix.ts each element's text)
    const sku = rec.sku?.trim() || undefined;
    if (sku !== undefined && sku.length > 64) return `SKU "${sku.slice(0, 20)}…" is longer than 64 characters`;
    // A new book's SKU (given, or the one it would get) and the ISBN its isbn13 column would
    // hold (the print edition's, else its own) are looked up in one statement: nothing this
    // record does before its insert writes books.
    // Stryker disable next-line StringLiteral: equivalent, the holders looked up for another SKU than the one the book would get are not used for it: insert looks `EB-<isbn>` up itself (its refusal is killed by catalogue.test.ts)
    this.held = existing ? undefined : books.keyHolders(this.store, sku ?? `EB-${isbn}`, print ?? isbn);
    // Stryker disable next-line ConditionalExpression: equivalent, `sku !== existing?.sku` → true looks the SKU up for the book's own SKU too, whose owner is the book itself (the other mutant of the line is killed by catalogue.test.ts, "Same SKU")
    if (sku !== undefined && sku !== existing?.sku) {
      const owner = this.held ? this.held.skuOwner : books.bookBySku(this.store, sku);
      if (owner && owner.id !== existing?.id)
        return `SKU ${sku} is already the SKU of another book (${owner.eisbn13 || owner.isbn13})`;
    }
    const publisher = this.publishers.publisherFor(rec, existing);
    if ('problem' in publisher) return publisher.problem;
    if (existing) {
      const denied = this.publishers.denied(existing);
      if (denied) return denied;
    }
    return { isbn, title, pages, print, sku, prices, publisherId: publisher.id };
  }

  /** The book's fields a record sets (undefined: keep what the book has). */
  private fieldsOf(
    rec: CatalogueRecord,
    v: Checked,
    existing: books.LoadedBookRow | undefined,
  ): Partial<books.BookFields> {
    const fields: Partial<books.BookFields> = { publisher_id: v.publisherId };
    if (v.title) fields.title = v.title;
    if (rec.subtitle !== undefined) fields.subtitle = rec.subtitle.trim();
    if (rec.author !== undefined) fields.author = rec.author.trim();
    if (rec.description !== undefined) fields.description = rec.description;
    if (rec.language) fields.language = rec.language;
    if (v.pages !== undefined) fields.num_pages = v.pages;
    if (rec.publishYear !== undefined) fields.publish_year = rec.publishYear;
    if (v.sku) fields.sku = v.sku;
    fields.is_published = rec.published ? 1 : 0;
    if (v.print) {
      // The print edition's ISBN goes into isbn13 (with parent_isbn) when no other book holds it there.
      fields.parent_isbn = v.print;
      if (this.isbn13Free(v.print, existing)) Object.assign(fields, { isbn13: v.print, isbn10: isbn10Of(v.print) });
    }
    return fields;
  }

  /** May `isbn` go into this book's isbn13 column (no other book holds it there)? */
  private isbn13Free(isbn: string, existing: books.LoadedBookRow | undefined): boolean {
    if (existing?.isbn13 === isbn) return true;
    const holder =
      !existing && this.held?.isbn13 === isbn ? this.held.isbn13Holder : books.bookByIsbn13Column(this.store, isbn);
    return !holder || holder.id === existing?.id;
  }

  /** Write what changed in a book already there (same id and hash id: its orders and access stay). */
  private update(rec: CatalogueRecord, v: Checked, existing: books.FoundBookRow): undefined {
    const fields = this.fieldsOf(rec, v, existing);
    // Only what differs is written: an unchanged column costs no index or text-index work.
    const changed: Record<string, unknown> = {};
    for (const k of FIELD_NAMES) if (fields[k] !== undefined && fields[k] !== existing[k]) changed[k] = fields[k];
    // What updateBook derives from them (is_public, sample_page_end) is brought in line too.
    if (fields.is_published !== undefined && fields.is_published !== existing.is_public)
      changed.is_published = fields.is_published;
    if (fields.num_pages !== undefined && books.sampleEnd(fields.num_pages) !== existing.sample_page_end)
      changed.num_pages = fields.num_pages;
    // An update of a withdrawn title puts it back on sale.
    if (Object.keys(changed).length || existing.is_active !== 1) {
      if (changed.title !== undefined || changed.author !== undefined)
        this.textIndex?.changing(existing.id, existing.title, existing.author);
      books.updateBook(this.store, existing.id, changed);
    }
    if (rec.prices.length) this.reconcilePrices(existing, v.prices);
    this.summary.updated++;
    if (!v.print && !existing.parent_isbn) this.noParent.add(v.isbn);
    return undefined;
  }

  /** Add a new book with its prices; or why it cannot be added. */
  private insert(rec: CatalogueRecord, v: Checked): string | undefined {
    const { isbn } = v;
    const fields = this.fieldsOf(rec, v, undefined);
    if (fields.isbn13 === undefined && !this.isbn13Free(isbn, undefined))
      return `ISBN ${isbn} is already the print ISBN of another book`;
    const eb = `EB-${isbn}`;
    if (!v.sku && (this.held?.sku === eb ? this.held.skuOwner : books.bookBySku(this.store, eb)))
      return `the SKU EB-${isbn} it would get is already another book's; give it a SKU`;
    if (v.pages === undefined) rec.unrepresented.push(`no page count (${DEFAULT_PAGES} pages assumed)`);
    if (!v.prices.length) rec.unrepresented.push('no digital price (the book cannot be ordered)');
    const id = books.insertBook(this.store, {
      hash_id: loadedHashId(isbn),
      publisher_id: v.publisherId,
      title: v.title!,
      subtitle: fields.subtitle ?? '',
      description: fields.description ?? '',
      author: fields.author ?? '',
      language: fields.language ?? 'en',
      num_pages: v.pages ?? DEFAULT_PAGES,
      publish_year: fields.publish_year ?? null,
      isbn13: fields.isbn13 ?? isbn,
      isbn10: fields.isbn10 ?? isbn10Of(isbn),
      eisbn13: isbn,
      eisbn10: isbn10Of(isbn),
      parent_isbn: fields.parent_isbn ?? '',
      sku: v.sku ?? `EB-${isbn}`,
      is_published: fields.is_published!,
      loaded_at: this.now,
    });
    insertPrices(this.store, id, v.prices.map(priceRow));
    if (!v.print) this.noParent.add(isbn);
    this.summary.added++;
    this.bookIndexes?.added();
    return undefined;
  }

  private skip(kind: string): undefined {
    const s = this.summary;
    s.skipped++;
    s.skipped_by_reason[kind] = (s.skipped_by_reason[kind] ?? 0) + 1;
    return undefined;
  }

  private reconcilePrices(book: books.FoundBookRow, wanted: Checked['prices']): void {
    const bookId = book.id;
    const live = book.live;
    const left = [...wanted];
    const stale = live.filter((p) => {
      const i = left.findIndex((w) => w.currency === p.currency && w.days === p.limit_days && w.price === p.price);
      if (i >= 0) left.splice(i, 1);
      return i < 0;
    });
    // Every price changed (a re-sent feed's new price list): one statement for them all. (Not by
    // id: `id IN (...)` builds an ephemeral table at each run, ~20,000 instructions more a book.)
    if (stale.length > 1 && stale.length === live.length) deactivateLivePrices(this.store, bookId, this.now);
    else for (const p of stale) deactivatePrice(this.store, p.id, this.now);
    if (left.length) insertPrices(this.store, bookId, left.map(priceRow));
  }
}

/** A checked price as its row. */
function priceRow(p: Checked['prices'][number]): books.NewPriceRow {
  return { currency: p.currency, price: p.price, ...priceTexts(p.days) };
}

/**
 * Load `records` (a reader's output) into `store` in one transaction. Throws StrictRefusal (with
 * the summary; nothing kept) under `strict` when a record was refused, CatalogueFileError when the
 * file cannot be read (nothing kept).
 */
export async function loadCatalogue(
  store: Store,
  format: 'onix' | 'csv',
  /** A reader: records to iterate, or a pump that hands each record to `loader.add` itself. */
  records: (loader: CatalogueLoader) => AsyncIterable<CatalogueRecord> | Promise<void>,
  opts: LoadOptions = {},
): Promise<LoadSummary> {
  // One transaction writes every book, its index entries and text-index terms: with SQLite's
  // default 2 MB page cache the indexes' pages are evicted and read back all the time.
  const before = store.get('PRAGMA cache_size')?.cache_size as number | undefined;
  store.exec(`PRAGMA cache_size = -${LOAD_CACHE_KB}`);
  try {
    return await store.txAsync(async () => {
      const index = deferTextIndex(store);
      const bookIndexes = deferBookIndexes(store);
      const loader = new CatalogueLoader(store, format, opts, index, bookIndexes);
      const reader = records(loader);
      if (Symbol.asyncIterator in reader) for await (const rec of reader) loader.add(rec);
      else await reader;
      const summary = loader.finish();
      bookIndexes.finish();
      index.finish();
      return summary;
    });
  } finally {
    if (before !== undefined && store.db.isOpen) store.exec(`PRAGMA cache_size = ${Number(before)}`);
  }
}

/** The page cache of a load's connection, in KB (SQLite's default is 2 MB). */
// Stryker disable next-line ArithmeticOperator: accepted, the page cache's size changes how fast a load runs, not what it loads
const LOAD_CACHE_KB = 24 * 1024;
