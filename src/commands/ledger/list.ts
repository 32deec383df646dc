import type { Context } from '../../context.js';
import { emit } from '../../output/index.js';
import { subjectOf } from '../../ledger/read.js';
import type { VerbInput } from '../define.js';
import type { list } from './list.cmd.js';
import { filterOf, readLedger, recordOf, selectSent } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

export async function run({ opts }: VerbInput<typeof list>, ctx: Context): Promise<void> {
  const f = filterOf(opts, ctx);
  const { writes, parsed } = readLedger(ctx);
  if (parsed.broken)
    ctx.warn(`the ledger's chain breaks at line ${parsed.broken.line}: run \`bookdist ledger verify\`.`);
  // Writes a stopped job told ahead and never sent are shown only when asked for.
  const shown = selectSent(writes, f);
  const rows = shown.writes.map((w) => ({ ...recordOf(w), subject: subjectOf(w) }));
  await emit(ctx, rows, {
    columns: [
      { key: 'id', label: 'ID', id: true },
      { key: 'time', label: 'TIME', id: true, format: (v) => String(v).slice(0, 16).replace('T', ' ') },
      { key: 'profile', label: 'PROFILE', optional: true },
      { key: 'op', label: 'OP', id: true },
      {
        key: 'status',
        label: 'STATUS',
        id: true,
        format: (v, r) => (r.settled ? `${t(v)} (${t(r.settled)})` : t(v)),
      },
      { key: 'subject', label: 'SUBJECT', min: 16 },
    ],
    empty: 'No writes recorded' + (Object.values(f).some((v) => v !== undefined) ? ' match.' : ' yet.'),
  });
  if (shown.note) ctx.info(shown.note);
}
