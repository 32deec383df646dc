// Bad values fail early with exit 2 (issue 22 item 5): durations beyond their documented maximum,
// and an error quotes at most about 200 characters of a value.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDuration, MAX_TIMER_MS } from '../../src/util/duration.js';
import { quoteValue } from '../../src/util/quote.js';
import { run, stubEnv } from '../helpers/run.js';

describe('durations', () => {
  it.each([
    [['status', '--timeout', '25d'], '--timeout "25d": at most 24h.'],
    [['status', '--timeout', '0'], '--timeout "0": at least 1ms.'],
    [['status', '--timeout', 'soon'], '--timeout "soon": give a duration like 30s or 2m.'],
    [['sandbox', 'clock', 'advance', '99999999999999d'], '<duration> "99999999999999d": at most 36500d.'],
    [
      ['book', 'process', 'cee313141a0ce9a22774b32f87855d677d864cfb', '--wait', '--interval', '2h'],
      '--interval "2h": at most 1h.',
    ],
    [['sandbox', 'serve', '--latency', '1h'], '--latency "1h": at most 10m.'],
    [['sandbox', 'serve', '--process-delay', '30d'], '--process-delay "30d": at most 24h.'],
  ])('%j exits 2 before anything is sent', async (args, message) => {
    const r = await run(args, { env: stubEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`bookdist: ${message}`);
    expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
  });
  it('every maximum is within what a timer can hold', () => {
    expect(checkDuration('--x', '24h', { maxMs: 86_400_000, max: '24h' })).toEqual({ ms: 86_400_000 });
    expect(86_400_000).toBeLessThan(MAX_TIMER_MS);
  });
});

describe('values quoted in errors', () => {
  it('at most about 200 characters, with the length said', () => {
    const long = 'x'.repeat(100_000);
    const q = quoteValue(long);
    expect(q.length).toBeLessThan(260);
    expect(q).toContain('(100000 characters)');
    expect(quoteValue('short')).toBe('"short"');
  });
  it('a 100 KB --timeout is not echoed in full', async () => {
    const r = await run(['status', '--timeout', 'y'.repeat(100_000)], { env: stubEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThan(600);
  });
  it('a 100 KB --fields path is not echoed in full', async () => {
    const r = await run(['profile', 'list', '--fields', 'z'.repeat(100_000)], { env: stubEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThan(2000);
  });
});

describe("names of JavaScript's object machinery are ordinary names", () => {
  it.each(['constructor', 'toString', 'prototype', 'valueOf', 'hasOwnProperty'])(
    'profile %s: add, use, show, remove',
    async (name) => {
      const dir = mkdtempSync(join(tmpdir(), 'bookdist-values-'));
      try {
        const env = { BOOKDIST_CONFIG_DIR: join(dir, 'cfg'), BOOKDIST_DATA_DIR: join(dir, 'data') };
        const add = await run(
          ['profile', 'add', '--name', name, '--base-url', 'https://x.example.com', '--token-stdin', '--no-verify'],
          { env, input: 'tok' },
        );
        expect(add.code, add.stderr).toBe(0);
        expect((await run(['profile', 'use', name], { env })).code).toBe(0);
        const show = await run(['profile', 'show', '--json'], { env });
        expect(JSON.parse(show.stdout).profile.value).toBe(name);
        const other = name === 'constructor' ? 'toString' : 'constructor';
        const missing = await run(['profile', 'use', other], { env });
        expect(missing.code).not.toBe(0);
        expect((await run(['profile', 'remove', name, '--yes'], { env })).code).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
  it('--fields constructor is no such field, with the fields listed', async () => {
    const r = await run(['profile', 'list', '--fields', 'constructor', '-o', 'csv'], { env: stubEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--fields constructor: no such field/);
    expect(r.stdout).not.toMatch(/function|native code/);
  });
});

describe('error messages', () => {
  it('an unknown 100 KB option is not echoed in full (text and JSON)', async () => {
    const flag = '--' + 'x'.repeat(100_000);
    const r = await run(['status', flag], { env: stubEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr.length).toBeLessThan(600);
    expect(r.stderr).toMatch(/\(1000\d\d characters\)/);
    const j = await run(['status', flag, '--json'], { env: stubEnv() });
    expect(JSON.parse(j.stderr).error.message.length).toBeLessThan(600);
  });
  it('control characters in a quoted value are escaped', async () => {
    const r = await run(['book', 'get', '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e'], { env: stubEnv() });
    expect(r.code).toBe(2);
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(r.stderr).toContain('\\x1b]0;pwned\\x07');
  });
});
