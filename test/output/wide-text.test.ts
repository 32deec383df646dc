// Tables and cards with text that is not ASCII, in-process (issue 32): the unit project's own check
// of what tables.pty.test.ts sees on a real terminal. A sandbox in this process holds books whose
// titles are CJK (two columns a character), emoji (sequences joined into one picture), combining
// marks (no column of their own) and C0/C1 controls; the commands run on a terminal of a given
// width. Display widths are measured with string-width, the library the tree itself uses: every
// line fits the terminal, each column starts at the same display column in every row, and no
// control character from the data reaches the terminal.
import { dirname, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/run.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const WORLD = [
  { isbn: '9780000000019', title: '吾輩は猫である 夏目漱石の名作長編小説 完全版', author: '夏目漱石', sku: 'W-JA' },
  { isbn: '9780000000033', title: 'Emoji 📚🐈‍⬛ Stories 👩🏽‍💻 for Everyone', author: 'Zoë Ångström', sku: 'W-EM' },
  {
    isbn: '9780000000040',
    title: 'Cafe\u0301 Cre\u0300me Bru\u0302le\u0301e in Ku\u0308ln, a Cookbook',
    author: 'Ame\u0301lie',
    sku: 'W-CM',
  },
  {
    isbn: '9780000000057',
    title: 'Evil \u001b[2J\u009b31m C1 \u0085next \u202eevil',
    author: 'Ctrl\u0007Bell',
    sku: 'W-CC',
  },
];
const hashes = new Map<string, string>();
let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  let csv = 'isbn13,title,author,publisher,language,pages,publish_date,description,sku,price,currency\n';
  for (const b of WORLD)
    csv +=
      [
        b.isbn,
        q(b.title),
        q(b.author),
        'World Press',
        'en',
        120,
        '2020-01-01',
        q(`About ${b.title}`),
        b.sku,
        '9.99',
        'USD',
      ].join(',') + '\n';
  const file = join(dirname(sb.dbPath), 'world.csv');
  writeFileSync(file, csv);
  const load = await run(['sandbox', 'catalogue', 'load', file, '--db', sb.dbPath, '--json'], { env: sb.env });
  expect(load.code, load.stderr).toBe(0);
  const list = await run(['book', 'list', '--all', '--fields', 'hash_id,identifiers.isbn13', '-o', 'tsv'], {
    env: sb.env,
  });
  for (const line of list.stdout.split('\n').slice(1)) {
    const [hash, isbn] = line.split('\t');
    if (WORLD.some((b) => b.isbn === isbn)) hashes.set(isbn, hash);
  }
  expect(hashes.size).toBe(WORLD.length);
});
afterAll(async () => {
  await sb?.close();
});

/** The command on a UTF-8 terminal of `cols` columns, without colour: its stdout lines. */
async function onTerminal(cols: number, args: string[]): Promise<string[]> {
  const r = await run(args, {
    env: { ...sb.env, LANG: 'C.UTF-8', TERM: 'xterm', NO_COLOR: '1' },
    tty: { columns: cols },
  });
  expect(r.code, r.stderr).toBe(0);
  // eslint-disable-next-line no-control-regex
  const control = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.exec(r.stdout);
  expect(
    control && JSON.stringify(r.stdout.slice(Math.max(0, control.index - 20), control.index + 20)),
    'a control character reached the terminal',
  ).toBeNull();
  const lines = r.stdout.replace(/\n+$/, '').split('\n');
  for (const l of lines) expect(stringWidth(l), `wider than ${cols}: ${JSON.stringify(l)}`).toBeLessThanOrEqual(cols);
  return lines;
}

/** The display column at which `part` starts in `line`. */
const columnOf = (line: string, part: string) => {
  const at = line.indexOf(part);
  expect(at, `${JSON.stringify(part)} in ${JSON.stringify(line)}`).toBeGreaterThanOrEqual(0);
  return stringWidth(line.slice(0, at));
};

describe('a table of wide, joined, combining and control text (book list, 80 columns)', () => {
  it('each column starts at the same display column in every row; titles cut to their width, controls escaped', async () => {
    const lines = await onTerminal(80, ['book', 'list', '--all', '--fields', 'hash_id,title,author']);
    const head = lines.find((l) => l.startsWith('HASH ID'))!;
    const titleAt = columnOf(head, 'TITLE');
    const authorAt = columnOf(head, 'AUTHOR');
    const rows = WORLD.map((b) => lines.find((l) => l.startsWith(hashes.get(b.isbn)!))!);
    for (const [i, row] of rows.entries()) {
      expect(row, WORLD[i].sku).toBeDefined();
      const author = WORLD[i].author.replace('\u0007', '\\x07');
      expect(columnOf(row, author), row).toBe(authorAt);
      // The title's column is filled to its width (cut with … when longer), then the gap.
      expect(stringWidth(row.slice(0, row.indexOf(author)).trimEnd()), row).toBeGreaterThan(authorAt - 4);
      expect(columnOf(row, row.slice(hashes.get(WORLD[i].isbn)!.length).trimStart()), row).toBe(titleAt);
    }
    expect(rows[0]).toMatch(/吾輩は猫である .*…/);
    expect(rows[3]).toContain('Evil \\x1b[2J\\x9b31m');
  });
});

describe('a card of wide, joined, combining and control text (book get)', () => {
  it.each([40, 60])(
    'at %i columns: values wrap within the width, continuation lines under the value, C1 controls escaped',
    async (cols) => {
      for (const b of WORLD) {
        const lines = await onTerminal(cols, ['book', 'get', hashes.get(b.isbn)!]);
        const title = lines.findIndex((l) => l.startsWith('Title '));
        expect(title, lines.join('\n')).toBeGreaterThanOrEqual(0);
        const first = lines[title].replace(/^Title +/, '');
        const valueAt = columnOf(lines[title], first);
        const more: string[] = [];
        for (let i = title + 1; i < lines.length && /^ /.test(lines[i]); i++) more.push(lines[i]);
        // A wrapped value: its continuation lines hang under the value's first column.
        for (const l of more) expect(stringWidth(l.match(/^ */)![0]), l).toBe(valueAt);
        if (cols === 40) expect(more.length, lines.join('\n')).toBeGreaterThan(0);
        const shown = [first, ...more.map((l) => l.trim())].join(' ');
        if (b.sku === 'W-CC') {
          expect(shown).toContain('\\x1b[2J\\x9b31m');
          expect(shown).toContain('\\x85next');
          expect(shown).toContain('\\u202eevil');
        } else expect(shown.replace(/ /g, '')).toBe(b.title.replace(/ /g, ''));
      }
    },
  );
});
