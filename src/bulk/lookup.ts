// Batch lookups for `book get --isbn-file|--hash-id-file FILE|-`: many books through the search
// endpoint's `isbn` / `hash_ids` arrays in chunks (bounded concurrency, keep-alive), printed as one
// record per input line, in input order, with the ones not found marked. Exit 6 when any input was
// invalid, not found, or failed.
import type { Context } from '../context.js';
import { ExitCode, usageError } from '../errors.js';
import { createRowWriter, style, type Column } from '../output/index.js';
import * as v from '../validate/index.js';
import { readListAll, inputError } from './lines.js';
import { runPool } from './pool.js';
import { callWithRetry, failureOf, type Failure } from './retry.js';
import { createProgress } from './progress.js';

export interface LookupOptions {
  kind: 'isbn' | 'hash_id';
  /** A file of one ISBN or hash id per line, or `-` for stdin. */
  file: string;
  /** Verify ISBN check digits (false with --no-check). */
  check: boolean;
  /** Values per search request (default 100). */
  chunkSize?: number;
  /** Search requests in flight (default 4). */
  concurrency?: number;
}

type Status = 'found' | 'not_found' | 'invalid' | 'error';

interface Item {
  line: number;
  input: string;
  /** Normalised value sent to the service (undefined when invalid). */
  key?: string;
  status?: Status;
  message?: string;
  book?: any;
}

