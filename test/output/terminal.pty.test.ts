// One line on the terminal for each thing (issue 29): bin/bookdist under a real pseudo-terminal of
// 80x24 (util-linux `script`), against a real sandbox. The progress line is cleared before a result
// is written to the same terminal; `book process --wait` shows each book's result once; codes and
// `describe` are tables that fit; `-o ndjson` of `book process --wait` writes each book as it ends.
import { spawn } from 'node:child_process';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 300 });
}, 60_000);
afterAll(async () => {
  await sb?.close();
});

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const env = () =>
  ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    TERM: 'xterm',
    LANG: 'C.UTF-8',
    ...sb.env,
    NO_COLOR: '1',
  }) as NodeJS.ProcessEnv;

/** What a terminal of 80x24 got (raw, CRLF made LF) and shows (each line as last redrawn). */
function onPty(args: string[]): Promise<{ code: number | null; raw: string; screen: string }> {
  const cmd = `stty cols 80 rows 24; ${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const raw = out.replace(/\r\n/g, '\n');
      // eslint-disable-next-line no-control-regex
      const screen = raw
        .split('\n')
        .map((l) =>
          l
            .split('\r')
            .pop()!
            .replace(/\x1b\[[0-9;]*[mK]/g, ''),
        )
        .join('\n');
      resolve({ code, raw, screen });
    });
  });
}

/** The progress line (`… 2/5 codes  40/s  ETA 1s`) is never followed on its line by other text. */
function expectBarAlone(raw: string, unit: string) {
  // Each piece between carriage returns and line feeds is what one draw left on the line.
  // eslint-disable-next-line no-control-regex
  const pieces = raw.split(/[\r\n]/).map((p) => p.replace(/\x1b\[[0-9;]*[mK]/g, ''));
  const bars = pieces.filter((p) => new RegExp(`\\d+(/[\\d,]+)? ${unit} `).test(p) && /\/s/.test(p));
  expect(bars.length, 'the progress line was drawn').toBeGreaterThan(0);
  for (const p of bars) expect(p, 'text written after the progress line on the same line').toMatch(/(ETA \S+|\d\/s)$/);
}

const fits = (screen: string) => {
  for (const l of screen.split('\n'))
    expect(stringWidth(l), `wider than 80: ${JSON.stringify(l)}`).toBeLessThanOrEqual(80);
};

describe('at 80x24', () => {
  it('codes generate: the progress line is cleared before the codes, which are a table (code, limit, expiry, batch)', async () => {
    const r = await onPty([
      'codes',
      'generate',
      '--hash-id',
      WELL_KNOWN.readme.hash_id,
      '--org',
      'acme',
      '--count',
      '5',
      '--limit-days',
      '30',
      '--expires',
      '2030-01-01',
    ]);
    expect(r.code, r.screen).toBe(0);
    expectBarAlone(r.raw, 'codes');
    fits(r.screen);
    const lines = r.screen.split('\n');
    const head = lines.findIndex((l) => /^CODE {2,}LIMIT {2,}EXPIRES {2,}BATCH$/.test(l));
    expect(head, r.screen).toBeGreaterThanOrEqual(0);
    const rows = lines.slice(head + 1, head + 6);
    for (const l of rows) expect(l).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4} {2}30 days {2}2030-01-01\S* {2}1$/);
    // One line per code, not a card of four lines each.
    expect(r.screen.match(/[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}/g)).toHaveLength(5);
  });

  it("book process --wait: each book's result once, as a line, after a cleared progress line; the total shown", async () => {
    const books = [WELL_KNOWN.unprocessed.hash_id, WELL_KNOWN.readme.hash_id, WELL_KNOWN.queued.hash_id];
    const r = await onPty(['book', 'process', ...books, '--wait', '--interval', '100ms', '--timeout', '3s']);
    expect(r.code, r.screen).toBe(6);
    expectBarAlone(r.raw, 'books');
    expect(r.raw).toMatch(/ 0\/3 books /);
    fits(r.screen);
    const results = r.screen.split('\n').filter((l) => /^[✓✗] [0-9a-f]{40} /.test(l));
    expect(results, r.screen).toHaveLength(3);
    expect(results.find((l) => l.includes(books[0]))).toMatch(/^✓ \S+ processed \d{4}-\d\d-\d\d/);
    expect(results.find((l) => l.includes(books[1]))).toMatch(/^✓ \S+ already processed$/);
    expect(results.find((l) => l.includes(books[2]))).toMatch(/^✗ \S+ held — still queued after/);
    // No table of the same results, no state lines repeating them.
    expect(r.screen).not.toMatch(/HASH ID/);
    for (const b of books.slice(0, 2)) expect(r.screen.split(b).length - 1, `${b} shown more than once`).toBe(1);
    expect(r.screen).toMatch(/book process: 3 books: 1 processed, 1 already processed, 1 held\sin\s/);
  }, 60_000);

  it('describe: a table with one row per endpoint', async () => {
    const r = await onPty(['describe']);
    expect(r.code, r.screen).toBe(0);
    fits(r.screen);
    const lines = r.screen.split('\n').filter((l) => l.trim() && !/TEST MODE/.test(l));
    expect(lines[0]).toMatch(/^NAME {2,}PATH {2,}SCOPE$/);
    const json = JSON.parse(
      await new Promise<string>((res) => {
        const c = spawn(process.execPath, [BIN, 'describe', '--json'], { env: env() });
        let o = '';
        c.stdout.setEncoding('utf8').on('data', (d) => (o += d));
        c.on('close', () => res(o));
      }),
    );
    expect(lines.slice(1)).toHaveLength(json.endpoints.length);
    expect(lines).toContainEqual(
      expect.stringMatching(/^user\.purchase +\/v1\/user\/\{username\}\/purchase\/\{purchase_id\}\/ +users$/),
    );
  });
});

describe('-o ndjson of a streaming command', () => {
  it('book process --wait -o ndjson writes each book as it ends, while the command still runs', async () => {
    // The held book keeps the job waiting; the processed one ends at once.
    const child = spawn(
      process.execPath,
      [
        BIN,
        'book',
        'process',
        WELL_KNOWN.readme.hash_id,
        WELL_KNOWN.queued.hash_id,
        '--wait',
        '--interval',
        '100ms',
        '--timeout',
        '20s',
        '-o',
        'ndjson',
      ],
      { env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<void>((res) => child.on('close', () => res()));
    let out = '';
    const first = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.on('close', () => reject(new Error(`exited before writing a line: ${out}`)));
    });
    expect(child.exitCode, 'the line came while the job still waited').toBeNull();
    expect(JSON.parse(first)).toMatchObject({ hash_id: WELL_KNOWN.readme.hash_id, state: 'already_processed' });
    child.kill('SIGTERM');
    await exited;
  }, 60_000);
});
