// `book get --isbn-file|--hash-id-file FILE|-`: many books through the search endpoint's `isbn` /
// `hash_ids` arrays, a spec on the bulk job engine: the list is streamed in chunks of 100 (one
// search request each, paged when one value matches several books), run --concurrency at a
// time, and printed as one record per input line in input order (the engine's ordered mode),
// with the ones not found marked. Exit 6 when any input was invalid, not found, or failed.
import type { Context } from '../../../context.js';
import { messageOf, usageError } from '../../../errors.js';
import { style, type Column } from '../../../output/index.js';
import { cellText as t } from '../../../output/format.js';
import * as v from '../../../validate/index.js';
import { readList } from '../../../bulk/lines.js';
import { chunks, runJob, type JobSpec, type JobTools } from '../../../bulk/engine.js';
import { failureOf, type Failure } from '../../../bulk/retry.js';
import { compactIsbn } from '../../../util/scan.js';

export interface LookupOptions {
  kind: 'isbn' | 'hash_id';
  /** A file of one ISBN or hash id per line, or `-` for stdin. */
  file: string;
  /** Verify ISBN check digits (false with --no-check). */
  check: boolean;
  /** The command that runs the lookup again, as it was given (src/commands/given.ts). */
  command: string;
}

type Status = 'found' | 'not_found' | 'invalid' | 'error';
type Line = { line: number; value: string };
/** A book as the search endpoint returns it: only the identifiers are read here. */
type Book = { hash_id?: unknown; identifiers?: Record<string, unknown> } & Record<string, unknown>;
const CHUNK = 100;

/** Every ISBN form a book answers to, normalised (digits and X). */
function isbnKeys(book: Book): string[] {
  const ids = book?.identifiers ?? {};
  const out = new Set<string>();
  for (const k of ['isbn13', 'isbn10', 'eisbn13', 'eisbn10', 'parent_isbn']) {
    const raw = ids[k] ?? book?.[k];
    if (typeof raw === 'string' && raw) {
      const n = compactIsbn(raw);
      out.add(n);
      const as13 = toIsbn13(n);
      if (as13) out.add(as13);
    }
  }
  return [...out];
}

function toIsbn13(isbn: string): string | undefined {
  if (/^\d{13}$/.test(isbn)) return isbn;
  if (!/^\d{9}[\dX]$/.test(isbn)) return undefined;
  const core = '978' + isbn.slice(0, 9);
  const sum = [...core].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return core + ((10 - (sum % 10)) % 10);
}

export async function runLookup(opts: LookupOptions, ctx: Context): Promise<number> {
  const flag = opts.kind === 'isbn' ? '--isbn-file' : '--hash-id-file';
  const label = opts.kind === 'isbn' ? 'isbn' : 'hash_id';
  const record = (l: Line, status: Status, key?: string, book?: Book, message?: string) => ({
    line: l.line,
    input: l.value,
    [label]: key ?? null,
    status,
    message: message ?? null,
    book: book ?? null,
  });

  const spec: JobSpec<Line, ReturnType<typeof record>> = {
    verb: 'book get',
    columns: ['line', 'input', label, 'status', 'message', 'book'],
    stdoutColumns: lookupColumns(ctx),
    unit: opts.kind === 'isbn' ? 'ISBNs' : 'hash ids',
    ordered: true,
    source: () => chunks(inputLines(opts, ctx, flag), CHUNK),
    async process(batch, job) {
      const { keys, messages } = keysOf(batch.items, opts);
      const search = await searchBooks(job, opts.kind, [...new Set(keys.filter((k): k is string => k !== undefined))]);
      if (search === 'interrupted') return { rows: [], notDone: { interrupted: true } };
      const { found, failure } = search;
      let invalid = 0;
      const rows = batch.items.map((l, i) => {
        const k = keys[i];
        if (k === undefined) {
          invalid++;
          return record(l, 'invalid', undefined, undefined, messages[i]);
        }
        const b = found.get(k);
        if (b) return record(l, 'found', k, b);
        if (failure) return record(l, 'error', k, undefined, failure.message);
        invalid++; // not found: a partial result (exit 6), like an invalid line
        return record(l, 'not_found', k, undefined, 'no matching book');
      });
      return { rows, failures: failure ? [failure] : [], invalid };
    },
    status: (r) => r.status,
    describe: describeLookup,
    invalidHint: '',
    identity: {},
    resume: false,
    restart: false,
    concurrency: 4,
    command: opts.command,
    dryRunNote: `(dry run: the first search request of at most ${CHUNK} values is shown; nothing is sent)`,
  };
  return runJob(spec, ctx);
}

