// Offset/limit paging of the service's listings (book search, book list, import search), and
// the one listing command shape they share: one page with an `N of M` hint, or `--all` streamed
// page by page through the row writer so memory stays flat in the number of rows.
import type { Context } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import { createRowWriter, emit, outputFormat, recOf, type Column, type RowWriter } from '../output/index.js';
import { nonNegativeInt, positiveInt } from '../validate/index.js';
import type { OptsOf, PAGING } from './define.js';

/**
 * A page of a listing as its fetch gives it: the rows in `results`, and the service's total in
 * `count` when it reports one (the verified answers of book search, book list and import search).
 */
export type PageBody = {
  results: unknown[];
  count?: number;
};

/** One page as the service answered it. */
export interface Page<B extends PageBody = PageBody> {
  /** The page's records. */
  results: B['results'];
  /** The service's total, when it reports one. */
  count?: number;
  /** Offset this page started at. */
  offset: number;
  /** The whole response body. */
  body: B;
}

export interface PagesOptions {
  /** Where to start (default 0). */
  offset?: number;
  /** Rows to ask for per request. */
  pageSize: number;
  /** Stop after this many rows in total. */
  max?: number;
  signal?: AbortSignal;
  /** What is listed (a plural noun), for errors: `books`. */
  noun?: string;
}

/** Fetch one page; `results` defaults to `body.results`. */
export type FetchPage<B extends PageBody = PageBody> = (
  offset: number,
  limit: number,
  signal?: AbortSignal,
) => Promise<B>;

/** What identifies a row of a listing: its `id`, else its `hash_id`, else the row itself (any listing's row: open). */
function rowKey(row: unknown): string {
  const r = recOf(row);
  if (typeof r.id === 'number' || typeof r.id === 'string') return `id:${r.id}`;
  if (typeof r.hash_id === 'string') return `hash:${r.hash_id}`;
  return `row:${JSON.stringify(row)}`;
}

/**
 * Yield pages until one is empty, the service's `count` is reached, or — when the service reports
 * no count — a page comes back shorter than asked. The next offset advances by the rows received,
 * so a service that caps the page size below `pageSize` is still read to the end.
 *
 * A listing always ends, and never yields a row twice: a row already yielded is dropped, and a
 * page that brings no new row (a service that ignores `offset` answers the first page again, with
 * any `count`) stops the listing with an error naming the page; what was yielded before stays.
 */
export async function* pages<B extends PageBody>(fetchPage: FetchPage<B>, o: PagesOptions): AsyncGenerator<Page<B>> {
  let offset = o.offset ?? 0;
  let seen = 0;
  const keys = new Set<string>();
  for (let number = 1; ; number++) {
    if (o.signal?.aborted) throw o.signal.reason;
    const want = o.max !== undefined ? Math.min(o.pageSize, o.max - seen) : o.pageSize;
    if (want <= 0) return;
    const body = await fetchPage(offset, want, o.signal);
    const received = body.results;
    let results = received.filter((r) => {
      const k = rowKey(r);
      return keys.has(k) ? false : (keys.add(k), true);
    });
    if (received.length > 0 && results.length === 0) throw repeatedPage(number, offset, received.length, o.noun);
    if (o.max !== undefined && seen + results.length > o.max) results = results.slice(0, o.max - seen);
    const count = body.count;
    yield { results, count, offset, body };
    seen += results.length;
    offset += received.length;
    if (received.length === 0) return;
    if (count !== undefined ? offset >= count : received.length < want) return;
  }
}

/** The error of a page that brought no row not listed before. */
function repeatedPage(number: number, offset: number, rows: number, noun = 'rows'): CliError {
  return new CliError(
    `Listing ${noun}: page ${number} (offset ${offset}) brought ${rows} row${rows === 1 ? '' : 's'}, all listed already: ` +
      'the service does not page this listing by offset, so --all stops here rather than list the same rows again. ' +
      "The rows above are every row it gave; ask the service's operator, or list with --limit and --offset.",
    ExitCode.ERROR,
    { page: number, offset, rows },
  );
}

