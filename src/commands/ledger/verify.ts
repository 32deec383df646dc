import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { emit } from '../../output/index.js';
import { kv } from '../render.js';
import { readLedger } from './parts/common.js';

export async function run(_: unknown, ctx: Context): Promise<number> {
  const { store, parsed } = readLedger(ctx);
  const b = parsed.broken;
  const result = {
    file: store.path,
    rows: parsed.rows.length,
    whole: !b,
    broken_line: b?.line ?? null,
    broken_row: b?.n ?? null,
    why: b?.why ?? null,
    torn_tail: parsed.torn,
  };
  await emit(ctx, result, {
    card: (_r, s) =>
      kv(s, [
        ['Ledger', store.path],
        ['Rows', parsed.rows.length],
        ['Chain', b ? s.red(`broken at row ${b.n ?? '?'} (line ${b.line}): ${b.why}`) : s.green('whole')],
        [
          'Note',
          parsed.torn
            ? 'the last line is incomplete (a write interrupted by a crash); the next write drops it'
            : undefined,
        ],
      ]),
  });
  return b ? ExitCode.ERROR : ExitCode.OK;
}
