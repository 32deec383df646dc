import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import type { GlobalOptions } from '../../src/context.js';
import { createRowWriter, emit, outputFormat, useColor } from '../../src/output/index.js';
import { fitWidths } from '../../src/output/table.js';
import type { OutputSpec } from '../../src/output/model.js';
import { csvCell, flatten, selectFields, tsvCell } from '../../src/output/format.js';
import { fakeIO } from './helpers.js';

const defaults: GlobalOptions = {
  json: false,
  color: 'auto',
  timeout: 30_000,
  retries: 3,
  debug: false,
  quiet: false,
  yes: false,
  dryRun: false,
};

const ROWS: OutputSpec = { kind: 'rows', record: 'book', at: 'results' };
const RECORD: OutputSpec = { kind: 'record', record: 'thing' };

function ctxFor(
  globals: Partial<GlobalOptions> = {},
  io: { tty?: boolean; columns?: number; env?: Record<string, string> } = {},
  spec: OutputSpec = ROWS,
) {
  const f = fakeIO(io);
  const ctx = createContext({
    io: f.io,
    globals: { ...defaults, ...globals },
    output: spec,
    signal: new AbortController().signal,
    cleanups: [],
  });
  return { ctx, out: () => f.stdout.text(), err: () => f.stderr.text() };
}

const books = {
  count: 2,
  results: [
    { hash_id: 'aaa', title: 'First, "quoted"', status: { is_active: true, is_queued: false }, tags: ['x', 'y'] },
    { hash_id: 'bbb', title: 'Second\twith tab', status: { is_active: false, is_queued: true }, tags: [], extra: 1 },
  ],
};

describe('format choice', () => {
  it('is a table on a terminal, TSV when piped, and what -o/--json say', () => {
    expect(outputFormat(ctxFor({}, { tty: true }).ctx)).toBe('table');
    expect(outputFormat(ctxFor().ctx)).toBe('tsv');
    expect(outputFormat(ctxFor({ json: true }, { tty: true }).ctx)).toBe('json');
    expect(outputFormat(ctxFor({ output: 'csv' }, { tty: true }).ctx)).toBe('csv');
  });
  it('colour: auto follows the terminal and NO_COLOR; always/never win', () => {
    expect(useColor(ctxFor({}, { tty: true }).ctx)).toBe(true);
    expect(useColor(ctxFor({}, { tty: true, env: { NO_COLOR: '1' } }).ctx)).toBe(false);
    expect(useColor(ctxFor().ctx)).toBe(false);
    expect(useColor(ctxFor({ color: 'always' }).ctx)).toBe(true);
    expect(useColor(ctxFor({ color: 'never' }, { tty: true }).ctx)).toBe(false);
  });
});

describe('JSON', () => {
  it('is compact when piped and pretty on a terminal', async () => {
    const piped = ctxFor({ json: true }, {}, RECORD);
    await emit(piped.ctx, { a: 1, b: { c: 2 } });
    expect(piped.out()).toBe('{"a":1,"b":{"c":2}}\n');
    const tty = ctxFor({ json: true }, { tty: true }, RECORD);
    await emit(tty.ctx, { a: 1, b: { c: 2 } });
    expect(tty.out()).toBe('{\n  "a": 1,\n  "b": {\n    "c": 2\n  }\n}\n');
  });
  it('prints the records of a list, with --fields selecting dotted paths', async () => {
    const c = ctxFor({ json: true, fields: ['hash_id', 'status.is_active'] });
    await emit(c.ctx, books);
    expect(JSON.parse(c.out())).toEqual([
      { hash_id: 'aaa', status: { is_active: true } },
      { hash_id: 'bbb', status: { is_active: false } },
    ]);
  });
  it('the streaming writer writes a valid array, also when empty', async () => {
    const c = ctxFor({ output: 'json' });
    const w = createRowWriter(c.ctx);
    w.write({ a: 1 });
    w.write({ a: 2 });
    await w.end();
    expect(JSON.parse(c.out())).toEqual([{ a: 1 }, { a: 2 }]);
    const e = ctxFor({ output: 'json' });
    await createRowWriter(e.ctx).end();
    expect(e.out()).toBe('[]\n');
    // With the response it belongs to, the rows stream into its `results`: the shape of one page.
    const f = ctxFor({ output: 'json' });
    const wf = createRowWriter(f.ctx, { envelope: { code: 200, count: 2, results: [{ a: 0 }], offset: 0 } });
    wf.write({ a: 1 });
    wf.write({ a: 2 });
    await wf.end();
    expect(JSON.parse(f.out())).toEqual({ code: 200, count: 2, offset: 0, results: [{ a: 1 }, { a: 2 }] });
  });
});

describe('NDJSON', () => {
  it('streams one record per line, as each is written', async () => {
    const c = ctxFor({ output: 'ndjson', fields: ['hash_id'] });
    const w = createRowWriter(c.ctx);
    w.write(books.results[0]);
    expect(c.out()).toBe('{"hash_id":"aaa"}\n');
    w.write(books.results[1]);
    await w.end();
    expect(c.out()).toBe('{"hash_id":"aaa"}\n{"hash_id":"bbb"}\n');
  });
});

