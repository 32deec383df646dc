import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { emit } from '../../output/index.js';
import { positiveInt } from '../../validate/index.js';
import { kv } from '../render.js';
import type { VerbInput } from '../define.js';
import type { show } from './show.cmd.js';
import { readLedger, recordOf } from './parts/common.js';

export function parse({ args }: VerbInput<typeof show>): { id: number } {
  return { id: positiveInt(args.ledger_id, '<ledger_id>') };
}

const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : v);

export async function run(o: { id: number }, ctx: Context): Promise<void> {
  const { writes } = readLedger(ctx);
  const w = writes.find((x) => x.id === o.id);
  if (!w)
    throw new CliError(
      `No write with id ${o.id} in the ledger; \`bookdist ledger list\` shows the ids.`,
      ExitCode.NOT_FOUND,
    );
  await emit(ctx, recordOf(w), {
    card: (_r, s) =>
      kv(s, [
        ['Write', w.id],
        ['Time', w.t],
        ['Operation', w.op],
        ['Request', w.request],
        ['Profile', `${w.profile} (${w.host})`],
        ['Job', w.job],
        ...Object.entries(w.ids).map(([k, v]): [string, unknown] => [k, list(v)]),
        ['Idempotency-Key', w.idempotency_key],
        ['Status', w.status],
        [
          'Recorded outcome',
          w.recorded +
            (w.http !== undefined ? ` (HTTP ${w.http})` : '') +
            (w.finished ? ` at ${w.finished}` : ' (no outcome row: the process ended first)'),
        ],
        ['Reason', w.reason],
        ...Object.entries(w.returned ?? {}).map(([k, v]): [string, unknown] => [`returned ${k}`, list(v)]),
        [
          'Settled',
          w.settled ? `${w.settled} at ${w.settled_at}${w.settled_how ? `: ${w.settled_how}` : ''}` : undefined,
        ],
      ]),
  });
}
