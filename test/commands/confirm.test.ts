// The confirmation of destructive commands on a terminal: `order refund` asks (inquirer) and only
// sends on "yes". Runs main() in-process with scripted terminal streams against a real sandbox.
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IO } from '../../src/context.js';
import { main } from '../../src/main.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, uniqueEmail, type Cli } from './_support.js';

let sb: TestSandbox;
let cli: Cli;

beforeAll(async () => {
  sb = await startTestSandbox();
  cli = cliFor(sb);
});
afterAll(async () => {
  await sb?.close();
});

/** Run main() on a fake terminal, typing `answer` when the question shows. */
async function onTerminal(argv: string[], answer: string): Promise<{ code: number; shown: string; out: string }> {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let shown = '';
  let answered = false;
  const stderr = Object.assign(
    new Writable({
      write(chunk, _e, cb) {
        shown += chunk.toString();
        if (!answered && /\(y\/N\)/.test(shown)) {
          answered = true;
          setTimeout(() => stdin.write(answer), 5);
        }
        cb();
      },
    }),
    {
      isTTY: true,
      columns: 120,
      end() {
        return this;
      },
    },
  );
  let out = '';
  const stdout = Object.assign(new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }), {
    isTTY: true,
    columns: 120,
  });
  const io: IO = { stdin, stdout, stderr, env: { ...sb.env, NO_COLOR: '1' }, cwd: process.cwd() };
  const code = await main(argv, { io, signals: false });
  return { code, shown, out };
}

describe('order refund on a terminal', () => {
  let user: string;
  let orderId: number;

  beforeAll(async () => {
    user = json(await cli(['user', 'create', '--email', uniqueEmail('confirm'), '--json'])).username;
    const r = await cli([
      'order',
      'create',
      '--username',
      user,
      '--pricing-id',
      String(WELL_KNOWN.readme.pricing[0].id),
      '--order-type',
      'TestPlan',
      '--org',
      'harborlane',
      '--billing-name',
      'C T',
      '--billing-postal-code',
      '1',
      '--billing-country',
      'US',
      '--json',
    ]);
    orderId = json(r).order.id;
  });

  const refunded = async () => json(await cli(['user', 'orders', user, '--json'])).results[0].items[0].is_refunded;

  it('asks, and "no" cancels with exit 1 and sends nothing', async () => {
    const r = await onTerminal(['order', 'refund', '--order-id', String(orderId)], 'n\r');
    expect(r.shown).toContain(`Refund order ${orderId}? This cannot be undone.`);
    expect(r.code).toBe(1);
    expect(r.shown).toContain('Cancelled; nothing was sent.');
    expect(await refunded()).toBe(false);
  });

  it('"yes" refunds', async () => {
    const r = await onTerminal(['order', 'refund', '--order-id', String(orderId)], 'y\r');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/refunded/);
    expect(await refunded()).toBe(true);
  });
});

describe('sandbox reset on a terminal', () => {
  it('"no" is an answer, not a failure: exit 0, the database unchanged, and no talk of sending', async () => {
    const { mkdtempSync, rmSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-reset-no-'));
    try {
      const db = join(dir, 'sandbox.db');
      expect((await cli(['sandbox', 'reset', '--db', db, '--yes'])).code).toBe(0);
      const before = statSync(db).mtimeMs;
      const r = await onTerminal(['sandbox', 'reset', '--db', db], 'n\r');
      expect(r.shown).toContain(`Delete everything in the sandbox database ${db}`);
      expect(r.code).toBe(0);
      expect(r.shown).toContain(`Not reset: ${db} is unchanged.`);
      expect(r.shown).not.toContain('nothing was sent');
      expect(statSync(db).mtimeMs).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