/** Every ISBN form a book answers to, normalised (digits and X). */
function isbnKeys(book: any): string[] {
  const ids = book?.identifiers ?? {};
  const out = new Set<string>();
  for (const k of ['isbn13', 'isbn10', 'eisbn13', 'eisbn10', 'parent_isbn']) {
    const raw = ids[k] ?? book?.[k];
    if (typeof raw === 'string' && raw) {
      const n = raw.replace(/[\s-]/g, '').toUpperCase();
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
  let lines;
  try {
    lines = await readListAll(opts.file, ctx, flag);
  } catch (e) {
    throw inputError(e, opts.file, flag);
  }
  if (!lines.length) throw usageError(`${flag} ${opts.file}: no ${opts.kind === 'isbn' ? 'ISBNs' : 'hash ids'} in it (blank lines and # comments are ignored).`);

  const items: Item[] = lines.map((l) => {
    const it: Item = { line: l.line, input: l.value };
    try {
      it.key = opts.kind === 'isbn' ? v.isbn(l.value, `line ${l.line}:`, opts.check) : v.hashId(l.value, `line ${l.line}:`);
      if (opts.kind === 'isbn') it.key = toIsbn13(it.key) ?? it.key;
    } catch (e: any) {
      it.status = 'invalid';
      it.message = String(e.message);
    }
    return it;
  });

  // Unique keys, in first-seen order, chunked.
  const byKey = new Map<string, Item[]>();
  for (const it of items) if (it.key) (byKey.get(it.key) ?? byKey.set(it.key, []).get(it.key)!).push(it);
  const keys = [...byKey.keys()];
  const chunkSize = opts.chunkSize ?? 100;
  const chunks: string[][] = [];
  for (let i = 0; i < keys.length; i += chunkSize) chunks.push(keys.slice(i, i + chunkSize));

  ctx.noticesOnTtyOnly = true; // bulk job: a script's stderr holds only errors
  const api = await ctx.api();
  if (ctx.globals.dryRun) {
    ctx.info(`(dry run: ${chunks.length} search request(s) of at most ${chunkSize} values would be sent)`);
    await api.call('book.search', { payload: opts.kind === 'isbn' ? { isbn: chunks[0] ?? [], limit: 500 } : { hash_ids: chunks[0] ?? [], limit: 500 } });
    return 0;
  }

  // Records are printed in input order as soon as every earlier one is settled.
  const label = opts.kind === 'isbn' ? 'isbn' : 'hash_id';
  const st = style(ctx);
  const columns: Column[] = [
    { key: 'line' },
    { key: 'input' },
    { key: 'status', format: (s) => (s === 'found' ? st.green('found') : s === 'not_found' ? st.yellow('not found') : st.red(String(s))) },
    { key: 'book.hash_id', label: 'hash id' },
    { key: 'book.title', label: 'title' },
    { key: 'book.author', label: 'author' },
    { key: 'book.identifiers.isbn13', label: 'isbn13' },
    { key: 'message' },
  ];
  // One record per input line in every format (the output model): tables and CSV/TSV show the
  // columns above by default; --fields paths are relative to the record (`book.title`).
  const writer = createRowWriter(ctx, { columns });
  let printed = 0;
  const record = (it: Item) => ({
    line: it.line,
    input: it.input,
    [label]: it.key ?? null,
    status: it.status,
    message: it.message ?? null,
    book: it.book ?? null,
  });
  const flush = () => {
    while (printed < items.length && items[printed].status) writer.write(record(items[printed++]));
  };
  flush();

  ctx.trapInterrupt();
  const progress = createProgress(ctx, { total: keys.length, unit: opts.kind === 'isbn' ? 'ISBNs' : 'hash ids', label: 'lookup' });
  const failures: Failure[] = [];
  await runPool(
    chunks,
    async (chunk) => {
      const found = new Map<string, any>();
      let failure: Failure | undefined;
      // Page through the chunk's matches (one ISBN may match more than one book).
      for (let offset = 0; ; ) {
        const r = await callWithRetry(
          api,
          'book.search',
          { payload: opts.kind === 'isbn' ? { isbn: chunk, offset, limit: 500 } : { hash_ids: chunk, offset, limit: 500 } },
          { retries: ctx.globals.retries, sleep: ctx.clock.sleep, signal: ctx.signal },
        );
        if (!r.ok) {
          failure = r.failure;
          break;
        }
        if (r.response.status >= 400) {
          failure = failureOf(r.response);
          break;
        }
        const results: any[] = Array.isArray(r.response.body?.results) ? r.response.body.results : [];
        for (const b of results) {
          const ks = opts.kind === 'isbn' ? isbnKeys(b) : [String(b?.hash_id ?? b?.identifiers?.hash_id ?? '').toLowerCase()];
          for (const k of ks) if (byKey.has(k) && !found.has(k)) found.set(k, b);
        }
        offset += results.length;
        const count = r.response.body?.count;
        if (!results.length || typeof count !== 'number' || offset >= count || found.size >= chunk.length) break;
      }
      if (failure) failures.push(failure);
      for (const k of chunk) {
        for (const it of byKey.get(k)!) {
          const b = found.get(k);
          if (b) {
            it.status = 'found';
            it.book = b;
          } else if (failure) {
            it.status = 'error';
            it.message = failure.message;
          } else {
            it.status = 'not_found';
            it.message = 'no matching book';
          }
        }
      }
      progress.tick(chunk.length);
      flush();
    },
    { concurrency: opts.concurrency ?? 4, signal: ctx.signal },
  );
  progress.stop();
  const interrupted = ctx.signal.aborted && items.some((i) => !i.status);
  if (!interrupted) flush();
  await writer.end();

  const count = (s: Status) => items.filter((i) => i.status === s).length;
  const found = count('found');
  const notFound = count('not_found');
  const invalid = count('invalid');
  const errors = count('error');
  if (interrupted) {
    ctx.warn(`interrupted after ${printed} of ${items.length} lookups.`);
    return ExitCode.INTERRUPTED;
  }
  if (notFound || invalid || errors) {
    ctx.warn(
      `${items.length} looked up: ${found} found, ${notFound} not found` +
        (invalid ? `, ${invalid} invalid` : '') +
        (errors ? `, ${errors} failed (${failures[0]?.message}); run again to retry them` : '') +
        '.',
    );
    return errors && !notFound && !invalid && failures.every((f) => f.kind === 'unavailable') ? ExitCode.UNAVAILABLE : ExitCode.PARTIAL;
  }
  if (ctx.io.stderr.isTTY) ctx.info(`${items.length} looked up: all found.`);
  return ExitCode.OK;
}
