// `ledger export`: the writes of a period (org, label...) as CSV or JSON, to stdout or a new file.
import { closeSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { CliError, errorCode, ExitCode } from '../../errors.js';
import { createNewSync } from '../../util/fs-safe.js';
import type { VerbInput } from '../define.js';
import type { exportCmd } from './export.cmd.js';
import { filterOf, readLedger, recordOf, selectSent } from './parts/common.js';
import { cellText } from '../../output/format.js';

const COLUMNS = [
  'id',
  'time',
  'profile',
  'host',
  'op',
  'status',
  'recorded',
  'settled',
  'http',
  'job',
  'username',
  'email',
  'hash_id',
  'order_number',
  'order_id',
  'items',
  'org',
  'label',
  'count',
  'digital_pricing',
  'price',
  'idempotency_key',
  'returned_order_id',
  'returned_purchase_ids',
  'returned_username',
  'returned_codes',
  'returned_codes_sha256',
  'reason',
] as const;

function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  const s = Array.isArray(v) ? v.join(' ') : cellText(v);
  // A cell that a spreadsheet would run as a formula is quoted with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export async function run({ opts }: VerbInput<typeof exportCmd>, ctx: Context): Promise<void> {
  const f = filterOf(opts, ctx);
  const { writes } = readLedger(ctx);
  // An export is what was done: writes a stopped job told ahead and never sent are left out
  // (and counted on stderr) unless --status unsent asks for them.
  const chosen = selectSent(writes, f);
  const records = chosen.writes.map(recordOf);
  let text: string;
  if (opts.format === 'json') text = JSON.stringify(records, null, 2) + '\n';
  else {
    const lines = [COLUMNS.join(',')];
    for (const r of records) {
      const ret = (r.returned ?? {}) as Record<string, unknown>;
      const flat: Record<string, unknown> = {
        ...r,
        returned_order_id: ret.order_id,
        returned_purchase_ids: ret.purchase_ids,
        returned_username: ret.username,
        returned_codes: ret.codes,
        returned_codes_sha256: ret.codes_sha256,
      };
      lines.push(COLUMNS.map((c) => csvCell(flat[c])).join(','));
    }
    text = lines.join('\n') + '\n';
  }
  if (!opts.out) {
    ctx.io.stdout.write(text);
    if (chosen.note) ctx.info(chosen.note);
    return;
  }
  const path = resolve(ctx.io.cwd, opts.out);
  let fd: number;
  try {
    fd = createNewSync(path);
  } catch (e) {
    const c = errorCode(e);
    throw new CliError(
      `--out ${opts.out}: ${c === 'EEXIST' ? 'it exists already (choose a new file name)' : `cannot create it (${c})`}.`,
      ExitCode.USAGE,
    );
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  ctx.info(`${records.length} write(s) → ${opts.out}`);
  if (chosen.note) ctx.info(chosen.note);
}