export interface ListingInput {
  limit?: number;
  offset: number;
  all: boolean;
}

/** Parse --limit, --offset and --all of a listing command. */
export function listingOptions(opts: OptsOf<{ options: typeof PAGING }>): ListingInput {
  return {
    limit: opts.limit !== undefined ? positiveInt(opts.limit, '--limit') : undefined,
    offset: nonNegativeInt(opts.offset, '--offset'),
    all: Boolean(opts.all),
  };
}

/** Page size of `--all` when --limit is not given. */
const ALL_PAGE_SIZE = 500;

export interface ListingSpec<B extends PageBody> {
  fetch: FetchPage<B>;
  /** Columns of the rows `fetch` gives. */
  columns: Column<B['results'][number]>[];
  /** Plural noun for messages: `books`, `imported titles`. */
  noun: string;
  empty?: string;
}

/**
 * Run a listing: without --all one page (`--limit`, `--offset`), printed with `emit` (JSON gets
 * the service's whole response) and `N of M` on stderr when the service has more; with --all
 * every row from --offset on, fetched --limit (default 500, the service's maximum) at a time and written as it arrives
 * (JSON: one array of records; tables: one table per page).
 */
export async function runListing<B extends PageBody>(
  ctx: Context,
  o: ListingInput,
  spec: ListingSpec<B>,
): Promise<void> {
  if (!o.all) {
    const body = await spec.fetch(o.offset, o.limit ?? 0, ctx.signal);
    const results = body.results;
    await emit(ctx, body, { columns: spec.columns, empty: spec.empty ?? `No ${spec.noun}.` });
    const count = body.count;
    if (count !== undefined && o.offset + results.length < count && results.length > 0) {
      const next = o.offset + results.length;
      ctx.info(
        `${results.length} of ${count} ${spec.noun} (from offset ${o.offset}); more with --offset ${next}, or --all.`,
      );
    } else if (count !== undefined && results.length === 0 && o.offset > 0 && count > 0) {
      ctx.info(`--offset ${o.offset} is past the end: ${count} ${spec.noun} in all.`);
    }
    return;
  }
  ctx.trapInterrupt();
  const table = outputFormat(ctx) === 'table' && !ctx.globals.query;
  // The writer is made with the first page: --json prints that response with the rows of every
  // page streamed into its `results` (the same shape as one page).
  let writer: RowWriter | undefined;
  let total = 0;
  let count: number | undefined;
  try {
    for await (const page of pages(spec.fetch, {
      offset: o.offset,
      pageSize: o.limit ?? ALL_PAGE_SIZE,
      signal: ctx.signal,
      noun: spec.noun,
    })) {
      writer ??= createRowWriter(ctx, { columns: spec.columns, envelope: page.body });
      count = page.count ?? count;
      for (const r of page.results) writer.write(r);
      total += page.results.length;
      // Backpressure: fetch the next page only when stdout has taken this one, so memory stays
      // flat in the number of rows even when the reader is slower than the service.
      await drained(ctx.io.stdout, ctx.signal);
      if (table && page.results.length) {
        // A table needs its column widths: print each page as it comes and start a new one.
        await writer.end();
        writer = createRowWriter(ctx, { columns: spec.columns, envelope: page.body });
      }
    }
  } finally {
    // Close the JSON array (or flush) even when interrupted, so what was written stays valid.
    if (!table) await (writer ?? createRowWriter(ctx, { columns: spec.columns })).end();
  }
  if (table && total === 0) ctx.info(spec.empty ?? `No ${spec.noun}.`);
  else if (table)
    ctx.info(
      `${total} ${spec.noun}${count !== undefined && count !== total + o.offset ? ` (the service counts ${count})` : ''}.`,
    );
}

/** Resolve once `stream` has room again (at once when it has), or when `signal` aborts. */
function drained(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean }, signal?: AbortSignal): Promise<void> {
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
