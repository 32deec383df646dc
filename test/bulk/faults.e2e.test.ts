// Faults of the output and of the connection, against a sandbox over HTTP (issue 8, "exact under
// every fault"): a reader that closes stdout (`| head -1`), a closed stderr, responses lost after
// the service did the work (a proxy that resets), and the service gone mid-job then back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, codesGenerated, csvCodes, spawnCli, waitForCodes, type Cli } from './_support.js';

const BOOK = WELL_KNOWN.readme.hash_id;
let sb: TestSandbox;
let cli: Cli;
let dir: string;

beforeAll(async () => {
  sb = await startTestSandbox({ faults: { rate: 0, kinds: [], latencyMs: 20 } });
  cli = cliFor(sb);
  dir = mkdtempSync(join(tmpdir(), 'bookdist-faults-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Run a shell pipeline with bin/bookdist as `$BOOKDIST`; resolves with bookdist's exit code and stderr. */
function pipeline(script: string): Promise<{ code: number; stderr: string; stdout: string }> {
  const rc = join(dir, `rc-${Math.random().toString(36).slice(2)}`);
  const err = rc + '.err';
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [
        '-c',
        script
          .replace(/\$BOOKDIST/g, `"${process.execPath}" "${BIN}"`)
          .replace(/\$RC/g, rc)
          .replace(/\$ERR/g, err),
      ],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ...sb.env },
        timeout: 60_000,
      },
      (e, stdout) => {
        if (!existsSync(rc)) return reject(e ?? new Error('no exit code recorded'));
        resolve({
          code: Number(readFileSync(rc, 'utf8')),
          stderr: existsSync(err) ? readFileSync(err, 'utf8') : '',
          stdout,
        });
      },
    );
  });
}

describe('EPIPE', () => {
  it('stdout closed by its reader (| head -1): the job stops sending, says what was printed and how to go on, exit 1', async () => {
    const before = await codesGenerated(cli);
    const r = await pipeline(
      `{ $BOOKDIST codes generate --hash-id ${BOOK} --org acme --count 20000 --batch-size 100 --concurrency 2 -o csv 2>$ERR; echo $? >$RC; } | head -1`,
    );
    expect(r.stdout).toBe('code,deactivation_date,limit_days,hash_id,batch\n');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /codes generate: writing stdout failed: EPIPE \(the reader closed the pipe\)\. \d+ of 20000 codes generated .*the job stopped there/,
    );
    expect(r.stderr).toMatch(/To continue, run:\n {2}bookdist codes generate .*--count \d+/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+|Unhandled/);
    // It stopped at once: the service made a few batches (those in flight), not the 20,000 asked.
    expect((await codesGenerated(cli)) - before).toBeLessThan(2000);
  });

  it('stderr closed (2>&1 | true): the job still finishes exactly, its journal removed, exit 0', async () => {
    const out = join(dir, 'quiet-stderr.csv');
    const before = await codesGenerated(cli);
    // The reader of stderr is gone before the first line (a retry line, the summary) is written.
    const r = await pipeline(
      `{ $BOOKDIST codes generate --hash-id ${BOOK} --org acme --count 3000 --batch-size 100 --out ${out} 2>&1 >/dev/null; echo $? >$RC; } | true`,
    );
    expect(r.code).toBe(0);
    const codes = csvCodes(out);
    expect(codes).toHaveLength(3000);
    expect(new Set(codes).size).toBe(3000);
    expect(existsSync(out + '.bookdist-job')).toBe(false);
    expect(existsSync(out + '.bookdist-lock')).toBe(false);
    expect((await codesGenerated(cli)) - before).toBe(3000);
  });

  it('--out /dev/stdout (a pipe) is refused before anything is sent: a job file must be resumable', async () => {
    const before = await codesGenerated(cli);
    const r = await pipeline(
      `{ $BOOKDIST codes generate --hash-id ${BOOK} --org acme --count 10 --out /dev/stdout 2>$ERR; echo $? >$RC; } | cat`,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--out \/dev\/stdout is not a regular file/);
    expect(await codesGenerated(cli)).toBe(before);
  });
});

/**
 * A TCP proxy in front of the sandbox. `dropEvery`: every n-th response is lost (the connection
 * reset as the answer starts: the service did the work). `down`: the service is gone (open
 * connections reset, the port closed: connections refused) until `down: false` opens it again.
 */