/**
 * One record per input line in every format (the output model): tables and CSV/TSV show these
 * columns by default; --fields paths are relative to the record (`book.title`).
 */
function lookupColumns(ctx: Context): Column[] {
  const st = style(ctx);
  return [
    { key: 'line' },
    { key: 'input' },
    {
      key: 'status',
      format: (s) =>
        s === 'found' ? st.green('found') : s === 'not_found' ? st.yellow('not found') : st.red(String(s)),
    },
    { key: 'book.hash_id', label: 'hash id' },
    { key: 'book.title', label: 'title' },
    { key: 'book.author', label: 'author' },
    { key: 'book.identifiers.isbn13', label: 'isbn13' },
    { key: 'message' },
  ];
}

/** The file's values; a file with none is a usage error. */
async function* inputLines(opts: LookupOptions, ctx: Context, flag: string): AsyncGenerator<Line> {
  let any = false;
  for await (const l of readList(opts.file, ctx, flag)) {
    any = true;
    yield l;
  }
  if (!any)
    throw usageError(
      `${flag} ${opts.file}: no ${opts.kind === 'isbn' ? 'ISBNs' : 'hash ids'} in it (blank lines and # comments are ignored).`,
    );
}

/** Each line's search key (an ISBN as ISBN-13), or undefined and why it is invalid. */
function keysOf(items: Line[], opts: LookupOptions): { keys: Array<string | undefined>; messages: string[] } {
  const keys: Array<string | undefined> = [];
  const messages: string[] = [];
  for (const l of items) {
    try {
      let k =
        opts.kind === 'isbn' ? v.isbn(l.value, `line ${l.line}:`, opts.check) : v.hashId(l.value, `line ${l.line}:`);
      if (opts.kind === 'isbn') k = toIsbn13(k) ?? k;
      keys.push(k);
      messages.push('');
    } catch (e) {
      keys.push(undefined);
      messages.push(messageOf(e));
    }
  }
  return { keys, messages };
}

/** The books matching `wanted`, paged (one ISBN may match more than one book), by every key they answer to. */
async function searchBooks(
  job: JobTools,
  kind: LookupOptions['kind'],
  wanted: string[],
): Promise<{ found: Map<string, Book>; failure?: Failure } | 'interrupted'> {
  const found = new Map<string, Book>();
  for (let offset = 0; wanted.length; ) {
    const r = await job.call('book.search', {
      payload: kind === 'isbn' ? { isbn: wanted, offset, limit: 500 } : { hash_ids: wanted, offset, limit: 500 },
    });
    if (!r.ok) {
      if (r.interrupted) return 'interrupted';
      return { found, failure: r.failure };
    }
    if (r.response.status >= 400) return { found, failure: failureOf(r.response) };
    const results: Book[] = Array.isArray(r.response.body?.results) ? r.response.body.results : [];
    for (const b of results) {
      const ks = kind === 'isbn' ? isbnKeys(b) : [t(b?.hash_id ?? b?.identifiers?.hash_id).toLowerCase()];
      for (const k of ks) if (!found.has(k)) found.set(k, b);
    }
    offset += results.length;
    const count = r.response.body?.count;
    if (!results.length || typeof count !== 'number' || offset >= count || wanted.every((k) => found.has(k))) break;
  }
  return { found };
}

function describeLookup(c: Record<string, number>): string {
  const n = (s: Status) => c[s] ?? 0;
  const all = n('found') + n('not_found') + n('invalid') + n('error');
  if (all && all === n('found')) return `${all} looked up: all found`;
  return (
    `${all} looked up: ${n('found')} found, ${n('not_found')} not found` +
    (n('invalid') ? `, ${n('invalid')} invalid` : '') +
    (n('error') ? `, ${n('error')} failed; run again to retry them` : '')
  );
}