describe('CSV and TSV', () => {
  it('CSV has a header row, dotted columns for nested objects, quoted cells', async () => {
    const c = ctxFor({ output: 'csv' });
    await emit(c.ctx, books);
    expect(c.out()).toBe(
      'hash_id,title,status.is_active,status.is_queued,tags,extra\n' +
        'aaa,"First, ""quoted""",true,false,x;y,\n' +
        'bbb,Second\twith tab,false,true,,1\n',
    );
  });
  it('TSV escapes tabs and newlines and honours --fields', async () => {
    const c = ctxFor({ fields: ['title', 'status.is_queued'] });
    await emit(c.ctx, books);
    expect(c.out()).toBe('title\tstatus.is_queued\nFirst, "quoted"\tfalse\nSecond\\twith tab\ttrue\n');
  });
  it('one object is one row', async () => {
    const c = ctxFor({ output: 'tsv' }, {}, RECORD);
    await emit(c.ctx, { a: 1, b: { c: 'x' } });
    expect(c.out()).toBe('a\tb.c\n1\tx\n');
  });
  it('is never coloured when piped', async () => {
    const c = ctxFor({}, {});
    await emit(c.ctx, books);
    expect(c.out()).not.toMatch(/\x1b\[/);
  });
});

describe('tables on a terminal', () => {
  it('one style: no borders, UPPERCASE headers; identifiers whole, free text cut to fit', async () => {
    const long = {
      hash_id: 'c'.repeat(40),
      title: 'A very long title that goes on and on and on beyond any narrow terminal',
      status: { is_active: true },
    };
    const c = ctxFor({}, { tty: true, columns: 70, env: { NO_COLOR: '1', LANG: 'C.UTF-8' } });
    await emit(c.ctx, { results: [long, { hash_id: 'aaa', title: 'Short', status: { is_active: false } }] });
    const lines = c.out().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^HASH ID +TITLE +STATUS.IS ACTIVE$/);
    expect(lines[1].startsWith('c'.repeat(40) + '  A ')).toBe(true);
    expect(lines[1]).toMatch(/… +true$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(70);
    expect(c.out()).not.toMatch(/[│┌─]/);
    expect(c.out()).not.toMatch(/\x1b\[/);
  });
  it('bold headers when colour is on', async () => {
    const c = ctxFor({}, { tty: true, columns: 80 });
    await emit(c.ctx, books);
    expect(c.out()).toContain('\x1b[1mHASH ID');
  });
  it('an empty list says so on stderr', async () => {
    const c = ctxFor({}, { tty: true });
    await emit(c.ctx, { results: [] }, { empty: 'No books.' });
    expect(c.out()).toBe('');
    expect(c.err()).toBe('No books.\n');
  });
  it('one record without a card is a key/value list', async () => {
    const c = ctxFor({}, { tty: true, columns: 40, env: { NO_COLOR: '1' } }, RECORD);
    await emit(c.ctx, { a: 1, nested: { note: 'v '.repeat(100) } });
    expect(c.out().split('\n')[0]).toBe('a            1');
    expect(c.out().split('\n')[1].length).toBeLessThanOrEqual(40);
  });
  it('fitWidths keeps fixed columns whole and cuts the widest free text', () => {
    expect(fitWidths([5, 10], 100)).toEqual([5, 10]);
    expect(fitWidths([3, 50, 40], 60)).toEqual([3, 26, 26]);
    expect(fitWidths([40, 50, 13], 80, [true, false, true])).toEqual([40, 23, 13]);
  });
});

describe('helpers', () => {
  it('flatten, selectFields and cell escaping', () => {
    expect(flatten({ a: { b: { c: 1 } }, l: [{ x: 1 }], e: {} })).toEqual({ 'a.b.c': 1, l: 'x=1', e: '' });
    expect(selectFields({ a: { b: 1, c: 2 }, d: 3 }, ['a.c', 'missing.path'])).toEqual({ a: { c: 2 } });
    // Through arrays: the rest of the path applies to every element.
    expect(
      selectFields(
        {
          items: [
            { id: 1, x: 0 },
            { id: 2, x: 0 },
          ],
          n: 1,
        },
        ['items.id', 'n'],
      ),
    ).toEqual({ items: [{ id: 1 }, { id: 2 }], n: 1 });
    expect(csvCell(' lead')).toBe('" lead"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(tsvCell('a\\b\nc')).toBe('a\\\\b\\nc');
  });
});

describe('a response without its record', () => {
  const ORDER: OutputSpec = { kind: 'record', record: 'order', at: 'order' };
  it('people get the message, --json the response, --fields an error (never an empty {})', async () => {
    const body = { code: 200, success: true, message: 'Free order created.' };
    const t = ctxFor({}, {}, ORDER);
    await emit(t.ctx, body);
    expect(t.out()).toBe('');
    expect(t.err()).toBe('Free order created.\n');
    const j = ctxFor({ json: true }, {}, ORDER);
    await emit(j.ctx, body);
    expect(JSON.parse(j.out())).toEqual(body);
    const f = ctxFor({ json: true, fields: ['id'] }, {}, ORDER);
    await expect(emit(f.ctx, body)).rejects.toThrow(/has no order, so --fields has nothing to select/);
    expect(f.out()).toBe('');
  });
});
