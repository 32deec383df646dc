// Hostile edges of a running sandbox over real HTTP: inputs at the bounds the validation lets
// through, and connections that misbehave. Each case was a 5xx, a hang or a wrong answer once.
import { connect, type Socket } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { clients, type Clients } from './_support.js';

let sb: TestSandbox;
let c: Clients;
const log: string[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ processDelayMs: 1, log: (line) => log.push(line) });
  c = clients(sb);
}, 60_000);

afterAll(async () => {
  await c?.closeAll();
  await sb?.close();
});

/** What a plain LIKE over the whole table finds for every word of title and author, in id order. */
function plainLike(table: 'books' | 'imports', p: { title?: string; author?: string }): number[] {
  const esc = (w: string) => '%' + w.replace(/[\\%_]/g, (m) => '\\' + m) + '%';
  const conds: string[] = [];
  const args: string[] = [];
  for (const col of ['title', 'author'] as const) {
    for (const w of p[col]?.trim() ? p[col]!.trim().split(/\s+/) : [])
      conds.push(`${col} LIKE ? ESCAPE '\\'`), args.push(esc(w));
  }
  // Grouped, so that SQLite's own expression depth limit does not stop the reference query.
  const groups: string[] = [];
  for (let i = 0; i < conds.length; i += 50) groups.push(`(${conds.slice(i, i + 50).join(' AND ')})`);
  const db = new DatabaseSync(sb.dbPath, { readOnly: true });
  try {
    const sql = `SELECT id FROM ${table} ${groups.length ? 'WHERE ' + groups.join(' AND ') : ''} ORDER BY id`;
    return (db.prepare(sql).all(...args) as Array<{ id: number }>).map((r) => r.id);
  } finally {
    db.close();
  }
}

describe('search at the bounds of its fields', () => {
  it('title and author of 500 one-character words each (1,000 conditions): an answer, the same as LIKE, never a 500', async () => {
    const cases = [
      { title: 'a '.repeat(500), author: 'a '.repeat(500) },
      { title: 'e '.repeat(500), author: 'r '.repeat(500), isbn: ['9780000000002'] },
      { title: 'abc '.repeat(250), author: 'e '.repeat(500) },
    ];
    for (const p of cases) {
      for (const [ep, table] of [
        ['book.search', 'books'],
        ['import.search', 'imports'],
      ] as const) {
        const r = await c.partner.call(ep, { payload: { ...p, limit: 500 } });
        expect(r.status, `${ep} ${JSON.stringify(p).slice(0, 40)}: ${JSON.stringify(r.body).slice(0, 120)}`).toBe(200);
        if (!('isbn' in p)) expect(r.body.count).toBe(plainLike(table, p).length);
      }
    }
    const r = await c.partner.call('book.search', {
      payload: { title: 'e '.repeat(500), author: 'e '.repeat(500), limit: 500 },
    });
    const expected = plainLike('books', { title: 'e', author: 'e' });
    expect(expected.length).toBeGreaterThan(0);
    expect(r.body.results.map((b: any) => b.id)).toEqual(expected.slice(0, 500));
  });
});

/** A raw connection to the sandbox and everything it answers. */
async function socket(): Promise<{ s: Socket; text: () => string; closed: Promise<void> }> {
  const u = new URL(sb.url);
  const s = connect(Number(u.port), u.hostname);
  await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
  let text = '';
  s.on('data', (d) => (text += d));
  s.on('error', () => {});
  return { s, text: () => text, closed: new Promise((resolve) => s.once('close', () => resolve())) };
}

function sharedKeyHeaders(): string {
  const u = sb.creds.partner.username;
  return `api-user: ${u}\r\nuser: ${u}\r\nversion: v1\r\nauthorization: SharedKeyAuth\r\napi-key: ${sb.creds.partner.sharedKey}\r\n`;
}

describe('connections that misbehave', () => {
  it('a client that drops its connection mid-body is not an internal error, and others are served', async () => {
    const from = log.length;
    for (const path of ['/v1/book/search/', '/_sandbox/clock']) {
      for (let i = 0; i < 5; i++) {
        const { s, closed } = await socket();
        s.write(
          `POST ${path} HTTP/1.1\r\nhost: ${new URL(sb.url).host}\r\n${sharedKeyHeaders()}content-type: application/json\r\ncontent-length: 5000\r\n\r\n{"request": {`,
        );
        await new Promise((r) => setTimeout(r, 20));
        s.destroy();
        await closed;
      }
    }
    await new Promise((r) => setTimeout(r, 100));
    const r = await c.partner.call('book.search', { payload: { title: 'Winter' } });
    expect(r.status).toBe(200);
    expect(log.slice(from).filter((l) => /internal error/i.test(l))).toEqual([]);
  });
});

describe('pipelined requests on one connection', () => {
  it('answers in order, each to its own request, also when a malformed request follows valid ones', async () => {
    const host = new URL(sb.url).host;
    const get = (isbn: string) => `GET /v1/book/isbn/${isbn}/ HTTP/1.1\r\nhost: ${host}\r\n${sharedKeyHeaders()}\r\n`;
    const isbns = ['9781614001379', '9781614002741', '0000000000000', '9781614004110'];
    for (const bad of [
      'NOT HTTP AT ALL\r\n\r\n',
      `GET / HTTP/1.1\r\nhost: ${host}\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n`,
    ]) {
      const { s, text, closed } = await socket();
      s.write(isbns.map(get).join('') + bad);
      const timer = setTimeout(() => s.destroy(), 5000);
      await closed;
      clearTimeout(timer);
      const statuses = [...text().matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
      expect(statuses, JSON.stringify(bad)).toEqual([200, 200, 404, 200, 400]);
      const titles = [...text().matchAll(/"title":"([^"]*)"/g)].map((m) => m[1]);
      expect(titles.length).toBeGreaterThanOrEqual(3);
      expect(text().indexOf('Salt and Cedar')).toBeGreaterThan(text().indexOf("The Lighthouse Keeper's Ledger"));
      expect(text().indexOf('A Winter Atlas')).toBeGreaterThan(text().indexOf('Book not found'));
    }
    // A malformed chunk inside a body: that request is never complete, so the 400 is its answer, at once.
    const { s, text, closed } = await socket();
    s.write(
      get('9781614001379') +
        `POST /v1/book/search/ HTTP/1.1\r\nhost: ${host}\r\n${sharedKeyHeaders()}transfer-encoding: chunked\r\n\r\n5\r\nreque\r\nZZZ\r\n`,
    );
    const timer = setTimeout(() => s.destroy(), 5000);
    await closed;
    clearTimeout(timer);
    // An answer that waited for the rest of the body would never come: the timer would close the
    // socket with only the 200 read.
    expect([...text().matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]))).toEqual([200, 400]);
  });
});
