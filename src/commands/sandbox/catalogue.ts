// `bookdist sandbox catalogue load FILE`: a partner's own titles (ONIX 3.0 or CSV) into the sandbox.
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError, errorCode, messageOf } from '../../errors.js';
import { emitMessage } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { catalogueLoad } from './index.js';
import { openStore } from './common.js';

interface Options {
  file: string;
  format?: 'onix' | 'csv';
  publisher?: string;
  strict: boolean;
  db?: string;
}

export function parse({ args, opts }: VerbInput<typeof catalogueLoad>): Options {
  const file = args.file;
  if (!file) throw usageError('Give the catalogue file: bookdist sandbox catalogue load FILE.');
  let format: Options['format'];
  if (opts.format !== undefined) {
    const f = opts.format.toLowerCase();
    if (f !== 'onix' && f !== 'csv') throw usageError(`--format must be onix or csv, not "${opts.format.slice(0, 40)}".`);
    format = f;
  }
  let publisher: string | undefined;
  if (opts.publisher !== undefined) {
    publisher = opts.publisher.trim();
    if (!publisher || publisher.length > 200) throw usageError('--publisher must name a publisher (1 to 200 characters).');
  }
  return { file, format, publisher, strict: opts.strict === true, db: opts.db };
}

/** At most this many refusals are listed on stderr (--json has them all). */
const LISTED = 20;

export async function run(o: Options, ctx: Context): Promise<number> {
  const { resolve } = await import('node:path');
  const { stat } = await import('node:fs/promises');
  const path = resolve(ctx.io.cwd, o.file);
  let size: number;
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw usageError(`${o.file}: is a directory, not a catalogue file.`);
    size = st.size;
  } catch (err) {
    if (err instanceof CliError) throw err;
    const code = errorCode(err);
    throw usageError(`${o.file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : messageOf(err)}.`);
  }
  const store = await openStore(ctx, o.db);
  const { loadCatalogueFile, CatalogueFileError, StrictRefusal } = await import('../../sandbox/catalogue/index.js');
  const { createProgress } = await import('../../bulk/progress.js');
  const progress = createProgress(ctx, { total: size, unit: 'bytes', label: 'loading' });
  let records = 0;
  let summary;
  try {
    summary = await loadCatalogueFile(store, path, {
      format: o.format,
      publisher: o.publisher,
      strict: o.strict,
      onBytes: (b) => progress.set(b),
      onRecord: (n) => (records = n),
    });
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
      throw new CliError(`${o.file}: ${err.message} Nothing was loaded${records ? ` (${records} records were read before it)` : ''}.`, ExitCode.USAGE);
    }
    throw err;
  }
  progress.stop();
  listRefusals(ctx, summary);
  await emitMessage(ctx, summary, summaryLine(o.file, summary));
  return summary.refused > 0 ? ExitCode.PARTIAL : ExitCode.OK;
}

function isJson(ctx: Context): boolean {
  return ctx.globals.json || ctx.globals.output === 'json' || ctx.globals.output === 'ndjson' || !!ctx.globals.query;
}

function listRefusals(ctx: Context, s: { refusals: Array<{ record: number; line?: number; reference?: string; reason: string }> }): void {
  const shown = s.refusals.slice(0, LISTED);
  for (const r of shown) {
    ctx.warn(`record ${r.record}${r.line !== undefined ? ` (line ${r.line})` : ''}${r.reference ? ` [${r.reference.slice(0, 60)}]` : ''}: ${r.reason}`);
  }
  if (s.refusals.length > shown.length) ctx.warn(`... and ${s.refusals.length - shown.length} more refused records (--json lists them all).`);
}

/** The one line a load ends with. */
export function summaryLine(
  file: string,
  s: { format: string; records: number; added: number; updated: number; withdrawn: number; refused: number; skipped: number; skipped_by_reason: Record<string, number>; not_represented: Record<string, number>; publishers_created: string[] },
): string {
  const n = (k: number) => k.toLocaleString('en-US');
  const parts = [`${n(s.added)} added`, `${n(s.updated)} updated`, `${n(s.withdrawn)} withdrawn`, `${n(s.refused)} refused`];
  const skipped = Object.entries(s.skipped_by_reason).map(([why, k]) => `${n(k)} ${why}`);
  parts.push(`${n(s.skipped)} skipped${skipped.length ? ` (${skipped.join(', ')})` : ''}`);
  let line = `${file} (${s.format === 'onix' ? 'ONIX' : 'CSV'}, ${n(s.records)} records): ${parts.join(', ')}.`;
  const notes = Object.entries(s.not_represented).map(([what, k]) => `${what}: ${n(k)}`);
  if (notes.length) line += ` Not represented in the sandbox: ${notes.join('; ')}.`;
  if (s.publishers_created.length) line += ` New publishers for the partner account: ${s.publishers_created.slice(0, 5).join(', ')}${s.publishers_created.length > 5 ? ', ...' : ''}.`;
  return line;
}
