// `bookdist sandbox catalogue load FILE`: a partner's own titles (ONIX 3.0 or CSV) into the sandbox.
import { grouped, plural } from '../../output/text.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError, errorCode, messageOf } from '../../errors.js';
import { emitMessage } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { catalogueLoad } from './catalogue.cmd.js';
import { controlClient, openStore } from './parts/common.js';
import type { LoadSummary } from '../../sandbox/catalogue/index.js';

interface Options {
  file: string;
  format?: 'onix' | 'csv';
  publisher?: string;
  strict: boolean;
  db?: string;
  url?: string;
}

export function parse({ args, opts }: VerbInput<typeof catalogueLoad>): Options {
  const file = args.file;
  if (!file) throw usageError('Give the catalogue file: bookdist sandbox catalogue load FILE.');
  let format: Options['format'];
  if (opts.format !== undefined) {
    const f = opts.format.toLowerCase();
    if (f !== 'onix' && f !== 'csv')
      throw usageError(`--format must be onix or csv, not "${opts.format.slice(0, 40)}".`);
    format = f;
  }
  let publisher: string | undefined;
  if (opts.publisher !== undefined) {
    publisher = opts.publisher.trim();
    if (!publisher || publisher.length > 200)
      throw usageError('--publisher must name a publisher (1 to 200 characters).');
  }
  return { file, format, publisher, strict: opts.strict === true, db: opts.db, url: opts.url };
}

/** At most this many refusals are listed on stderr (--json has them all). */
const LISTED = 20;

/** Bytes of the file in one part sent to a running sandbox (its control routes take at most 1 MiB). */
const PART_BYTES = 1024 * 1024;

export async function run(o: Options, ctx: Context): Promise<number> {
  const nodePath = await import('node:path');
  const path = nodePath.resolve(ctx.io.cwd, o.file);
  const size = await fileSize(o.file, path);
  const { CatalogueFileError, StrictRefusal } = await import('../../sandbox/catalogue/index.js');
  const { createProgress } = await import('../../bulk/progress.js');
  const progress = createProgress(ctx, { total: size, unit: 'bytes', label: 'loading' });
  const read = { records: 0 };
  let summary: LoadSummary;
  try {
    summary = o.url
      ? await loadRemote(ctx, { ...o, url: o.url }, path, progress, read)
      : await loadLocal(ctx, o, path, progress, read);
  } catch (err) {
    progress.stop();
    if (err instanceof StrictRefusal) {
      listRefusals(ctx, err.summary);
      if (isJson(ctx)) await emitMessage(ctx, err.summary, '');
      throw new CliError(
        `${summaryLine(o.file, err.summary)} With --strict nothing was loaded; fix the refused records (or drop --strict to load the rest).`,
        ExitCode.USAGE,
      );
    }
    if (err instanceof CatalogueFileError) {
      throw new CliError(
        `${o.file}: ${err.message} Nothing was loaded${read.records ? ` (${read.records} records were read before it)` : ''}.`,
        ExitCode.USAGE,
      );
    }
    throw err;
  }
  progress.stop();
  listRefusals(ctx, summary);
  await emitMessage(ctx, summary, summaryLine(o.file, summary));
  return summary.refused > 0 ? ExitCode.PARTIAL : ExitCode.OK;
}

