// The job engine's guarantees, end to end against a sandbox over HTTP, through `codes generate`
// (codes are bearer secrets: the verb where a lost or doubled row costs most): exclusive, exact
// under a full disk and kill -9 at random points, graceful on the first signal with a stored
// profile present, validated before the first request, a corrupt journal with a way out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEED_USERS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, storeProfile, codesGenerated, csvCodes, spawnCli, waitForCodes, type Cli } from './_support.js';
import { fullDisk } from './_fs.js';
import { run as runInProcess } from '../helpers/run.js';
import { BIN } from '../helpers/cli.js';

const BOOK = WELL_KNOWN.readme.hash_id;
/** What a shell reports for a death by each signal (128 + its number). */
const SHELL_STATUS = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
let sb: TestSandbox;
let cli: Cli;
let dir: string;

beforeAll(async () => {
  // A little latency per request, so that a job is still running when a test stops it.
  sb = await startTestSandbox({ faults: { rate: 0, kinds: [], latencyMs: 40 } });
  cli = cliFor(sb);
  dir = mkdtempSync(join(tmpdir(), 'bookdist-guarantees-'));
  storeProfile(sb);
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const gen = (out: string, count: number, extra: string[] = []) => [
  'codes',
  'generate',
  '--hash-id',
  BOOK,
  '--org',
  'acme',
  '--count',
  String(count),
  '--batch-size',
  '100',
  '--concurrency',
  '2',
  '--out',
  out,
  ...extra,
];

function expectExact(out: string, count: number) {
  const codes = csvCodes(out);
  expect(codes).toHaveLength(count);
  expect(new Set(codes).size).toBe(count);
  expect(existsSync(out + '.bookdist-job')).toBe(false);
  expect(existsSync(out + '.bookdist-lock')).toBe(false);
}

describe('exclusive', () => {
  it("a second job on the same file exits 2 naming the first one's pid; after kill -9, --resume takes the stale lock over", async () => {
    const out = join(dir, 'twin.csv');
    const count = 10_000;
    const before = await codesGenerated(cli);
    const first = spawnCli(sb, gen(out, count));
    // The pid of the process holding the lock (the launcher may have re-run bookdist under the pinned Node).
    let owner: number | undefined;
    try {
      await waitForCodes(out, 100, first.exited);
      owner = JSON.parse(readFileSync(out + '.bookdist-lock', 'utf8')).pid as number;
      // Stopped, not slowed: it holds its lock however long the second jobs take to start (a
      // loaded machine), and it writes nothing more until it is killed.
      process.kill(owner, 'SIGSTOP');
      for (const extra of [['--resume'], []]) {
        const second = await cli(gen(out, count, extra));
        expect(second.code, second.stderr).toBe(2);
        expect(second.stderr, second.stderr).toContain(`in use by another bookdist job (pid ${owner}`);
      }
      process.kill(owner, 'SIGKILL');
      first.child.kill('SIGKILL');
      await first.exited;
    } finally {
      // Never left running (stopped) past the test, whatever failed: later tests count the service's codes.
      for (const pid of [owner, first.child.pid]) {
        try {
          if (pid) process.kill(pid, 'SIGKILL');
        } catch {
          /* gone already */
        }
      }
    }
    expect(existsSync(out + '.bookdist-lock')).toBe(true);
    // Without --resume the stale lock is not taken: the message says how to continue.
    const plain = await cli(gen(out, count));
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/stopped without finishing.*--resume/s);
    const r = await cli(gen(out, count, ['--resume']));
    expect(r.code, r.stderr).toBe(0);
    expectExact(out, count);
    expect((await codesGenerated(cli)) - before).toBe(count);
  });
});

describe('exact under faults', () => {
  it('a full disk (ENOSPC through the injected fs seam): exit 1 with the resume command, the unwritten codes rescued; --resume ends exact, the service counted exactly count', async () => {
    const out = join(dir, 'full.csv');
    const count = 3000;
    const before = await codesGenerated(cli);
    // The disk fills up part-way through a batch (~60 bytes a row): a torn batch is left in the file.
    const res = await runInProcess(gen(out, count), {
      env: { ...sb.env, XDG_STATE_HOME: join(dir, 'state') },
      fs: fullDisk(out, 70000),
    });
    expect(res.code, res.stderr).toBe(1);
    const rescue = /kept in (\S+\.ndjson) \(readable only by you\)/.exec(res.stderr)?.[1];
    expect(rescue, res.stderr).toBeDefined();
    expect(statSync(rescue!).mode & 0o777).toBe(0o600);
    expect(readFileSync(rescue!, 'utf8').trim().split('\n').length).toBeGreaterThan(0);
    expect(res.stderr).toMatch(/writing \S+full\.csv failed: ENOSPC/);
    expect(res.stderr).toMatch(/--out \S+full\.csv --resume\n/);
    expect(res.stderr).not.toMatch(/unexpected error/);
    expect(statSync(out).size).toBe(70000);
    expect(statSync(out).mode & 0o777).toBe(0o600);

    const r = await cli(gen(out, count, ['--resume']));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/cut \d+ byte\(s\) after the last complete batch/);
    expectExact(out, count);
    // The torn batch was fetched again with its Idempotency-Key, not generated anew.
    expect((await codesGenerated(cli)) - before).toBe(count);
  });

  it('kill -9 at random points (several seeds), each followed by --resume: exact file, exact service delta', async () => {
    for (const seed of [1, 7, 42]) {
      const out = join(dir, `kill-${seed}.csv`);
      const count = 3000;
      const before = await codesGenerated(cli);
      let rnd = seed;
      const next = () => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      // Two kills per seed at random depths, then a resume that finishes. Each kill must land
      // mid-run: waitForCodes fails if the run ends before the depth is reached, and the run must
      // end by the signal, with codes still missing and its journal left for --resume.
      for (let k = 0; k < 2; k++) {
        const run = spawnCli(sb, gen(out, count, k ? ['--resume'] : []));
        const already = existsSync(out) ? csvCodes(out).length : 0;
        await waitForCodes(out, Math.min(count - 500, already + 100 + Math.floor(next() * 800)), run.exited);
        run.child.kill('SIGKILL');
        const ended = await run.exited;
        expect(ended.signal, `seed ${seed}, kill ${k + 1}: ${ended.stderr}`).toBe('SIGKILL');
        expect(csvCodes(out).length, `seed ${seed}, kill ${k + 1}`).toBeLessThan(count);
        expect(existsSync(out + '.bookdist-job'), `seed ${seed}, kill ${k + 1}`).toBe(true);
      }
      const r = await cli(gen(out, count, ['--resume']));
      expect(r.code, `seed ${seed}: ${r.stderr}`).toBe(0);
      expectExact(out, count);
      expect((await codesGenerated(cli)) - before, `seed ${seed}`).toBe(count);
    }
  });

  it('bytes appended to the code file by hand are reported and cut, never kept', async () => {
    const out = join(dir, 'junk.csv');
    const count = 3000;
    const run = spawnCli(sb, gen(out, count));
    await waitForCodes(out, 300, run.exited);
    run.child.kill('SIGKILL');
    await run.exited;
    appendFileSync(out, 'NOT-A-CODE,,,,\n');
    const r = await cli(gen(out, count, ['--resume']));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/cut \d+ byte\(s\)/);
    expectExact(out, count);
    expect(readFileSync(out, 'utf8')).not.toContain('NOT-A-CODE');
  });
});