function startProxy(port: number): Promise<{
  url: string;
  set(o: { dropEvery?: number; down?: boolean }): void;
  dropped(): number;
  close(): Promise<void>;
}> {
  let dropEvery = 0;
  let down = false;
  let responses = 0;
  let dropped = 0;
  const live = new Set<Socket>();
  const server: Server = createServer((client) => {
    live.add(client);
    client.on('close', () => live.delete(client));
    client.on('error', () => {});
    const up = connect(port, '127.0.0.1');
    live.add(up);
    up.on('close', () => (live.delete(up), client.destroy()));
    up.on('error', () => client.destroy());
    client.on('close', () => up.destroy());
    client.on('data', (d) => up.write(d));
    up.on('data', (d) => {
      if (d.subarray(0, 9).toString() === 'HTTP/1.1 ') {
        responses++;
        if (dropEvery && responses % dropEvery === 0) {
          dropped++;
          client.resetAndDestroy();
          up.destroy();
          return;
        }
      }
      client.write(d);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${addr.port}`,
        set(o) {
          if (o.dropEvery !== undefined) dropEvery = o.dropEvery;
          if (o.down === true && !down) {
            down = true;
            server.close();
            for (const s of live) s.destroy();
          } else if (o.down === false && down) {
            down = false;
            server.listen(addr.port, '127.0.0.1');
          }
        },
        dropped: () => dropped,
        close: () =>
          new Promise<void>((r) => (down ? r() : server.close(() => r()), [...live].forEach((s) => s.destroy()))),
      });
    }),
  );
}

describe('a dropped connection', () => {
  it("every 4th answer lost after the service made the codes: retried with the batch's key, exact file, exact service delta", async () => {
    const proxy = await startProxy(sb.port);
    try {
      proxy.set({ dropEvery: 4 });
      const out = join(dir, 'dropped.csv');
      const before = await codesGenerated(cli);
      const r = await cli(
        [
          'codes',
          'generate',
          '--hash-id',
          BOOK,
          '--org',
          'acme',
          '--count',
          '3000',
          '--batch-size',
          '100',
          '--concurrency',
          '2',
          '--retries',
          '6',
          '--out',
          out,
        ],
        {
          env: { BOOKDIST_BASE_URL: proxy.url },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(proxy.dropped()).toBeGreaterThanOrEqual(5);
      const codes = csvCodes(out);
      expect(codes).toHaveLength(3000);
      expect(new Set(codes).size).toBe(3000);
      expect((await codesGenerated(cli)) - before).toBe(3000);
    } finally {
      await proxy.close();
    }
  });

  it('the service gone mid-job: the job stops after a few failed batches (not all 40), exit 7 with the resume command; back again, --resume ends exact', async () => {
    const proxy = await startProxy(sb.port);
    try {
      const out = join(dir, 'outage.csv');
      const args = [
        'codes',
        'generate',
        '--hash-id',
        BOOK,
        '--org',
        'acme',
        '--count',
        '4000',
        '--batch-size',
        '100',
        '--concurrency',
        '2',
        '--retries',
        '1',
        '--out',
        out,
      ];
      const env = { BOOKDIST_BASE_URL: proxy.url };
      const before = await codesGenerated(cli);
      const run = spawnCli(sb, args, env);
      await waitForCodes(out, 300, run.exited);
      proxy.set({ down: true });
      const res = await run.exited;
      expect(res.code, res.stderr).toBe(7);
      expect(res.stderr).toMatch(
        /the service stayed unavailable for 4 requests in a row \(last: .*could not reach the service \(ECONNREFUSED\).*\); no new requests are started\./,
      );
      expect(res.stderr).toMatch(/batch\(es\) failed \(\d+ codes not generated; last error: .*\)/);
      // The batches in flight when the port closed, and those that had started before the limit was reached: no more.
      expect(res.stderr.match(/^batch \d+ \(100 codes\) failed/gm)!.length).toBeLessThanOrEqual(6);
      expect(res.stderr).toMatch(/To retry what failed, run:\n {2}bookdist codes generate .*--resume\n/);
      expect(existsSync(out + '.bookdist-job')).toBe(true);
      proxy.set({ down: false });
      const r = await cli([...args, '--resume'], { env });
      expect(r.code, r.stderr).toBe(0);
      const codes = csvCodes(out);
      expect(codes).toHaveLength(4000);
      expect(new Set(codes).size).toBe(4000);
      expect((await codesGenerated(cli)) - before).toBe(4000);
    } finally {
      await proxy.close();
    }
  });

  it('book get --isbn-file with the service gone: still one record per line (error), the rest not sent once the limit is reached', async () => {
    const proxy = await startProxy(sb.port);
    proxy.set({ down: true });
    try {
      const isbns = Array.from({ length: 1000 }, (_, i) => String(9780000000001 + i)).join('\n') + '\n';
      const r = await cli(['book', 'get', '--isbn-file', '-', '--no-check', '-o', 'ndjson', '--retries', '1'], {
        input: isbns,
        env: { BOOKDIST_BASE_URL: proxy.url },
      });
      expect(r.code, r.stderr).toBe(7);
      const rows = r.stdout
        .trim()
        .split('\n')
        .map((l: string) => JSON.parse(l));
      expect(rows).toHaveLength(1000);
      expect(rows.every((x: any) => x.status === 'error')).toBe(true);
      expect(r.stderr).toMatch(
        /book get: the service stayed unavailable for 6 requests in a row .*no new requests are started\./,
      );
    } finally {
      await proxy.close();
    }
  });
});
