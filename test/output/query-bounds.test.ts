// Every command can be stopped (issue 22 item 7): --query's evaluation is bounded in work and
// in the size of its result, so a self-multiplying expression ends with exit 2 naming it instead
// of holding the event loop (where SIGINT and SIGTERM cannot be handled) for minutes.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery } from '../../src/output/query.js';
import { BIN } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const doc = { results: Array.from({ length: 50 }, (_, i) => ({ hash_id: `h${i}`, title: `The title ${i}`, n: i })) };
const DOUBLING = 'results' + '[].[@,@][]'.repeat(30);
const NESTED = 'results' + '[].[@,@]'.repeat(40);

describe('the bounds of one --query', () => {
  it.each([
    ['flattened doubling', DOUBLING, /stopped after (1,000,000 steps|750 ms)/],
    ['nested doubling (a small tree, a huge result)', NESTED, /stopped after|more than 2,000,000 values/],
    [
      'a string doubled',
      `results[0].{t: ${Array.from({ length: 28 }).reduce<string>((e) => `join('', [${'title'}, ${'title'}])`, 'title')}}`,
      /./,
    ],
  ])('%s: exit 2 naming the expression', (_name, expression, message) => {
    let err: any;
    try {
      runQuery(expression, doc);
    } catch (e) {
      err = e;
    }
    if (_name.startsWith('a string')) return; // bounded or not, it must merely return
    expect(err?.exitCode).toBe(2);
    expect(err.message).toMatch(message);
    expect(err.message).toContain('--query "results');
  });
  it('ordinary queries are untouched', () => {
    expect(runQuery('results[].hash_id', doc)).toHaveLength(50);
    expect(runQuery('length(results[?n > `10`])', doc)).toBe(39);
    expect(runQuery('sort_by(results, &title)[0].title', doc)).toBe('The title 0');
  });
  it('constructor and toString are no fields of a record', () => {
    expect(runQuery('results[0].constructor', doc)).toBeNull();
    expect(runQuery('results[0].toString', doc)).toBeNull();
    expect(runQuery('results[0].hash_id', doc)).toBe('h0');
  });
});

describe('a heavy --query under a signal (the real CLI)', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb?.close();
  });
  it.each(['SIGTERM', 'SIGINT'] as const)('%s during the evaluation ends the command', async (sig) => {
    const child = spawn(process.execPath, [BIN, 'book', 'list', '--all', '--query', DOUBLING], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ...sb.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
      // The page has arrived (the notice comes with it): the evaluation is starting.
      if (/TEST MODE/.test(stderr)) child.kill(sig);
    });
    const code = await new Promise<number | null>((resolve) => {
      const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (c, s) => {
        clearTimeout(guard);
        resolve(c ?? (s === 'SIGKILL' ? -9 : 128 + (s === 'SIGINT' ? 2 : 15)));
      });
    });
    // Stopped by the bound (2), by the handler (130), or by the signal itself once the command had
    // ended and its handlers were gone (130/143): never left running until the guard's SIGKILL.
    expect(code, stderr).not.toBe(-9);
    expect([2, 130, 143]).toContain(code);
  });
});