describe('graceful on the first signal, with a stored profile present', () => {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${sig}: in-flight batches written, the resume command printed, then death by ${sig} (the shell's ${SHELL_STATUS[sig]}); --resume finishes exactly`, async () => {
      const out = join(dir, `sig-${sig}.csv`);
      const count = 4000;
      const before = await codesGenerated(cli);
      const run = spawnCli(sb, gen(out, count));
      await waitForCodes(out, 200, run.exited);
      run.child.kill(sig);
      const res = await run.exited;
      expect(res, res.stderr).toMatchObject({ code: null, signal: sig });
      expect(res.stderr).toMatch(/interrupted: \d+ of 4000 codes generated/);
      expect(res.stderr).toMatch(/To continue, run:\n {2}bookdist codes generate .*--resume\n/);
      expect(res.stderr).not.toMatch(/^Interrupted\.$/m);
      // Every batch that started was written whole.
      expect(csvCodes(out).length % 100).toBe(0);
      const r = await cli(gen(out, count, ['--resume']));
      expect(r.code, r.stderr).toBe(0);
      expectExact(out, count);
      expect((await codesGenerated(cli)) - before).toBe(count);
    });
  }
});

describe('an interrupt stops the script that ran bookdist', () => {
  /**
   * `sh -c 'bash -c "bookdist codes generate ...; echo after $?"; echo status=$?'`, with the inner
   * bash in a process group of its own (setsid), as a terminal's foreground job is: what a script
   * that ran bookdist, and the shell that ran the script, see.
   */
  function script(out: string) {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    if (!existsSync(join(bin, 'bookdist'))) symlinkSync(BIN, join(bin, 'bookdist'));
    const inner = `echo pgid=$$ >&2; bookdist ${gen(out, 4000).join(' ')}; echo after $?`;
    const child = spawn('sh', ['-c', `setsid bash -c '${inner}'; echo status=$?`], {
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        ...sb.env,
        BOOKDIST_IDEMPOTENCY_KEYS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((res) =>
      child.on('close', (code) => res({ code, stdout, stderr })),
    );
    return { exited, pgid: () => Number(/^pgid=(\d+)$/m.exec(stderr)?.[1]) };
  }

  it('SIGINT to the script\'s process group mid-job (Ctrl-C): the resume command, no "after", the outer shell reads 130', async () => {
    const out = join(dir, 'script-int.csv');
    const run = script(out);
    await waitForCodes(out, 200, run.exited);
    expect(run.pgid()).toBeGreaterThan(1);
    process.kill(-run.pgid(), 'SIGINT');
    const res = await run.exited;
    expect(res.stderr).toMatch(/To continue, run:\n {2}bookdist codes generate .*--resume\n/);
    expect(res.stdout).not.toMatch(/after/);
    expect(res.stdout).toBe('status=130\n');
    expect(res.code).toBe(0);
  });

  it('SIGTERM to bookdist alone: the script goes on and reads 143, as for any command killed by SIGTERM', async () => {
    const out = join(dir, 'script-term.csv');
    const run = script(out);
    await waitForCodes(out, 200, run.exited);
    // The job's lock names the pid that runs it (the launcher execs Node: the pid bash started).
    process.kill(JSON.parse(readFileSync(out + '.bookdist-lock', 'utf8')).pid, 'SIGTERM');
    const res = await run.exited;
    expect(res.stderr).toMatch(/To continue, run:\n {2}bookdist codes generate .*--resume\n/);
    expect(res.stdout).toBe('after 143\nstatus=0\n');
  });
});

describe('the same guarantees for a row job (access allow --from-csv)', () => {
  it('SIGTERM with a stored profile: batches in flight written, death by SIGTERM; --resume ends with every row exactly once', async () => {
    const csv = join(dir, 'rows.csv');
    const n = 600;
    const row = `${WELL_KNOWN.readme.hash_id},${SEED_USERS[2].username},1.00`;
    writeFileSync(csv, 'hash_id,username,price\n' + `${row}\n`.repeat(n));
    const results = join(dir, 'rows.results.csv');
    const args = ['access', 'allow', '--from-csv', csv, '--results', results, '--concurrency', '2'];
    const run = spawnCli(sb, args);
    const started = Date.now();
    while (!existsSync(results) || readFileSync(results, 'utf8').split('\n').length < 102) {
      if (Date.now() - started > 60_000) throw new Error('no batch written');
      await new Promise((r) => setTimeout(r, 20));
    }
    run.child.kill('SIGTERM');
    const res = await run.exited;
    expect(res, res.stderr).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(res.stderr).toMatch(/interrupted: \d+ rows?/);
    expect(res.stderr).toMatch(/--results \S+rows\.results\.csv --concurrency 2 --resume\n/);
    const r = await cli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('row,status,message,hash_id,username');
    const rowsSeen = lines.slice(1).map((l) => Number(l.split(',')[0]));
    expect(rowsSeen).toHaveLength(n);
    expect(new Set(rowsSeen).size).toBe(n);
    expect(existsSync(results + '.bookdist-job')).toBe(false);
  });
});

describe('a second signal', () => {
  let slow: TestSandbox;
  beforeAll(async () => {
    // Requests take 1.5 s: the first signal's wait for the batches in flight is long enough to interrupt.
    slow = await startTestSandbox({ faults: { rate: 0, kinds: [], latencyMs: 1500 } });
  });
  afterAll(() => slow.close());

  it('a second signal while the first waits for batches in flight ends the job at once, by the signal; --resume still ends exact', async () => {
    const slowCli = cliFor(slow);
    const out = join(dir, 'twice.csv');
    const count = 1000;
    const before = await codesGenerated(slowCli);
    const run = spawnCli(slow, gen(out, count));
    await waitForCodes(out, 100, run.exited);
    // The next two batches are now in flight for ~1.5 s.
    await new Promise((r) => setTimeout(r, 400));
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 400));
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const res = await run.exited;
    expect(res, res.stderr).toMatchObject({ code: null, signal: 'SIGINT' });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(res.stderr, res.stderr).toMatch(/^Interrupted\.$/m);
    const r = await slowCli(gen(out, count, ['--resume']));
    expect(r.code, r.stderr).toBe(0);
    expectExact(out, count);
    expect((await codesGenerated(slowCli)) - before).toBe(count);
  });
});

