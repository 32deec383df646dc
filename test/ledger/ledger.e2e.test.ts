// The ledger across processes (issue 34): a bookdist killed with SIGKILL at any instant leaves the
// intent row of every request that may have reached the service; two bulk jobs and a terminal
// writer appending at once lose no row and keep the chain whole.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { foldWrites, parseLedger } from '../../src/ledger/read.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-ledger-e2e-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ledger = () => {
  const file = join(dir, 'state', 'ledger.ndjson');
  return parseLedger(existsSync(file) ? readFileSync(file, 'utf8') : '');
};

/** A service that records the e-mail of each user create it reads, and answers as `mode` says. */
async function service(mode: {
  hang?: boolean;
  delayMs?: number;
}): Promise<{ url: string; emails: string[]; answered: string[]; server: Server }> {
  const emails: string[] = [];
  const answered: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const request = JSON.parse(new URLSearchParams(body).get('request') ?? '{}');
      emails.push(request.email);
      if (mode.hang) return; // never answers: the client is killed while waiting
      setTimeout(() => {
        const text = JSON.stringify({
          code: 200,
          success: true,
          message: 'User created.',
          email: request.email,
          username: randomBytes(15).toString('hex'),
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text, () => answered.push(request.email));
      }, mode.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, emails, answered, server };
}

function envFor(url: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    TMPDIR: process.env.TMPDIR ?? '',
    NO_COLOR: '1',
    BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    BOOKDIST_STATE_DIR: join(dir, 'state'),
    BOOKDIST_BASE_URL: url,
    BOOKDIST_USERNAME: 'b73395ba21c439433901092a0b7ef0',
    BOOKDIST_SHARED_KEY: 'not-a-real-shared-key-0123456789',
  };
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'ignore'] });
}

async function until(what: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const emailsOfIntents = () =>
  ledger()
    .rows.filter((r) => r.kind === 'intent')
    .map((r) => (r.ids as { email?: string }).email);

describe('a bookdist killed with SIGKILL', () => {
  it('while the request is being answered (sent, no answer yet): its intent row is there, its outcome unknown', async () => {
    const svc = await service({ hang: true });
    try {
      const child = start(['user', 'create', '--email', 'hang@example.com'], envFor(svc.url));
      await until(() => svc.emails.length === 1);
      await kill(child);
      const p = ledger();
      expect(p.broken).toBeUndefined();
      const w = foldWrites(p.rows);
      expect(w).toHaveLength(1);
      expect(w[0]).toMatchObject({ op: 'user create', status: 'unknown', ids: { email: 'hang@example.com' } });
    } finally {
      svc.server.closeAllConnections();
      svc.server.close();
    }
  });

  it('after the answer arrived: the intent is there, the outcome done or (killed before it was written) unknown', async () => {
    const svc = await service({});
    try {
      const child = start(['user', 'create', '--email', 'after@example.com'], envFor(svc.url));
      await until(() => svc.answered.length === 1);
      await kill(child);
      const w = foldWrites(ledger().rows);
      expect(w).toHaveLength(1);
      expect(['done', 'unknown']).toContain(w[0].status);
      expect(w[0].ids.email).toBe('after@example.com');
    } finally {
      svc.server.close();
    }
  });

  it('at any instant of a bulk job (between intent and send, during a send, after an answer): every request the service read has its intent row', async () => {
    const svc = await service({ delayMs: 3 });
    try {
      const roster = join(dir, 'roster.csv');
      writeFileSync(
        roster,
        ['email', ...Array.from({ length: 400 }, (_, i) => `bulk${i}@example.com`)].join('\n') + '\n',
      );
      for (const after of [5, 40, 120]) {
        const child = start(
          ['user', 'create', '--from-csv', roster, '--results', join(dir, `r${after}.csv`), '--concurrency', '8'],
          envFor(svc.url),
        );
        const seen = svc.emails.length;
        await until(() => svc.emails.length >= seen + after);
        await kill(child);
      }
      const p = ledger();
      // A row cut by the kill is dropped by the next write; every complete row chains.
      expect(p.broken).toBeUndefined();
      const intents = new Set(emailsOfIntents());
      expect(svc.emails.length).toBeGreaterThan(0);
      expect(svc.emails.filter((e) => !intents.has(e))).toEqual([]);
    } finally {
      svc.server.close();
    }
  });
});

describe('many writers at once', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('two bulk jobs at full concurrency and a terminal writer lose no row, and the chain stays whole', async () => {
    const env = { ...sb.env, BOOKDIST_STATE_DIR: join(dir, 'state') };
    const rosters = ['a', 'b'].map((tag) => {
      const file = join(dir, `${tag}.csv`);
      writeFileSync(
        file,
        ['email', ...Array.from({ length: 150 }, (_, i) => `${tag}${i}.${process.pid}@example.com`)].join('\n') + '\n',
      );
      return file;
    });
    const jobs = rosters.map((file) =>
      runCli(['user', 'create', '--from-csv', file, '--results', file + '.out', '--concurrency', '16'], {
        env,
        timeoutMs: 120_000,
      }),
    );
    const terminal = (async () => {
      const codes: Array<number | null> = [];
      for (let i = 0; i < 8; i++)
        codes.push((await runCli(['user', 'create', '--email', `t${i}.${process.pid}@example.com`], { env })).code);
      return codes;
    })();
    const [[a, b], t] = await Promise.all([Promise.all(jobs), terminal]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(t).toEqual(Array(8).fill(0));
    const p = ledger();
    expect(p.broken).toBeUndefined();
    expect(p.torn).toBe(false);
    const writes = foldWrites(p.rows);
    expect(writes).toHaveLength(308);
    expect(writes.every((w) => w.status === 'done' && typeof w.returned?.username === 'string')).toBe(true);
    expect(new Set(writes.map((w) => w.ids.email)).size).toBe(308);
    // Two jobs, each its own id; the terminal's writes belong to none.
    expect(new Set(writes.filter((w) => w.job).map((w) => w.job)).size).toBe(2);
    expect(writes.filter((w) => !w.job)).toHaveLength(8);
    const verify = await runCli(['ledger', 'verify', '--json'], { env });
    expect(verify.code).toBe(0);
  });
});
