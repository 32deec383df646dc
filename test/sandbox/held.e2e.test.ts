// The seed's held book ("The Glass Meridian") explains itself: `book get` says it is held and why
// in every format, and `book process --wait` says so while it waits and when it times out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookCard } from '../../src/commands/book/parts/view.js';
import { HELD_REASON } from '../../src/sandbox/views.js';
import { runCli } from '../helpers/cli.js';
import { WELL_KNOWN } from '../helpers/sandbox.js';

const HELD = WELL_KNOWN.queued.hash_id;
let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-held-'));
  env = { BOOKDIST_DATA_DIR: join(dir, 'data'), BOOKDIST_CONFIG_DIR: join(dir, 'config') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the held book', () => {
  it('book get says it is held and why: card, JSON, CSV, listings', async () => {
    const json = JSON.parse((await runCli(['book', 'get', HELD, '--json'], { env })).stdout);
    // The card a terminal shows, at 80 columns.
    const id = (x: string) => x;
    const card = bookCard(json.book, {
      color: false,
      width: 80,
      ascii: false,
      bold: id,
      dim: id,
      green: id,
      red: id,
      yellow: id,
      cyan: id,
    } as any);
    expect(card).toMatch(/Held\s+held by the sandbox seed; book process --force releases it\n/);
    expect(card).toMatch(/queued/);
    expect(json.book.status).toMatchObject({
      is_queued: true,
      is_processed: false,
      is_held: true,
      held_reason: HELD_REASON,
    });
    const csv = (
      await runCli(['book', 'get', HELD, '-o', 'csv', '--fields', 'status.is_held,status.held_reason'], { env })
    ).stdout;
    expect(csv).toBe(`status.is_held,status.held_reason\ntrue,${HELD_REASON}\n`);
    const other = JSON.parse((await runCli(['book', 'get', WELL_KNOWN.readme.hash_id, '--json'], { env })).stdout);
    expect(other.book.status).toMatchObject({ is_held: false, held_reason: null });
    const list = await runCli(
      ['book', 'search', '--title', 'Glass Meridian', '-o', 'tsv', '--fields', 'title,status.is_held'],
      { env },
    );
    expect(list.stdout).toContain('The Glass Meridian\ttrue');
  });

  it('--wait says it is held as soon as it sees it, and names it when the wait times out', async () => {
    const r = await runCli(['book', 'process', HELD, '--wait', '--interval', '1s', '--timeout', '3s'], {
      env,
      timeoutMs: 60_000,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`${HELD}  held: ${HELD_REASON}; --wait keeps waiting for it until --timeout`);
    expect(r.stderr).toMatch(new RegExp(`${HELD}  held  still queued after \\S+: `));
    expect(r.stderr).toContain(`s: ${HELD_REASON}`);
    // A retry would wait again in vain: the summary counts it held, and the way out is said.
    expect(r.stderr).toMatch(/book process: 1 book: 1 held in /);
    expect(r.stderr).toContain(`bookdist book process --wait --force --yes ${HELD}`);
    expect(r.stderr).not.toMatch(/To retry what failed/);
    // Released with force, it is processed like any other.
    const forced = await runCli(['book', 'process', HELD, '--force', '--yes', '--wait', '--interval', '1s'], {
      env,
      timeoutMs: 60_000,
    });
    expect(forced.code).toBe(0);
    const after = JSON.parse((await runCli(['book', 'get', HELD, '--json'], { env })).stdout);
    expect(after.book.status).toMatchObject({ is_processed: true, is_queued: false, is_held: false });
  });
});