describe('validated before the first request', () => {
  it('bad batch size, unwritable output directory, changed options on --resume: exit 2, nothing sent', async () => {
    const before = await codesGenerated(cli);
    const big = await cli(gen(join(dir, 'big.csv'), 10, ['--batch-size', '5000']));
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/--batch-size 5000: give a whole number from 1 to 1000/);
    const nodir = await cli(gen(join(dir, 'no', 'such', 'dir.csv'), 10));
    expect(nodir.code).toBe(2);
    expect(nodir.stderr).toMatch(/cannot write in/);
    expect(await codesGenerated(cli)).toBe(before);

    const out = join(dir, 'changed.csv');
    const run = spawnCli(sb, gen(out, 3000));
    await waitForCodes(out, 100, run.exited);
    run.child.kill('SIGKILL');
    await run.exited;
    const mid = await codesGenerated(cli);
    const changed = await cli(gen(out, 3000, ['--resume', '--batch-size', '200']));
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/started with --batch-size 100, not 200/);
    const count = await cli(gen(out, 5000, ['--resume']));
    expect(count.code).toBe(2);
    expect(count.stderr).toMatch(/--count 3000, not 5000/);
    expect(await codesGenerated(cli)).toBe(mid);
  });

  it('a hand-edited journal: exit 2 naming --restart; --restart keeps the old file aside and starts over', async () => {
    const out = join(dir, 'journal.csv');
    const run = spawnCli(sb, gen(out, 3000));
    await waitForCodes(out, 100, run.exited);
    run.child.kill('SIGKILL');
    await run.exited;
    appendFileSync(out + '.bookdist-job', 'hello\n');
    const r = await cli(gen(out, 3000, ['--resume']));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/journal .* is damaged at line \d+.*--restart/s);
    const again = await cli(gen(out, 3000, ['--resume']));
    expect(again.code).toBe(2);
    const restart = await cli(gen(out, 3000, ['--restart']));
    expect(restart.code, restart.stderr).toBe(0);
    expectExact(out, 3000);
    expect(readdirSync(dir).some((f) => f.startsWith('journal.csv.abandoned-'))).toBe(true);
  });
});
