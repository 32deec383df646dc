// Tables for people (issue 9, item 3), checked under a real pseudo-terminal (util-linux `script`)
// at 80, 120 and 200 columns: identifiers are never cut, only free text shrinks, lines fit the
// terminal, and every table has the one style (no borders, UPPERCASE headers).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { startTestSandbox, SEED_BOOKS, SEED_IMPORTS, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;

/** Run bookdist on a pty of `cols` columns; what the terminal showed, without colour or CR. */
function onPty(cols: number, args: string[]): Promise<{ code: number | null; screen: string }> {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = `stty cols ${cols} rows 60; ${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, TERM: 'xterm', LANG: 'C.UTF-8', ...sb.env, NO_COLOR: undefined } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('error', reject);
    // eslint-disable-next-line no-control-regex
    child.on('close', (code) => resolve({ code, screen: out.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '').replace(/\r/g, '') }));
  });
}

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

const partnerBooks = SEED_BOOKS.filter((b) => ['Harbor Lane Press', 'Northwind Academic'].includes(b.publisher));

describe.each([80, 120, 200])('at %i columns on a terminal', (cols) => {
  it('book list: hash ids and ISBNs whole, lines fit, one style', async () => {
    const r = await onPty(cols, ['book', 'list']);
    expect(r.code).toBe(0);
    const lines = r.screen.split('\n').filter((l) => l.trim() && !/TEST MODE|of \d+ books/.test(l));
    expect(lines[0]).toMatch(cols >= 120 ? /^HASH ID {2,}TITLE {2,}AUTHOR {2,}ISBN-13/ : /^HASH ID {2,}TITLE {2,}AUTHOR$/);
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(cols);
    expect(r.screen).not.toMatch(/[│┌└─]/);
    for (const b of partnerBooks.slice(0, 5)) {
      expect(r.screen).toContain(b.hash_id);
      if (cols >= 120) expect(r.screen).toContain(b.isbn13);
    }
    if (cols >= 200) expect(r.screen).toContain(WELL_KNOWN.readme.title);
    else expect(r.screen).toContain('…');
  });
  it('import search: ISBN-13s and book ids whole', async () => {
    const r = await onPty(cols, ['import', 'search', '--title', 'a']);
    expect(r.code).toBe(0);
    const lines = r.screen.split('\n').filter((l) => l.trim() && !/TEST MODE|imported titles/.test(l));
    expect(lines[0]).toMatch(/^TITLE {2,}AUTHOR/);
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(cols);
    const shown = SEED_IMPORTS.filter((t) => r.screen.includes(t.isbn13));
    expect(shown.length).toBeGreaterThan(0);
  });
});