/** The size of the catalogue file, or a usage error saying why it cannot be read. */
async function fileSize(file: string, path: string): Promise<number> {
  const { stat } = await import('node:fs/promises');
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw usageError(`${file}: is a directory, not a catalogue file.`);
    return st.size;
  } catch (err) {
    if (err instanceof CliError) throw err;
    const code = errorCode(err);
    throw usageError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : messageOf(err)}.`,
    );
  }
}

type Progress = { set(n: number): void };

/** Load into the database itself (--db, or the default sandbox.db). */
async function loadLocal(
  ctx: Context,
  o: Options,
  path: string,
  progress: Progress,
  read: { records: number },
): Promise<LoadSummary> {
  const store = await openStore(ctx, o.db);
  const { loadCatalogueFile } = await import('../../sandbox/catalogue/index.js');
  return loadCatalogueFile(store, path, {
    format: o.format,
    publisher: o.publisher,
    strict: o.strict,
    onBytes: (b) => progress.set(b),
    onRecord: (n) => (read.records = n),
  });
}

/**
 * Send the file to the running sandbox at --url, which loads it (src/sandbox/http/control-catalogue.ts):
 * in parts of at most 1 MiB, each answered once it is loaded; the same summary and errors as a
 * load into the database itself.
 */
async function loadRemote(
  ctx: Context,
  o: Options & { url: string },
  path: string,
  progress: Progress,
  read: { records: number },
): Promise<LoadSummary> {
  const { detectFormat, CatalogueFileError, StrictRefusal } = await import('../../sandbox/catalogue/index.js');
  const { createReadStream } = await import('node:fs');
  const format = o.format ?? (await detectFormat(path));
  const control = await controlClient(ctx, { url: o.url, db: o.db });
  // Ctrl-C stops the sending: the load is cancelled (rolled back at once), not left to the idle minute.
  ctx.trapInterrupt();
  const started = await control.call('POST', '/_sandbox/catalogue/loads', {
    format,
    strict: o.strict,
    ...(o.publisher ? { publisher: o.publisher } : {}),
  });
  const base = `/_sandbox/catalogue/loads/${String(started.load)}`;
  /** An answer of the load as it is, or the CLI error of a failure that is not the file's. */
  const answer = async (route: string, body: unknown): Promise<Record<string, unknown>> => {
    const r = await control.request('POST', base + route, body);
    if (r.status === 422 && r.json.summary) throw new StrictRefusal(r.json.summary as LoadSummary);
    if (r.status === 400 && r.json.catalogue_error) {
      read.records = Number(r.json.records ?? 0);
      throw new CatalogueFileError(String(r.json.message));
    }
    // The sandbox no longer has the load (rolled back after its idle minute, or restarted): it committed nothing.
    if (r.status === 404)
      throw new CliError(
        `${String(r.json.message)} Nothing of ${o.file} was loaded; run the load again.`,
        ExitCode.NOT_FOUND,
        undefined,
        404,
      );
    return control.ok(r);
  };
  const interrupted = new Promise<never>((_, reject) =>
    ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }),
  );
  interrupted.catch(() => undefined);
  let sent = 0;
  try {
    for await (const part of createReadStream(path, { highWaterMark: PART_BYTES })) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const answered = answer('/part', part as Buffer);
      answered.catch(() => undefined);
      const loaded = await Promise.race([answered, interrupted]);
      sent += (part as Buffer).length;
      progress.set(sent);
      read.records = Number(loaded.records ?? read.records);
    }
    if (ctx.signal.aborted) throw ctx.signal.reason;
  } catch (err) {
    if (!ctx.signal.aborted) throw err;
    const cancelled = await control.request('POST', `${base}/cancel`, {}).then(
      (r) => r.status === 200,
      () => false,
    );
    throw new CliError(
      `Interrupted: nothing of ${o.file} was loaded${cancelled ? ' (the sandbox rolled the load back)' : ''}.`,
      ExitCode.INTERRUPTED,
    );
  }
  const { code: _c, success: _s, test_mode: _t, ...summary } = await answer('/end', {});
  return summary as unknown as LoadSummary;
}

function isJson(ctx: Context): boolean {
  return ctx.globals.json || ctx.globals.output === 'json' || ctx.globals.output === 'ndjson' || !!ctx.globals.query;
}

function listRefusals(
  ctx: Context,
  s: { refusals: Array<{ record: number; line?: number; reference?: string; reason: string }> },
): void {
  const shown = s.refusals.slice(0, LISTED);
  for (const r of shown) {
    ctx.warn(
      `record ${r.record}${r.line !== undefined ? ` (line ${r.line})` : ''}${r.reference ? ` [${r.reference.slice(0, 60)}]` : ''}: ${r.reason}`,
    );
  }
  if (s.refusals.length > shown.length)
    ctx.warn(`... and ${s.refusals.length - shown.length} more refused records (--json lists them all).`);
}

/** The one line a load ends with. */
export function summaryLine(file: string, s: Omit<LoadSummary, 'refusals' | 'committed'>): string {
  const n = grouped;
  const parts = [
    `${n(s.added)} added`,
    `${n(s.updated)} updated`,
    `${n(s.withdrawn)} withdrawn`,
    `${n(s.refused)} refused`,
  ];
  const skipped = Object.entries(s.skipped_by_reason).map(([why, k]) => `${n(k)} ${why}`);
  parts.push(`${n(s.skipped)} skipped${skipped.length ? ` (${skipped.join(', ')})` : ''}`);
  let line = `${file} (${s.format === 'onix' ? 'ONIX' : 'CSV'}, ${plural(s.records, 'record')}): ${parts.join(', ')}.`;
  const notes = Object.entries(s.not_represented).map(([what, k]) => `${what}: ${n(k)}`);
  if (notes.length) line += ` Not represented in the sandbox: ${notes.join('; ')}.`;
  if (s.publishers_created.length)
    line += ` New publishers for the partner account: ${s.publishers_created.slice(0, 5).join(', ')}${s.publishers_created.length > 5 ? ', ...' : ''}.`;
  return line;
}
