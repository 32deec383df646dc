import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { emitMessage } from '../../output/index.js';
import { parseLedger } from '../../ledger/read.js';
import { confirm } from '../confirm.js';
import type { VerbInput } from '../define.js';
import type { prune } from './prune.cmd.js';
import { parseWhen, storeOf } from './parts/common.js';

export function parse({ opts }: VerbInput<typeof prune>, ctx: Context): { before: Date } {
  return { before: parseWhen(opts.before, '--before', ctx.clock.now()) };
}

export async function run(o: { before: Date }, ctx: Context): Promise<void> {
  if (ctx.globals.dryRun) throw usageError('ledger prune changes only a local file: --dry-run does not apply.');
  const store = storeOf(ctx);
  await confirm(ctx, `Remove the writes recorded before ${o.before.toISOString()} from the ledger ${store.path}?`);
  let removed = 0;
  const cut = o.before.getTime();
  const done = store.rewrite((lines) => {
    const { rows, broken } = parseLedger(lines.join('\n') + (lines.length ? '\n' : ''));
    if (broken)
      throw usageError(
        `The ledger's chain is broken at line ${broken.line} (\`bookdist ledger verify\`): not pruning a ledger that does not verify.`,
      );
    const dropped = new Set<number>();
    for (const r of rows) {
      const of = typeof r.of === 'number' ? r.of : undefined;
      if ((r.kind === 'intent' || r.kind === 'prune') && Date.parse(r.t) < cut) dropped.add(r.n);
      else if (of !== undefined && dropped.has(of)) dropped.add(r.n);
    }
    removed = [...dropped].length;
    if (!removed) return undefined;
    const kept = rows.filter((r) => !dropped.has(r.n));
    const lastDropped = Math.max(...dropped);
    const note = {
      n: Math.min(lastDropped, (kept[0]?.n ?? Infinity) - 1),
      prev: '',
      t: ctx.clock.now().toISOString(),
      kind: 'prune',
      before: o.before.toISOString(),
      removed,
    };
    return [note, ...kept];
  });
  await emitMessage(
    ctx,
    { removed, before: o.before.toISOString(), kept: done ? done.after - 1 : undefined },
    removed
      ? `Removed ${removed} row(s) recorded before ${o.before.toISOString()}.`
      : 'Nothing recorded before that time.',
  );
}
