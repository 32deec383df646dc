// `book process`'s stdout (process.ts): results as lines on a terminal, one object per book with
// -o ndjson, else the rows in input order once the job ends.
import type { Context } from '../../../context.js';
import { escapeControls, wrapToWidth } from '../../../output/text.js';
import { createRowWriter, outputFormat, style } from '../../../output/index.js';
import { bad, LABEL, resultLines, STATES, type Options, type Row } from './process-job.js';

/** The outcome and what the service said, without saying it twice (`processed 2026-…`, not `processed — processed 2026-…`). */
function outcome(r: Row): string {
  const label = LABEL[r.state];
  const m = escapeControls(r.message ?? '').replace(/\.$/, '');
  const low = m.toLowerCase();
  if (!m || low === label || low === `book ${label}`) return label;
  if (low.startsWith(`${label} `)) return label + m.slice(label.length);
  return `${label} — ${m}`;
}

/**
 * Stdout. On a terminal one line per book as it ends (`✓ <hash>  processed — …`), the only place
 * its result shows; -o ndjson one object per book as it ends; otherwise the rows in input order once
 * the job ends, under --json one object `{summary, books}`. Books still waited for when the job was
 * interrupted show their queue state.
 */
export function stdoutOf(
  ctx: Context,
  o: Options,
  order: Map<string, number>,
  queued: Map<string, Row>,
  total: () => number,
) {
  const rows = new Map<string, Row>();
  const lines = resultLines(ctx);
  const stream = outputFormat(ctx) === 'ndjson' && !ctx.globals.query;
  const shown = (r: Row) => (o.wait ? r : { hash_id: r.hash_id, state: r.state, message: r.message });
  const streamed = stream
    ? createRowWriter(ctx, { columns: [{ key: 'hash_id' }, { key: 'state' }, { key: 'message' }] })
    : undefined;
  const line = (r: Row) => {
    const s = style(ctx);
    const mark = bad(r.state) ? s.red(s.ascii ? 'x' : '✗') : s.green(s.ascii ? '+' : '✓');
    const text = `${mark} ${r.hash_id} ${outcome(r)}`;
    // Within the terminal: the message wraps at a word under the hash id, never past the edge.
    ctx.io.stdout.write(wrapToWidth(text, s.width - 2, s.width).join('\n  ') + '\n');
  };
  return {
    write(r: Row) {
      rows.set(r.hash_id, r);
      if (lines) line(r);
      else streamed?.write(shown(r));
    },
    async end() {
      const waiting = [...queued].filter(([h]) => !rows.has(h)).map(([, r]) => r);
      if (lines) return waiting.forEach(line);
      if (streamed) {
        for (const r of waiting) streamed.write(shown(r));
        return streamed.end();
      }
      for (const r of waiting) rows.set(r.hash_id, r);
      const list = [...rows.values()].sort((a, b) => (order.get(a.hash_id) ?? 0) - (order.get(b.hash_id) ?? 0));
      // One count per outcome: they add up to the total.
      const summary: Record<string, number> = { total: total() };
      for (const st of STATES) summary[st] = list.filter((r) => r.state === st).length;
      summary.not_started = total() - list.length;
      // --json: {summary, books: [...]}; --fields: the rows.
      const w = createRowWriter(ctx, {
        columns: [{ key: 'hash_id' }, { key: 'state' }, { key: 'message' }],
        envelope: { summary },
        rowsKey: 'books',
      });
      for (const r of list) w.write(shown(r));
      await w.end();
    },
  };
}
