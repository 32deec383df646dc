// The job engine's fault matrix, in-process against HTTP stubs and an injected file-system seam:
// a full disk, stdout that cannot be written (/dev/full), a closed pipe, planted symbolic links, an
// empty file taken over, a journal written with the old key names, a torn journal, a refused job
// leaving nothing behind, 429 bursts (requests counted: retries never nest), and the CI reports.
// What needs processes (kill -9, signals) stays in the *.e2e tests beside this one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
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
import { Writable } from 'node:stream';
import { run, stubEnv } from '../helpers/run.js';
import { json, netError, StubRegistry, type StubRequest } from '../helpers/stub-http.js';
import { digestOf, JOURNAL_SUFFIX } from '../../src/bulk/job/journal.js';
import { fullDisk, recordingFs } from './_fs.js';

const HASH = 'cee313141a0ce9a22774b32f87855d677d864cfb';
const GENERATE = '/v1/codes/generate/';
const instant = { now: () => new Date(), sleep: async () => {} };

let dir: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-engine-'));
  env = stubEnv({ XDG_STATE_HOME: join(dir, 'state') });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A service that generates codes as the sandbox does: a repeat of an Idempotency-Key gets the same codes. */
function codesService(reg = new StubRegistry()): StubRegistry {
  return reg.on(
    'POST',
    GENERATE,
    (req: StubRequest) => {
      const key = req.headers['idempotency-key'];
      const codes = Array.from({ length: req.payload.count }, (_, i) => ({
        code: `${key}-${i}`,
        deactivation_date: null,
        limit_days: 0,
      }));
      return json(200, { code: 200, success: true, codes });
    },
    Infinity,
  );
}

const gen = (count: number, extra: string[] = []) => [
  'codes',
  'generate',
  '--hash-id',
  HASH,
  '--org',
  'acme',
  '--count',
  String(count),
  '--batch-size',
  '100',
  '--concurrency',
  '1',
  ...extra,
];
const codesIn = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]);
const rescueFiles = () =>
  existsSync(join(dir, 'state/bookdist/rescue'))
    ? readdirSync(join(dir, 'state/bookdist/rescue')).map((f) => join(dir, 'state/bookdist/rescue', f))
    : [];
/** The files of the test's directory, less the state directory (the ledger of writes lives there: issue 34). */
const filesLeft = () =>
  readdirSync(dir)
    .filter((f) => f !== 'state')
    .sort();
const ndjson = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('job engine, in-process', () => {
  it('writes FILE 0600, then removes its journal and lock', async () => {
    const reg = codesService();
    const out = join(dir, 'c.csv');
    const r = await run(gen(250, ['--out', out]), { env, http: reg, clock: instant });
    expect(r.code, r.stderr).toBe(0);
    expect(codesIn(out)).toHaveLength(250);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(filesLeft()).toEqual(['c.csv']);
    expect(reg.sent(GENERATE)).toHaveLength(3);
    reg.verify();
  });

  it('durability order (the fs seam records writes and syncs): FILE is synced before each journal line is written, and each journal line is synced before more rows are written', async () => {
    const reg = codesService();
    const out = join(dir, 'order.csv');
    const journal = out + JOURNAL_SUFFIX;
    const fs = recordingFs();
    const r = await run(gen(300, ['--out', out]), { env, http: reg, clock: instant, fs });
    expect(r.code, r.stderr).toBe(0);
    const dirty = new Set<string>();
    const journalLines: string[] = [];
    for (const e of fs.log) {
      if (e.op === 'sync') {
        dirty.delete(e.path);
        continue;
      }
      if (e.path === journal) {
        expect(dirty.has(out), `journal line written while rows of ${out} were not synced: ${e.text}`).toBe(false);
        journalLines.push(e.text!);
      }
      if (e.path === out)
        expect(dirty.has(journal), 'rows written while the journal line before them was not synced').toBe(false);
      dirty.add(e.path);
    }
    expect([...dirty]).toEqual([]);
    // Three batches of 100: three journal lines, each naming where FILE ended after its rows.
    expect(journalLines).toHaveLength(3);
    expect(fs.log.filter((e) => e.op === 'write' && e.path === out).length).toBeGreaterThanOrEqual(4);
  });

  it('a full disk (ENOSPC through the fs seam): exit 1, only what was written counted, the rest rescued 0600; the printed command resumes exactly', async () => {
    const reg = codesService();
    const out = join(dir, 'full.csv');
    // Header (41 bytes) and a row of ~60 bytes: the disk fills up in the second batch.
    const r = await run(gen(300, ['--out', out]), { env, http: reg, clock: instant, fs: fullDisk(out, 9000) });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/writing \S+full\.csv failed: ENOSPC .* 100 of 300 codes generated/);
    const [rescue] = rescueFiles();
    expect(r.stderr).toContain(`kept in ${rescue} (readable only by you)`);
    expect(statSync(rescue).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'state/bookdist/rescue')).mode & 0o777).toBe(0o700);
    const kept = ndjson(rescue).map((x) => x.code);
    expect(kept.length).toBeGreaterThanOrEqual(100);
    expect(statSync(out).size).toBe(9000);

    const command = /continue:\n {2}bookdist (.*)\n/.exec(r.stderr)?.[1];
    expect(command).toBe(
      `codes generate --hash-id ${HASH} --org acme --count 300 --batch-size 100 --concurrency 1 --out ${out} --resume`,
    );
    const again = await run(command!.split(' '), { env, http: reg, clock: instant });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/cut \d+ byte\(s\) after the last complete batch/);
    const codes = codesIn(out);
    expect(codes).toHaveLength(300);
    expect(new Set(codes).size).toBe(300);
    // What was rescued is what the resumed batches fetched again with their keys: nothing was lost.
    for (const c of kept) expect(codes).toContain(c);
  });

  it('stdout that cannot be written (/dev/full): exit 1, "0 of 1001" written, every code rescued', async () => {
    const reg = codesService();
    // main listens for errors on process.stdout; this stream stands in for it.
    const full = new Writable({
      write: (_c, _e, cb) => cb(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })),
    }).on('error', () => {});
    const r = await run(gen(1001, ['-o', 'ndjson']), { env, http: reg, clock: instant, stdout: full });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/writing stdout failed: ENOSPC .*0 of 1001 codes generated/);
    const [rescue] = rescueFiles();
    expect(r.stderr).toContain(rescue);
    const sent = reg.sent(GENERATE).length;
    expect(ndjson(rescue)).toHaveLength(Math.min(1001, sent * 100));
  });

  it('a closed pipe (EPIPE) stays the quiet stop it was: exit 1, no rescue file', async () => {
    const reg = codesService();
    const closed = new Writable({
      write: (_c, _e, cb) => cb(Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' })),
    }).on('error', () => {});
    const r = await run(gen(300, ['-o', 'ndjson']), { env, http: reg, clock: instant, stdout: closed });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the reader closed the pipe/);
    expect(rescueFiles()).toEqual([]);
  });

  it('--out that is a symbolic link, dangling or not, is refused (exit 2) on a new run and on --resume; nothing is written anywhere', async () => {
    const reg = new StubRegistry();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep\n');
    symlinkSync(victim, join(dir, 'to-victim.csv'));
    symlinkSync(join(dir, 'nowhere.csv'), join(dir, 'dangling.csv'));
    // A valid-looking journal beside the link does not make --resume follow it.
    writeFileSync(
      join(dir, 'to-victim.csv.bookdist-job'),
      JSON.stringify({ v: 1, verb: 'codes generate', job_id: 'j', started: '', format: 'csv', identity: {} }) + '\n',
    );
    const before = readdirSync(dir).sort();
    for (const name of ['to-victim.csv', 'dangling.csv']) {
      for (const extra of [[], ['--resume']]) {
        const r = await run(gen(10, ['--out', join(dir, name), ...extra]), { env, http: reg, clock: instant });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(
          /is a symbolic link; bookdist never writes results through one .*Nothing was written\./,
        );
      }
    }
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readFileSync(victim, 'utf8')).toBe('keep\n');
    expect(reg.requests).toHaveLength(0);
  });

  it('a link planted at every name a job writes (found by listing what an interrupted run leaves, and the lock) is never written through', async () => {
    // What a job writes beside FILE: list it from a run stopped by a full disk, plus the lock it held.
    const probe = join(dir, 'probe.csv');
    await run(gen(300, ['--out', probe]), { env, http: codesService(), clock: instant, fs: fullDisk(probe, 9000) });
    const suffixes = [
      ...readdirSync(dir)
        .filter((f) => f.startsWith('probe.csv'))
        .map((f) => f.slice('probe.csv'.length)),
      '.bookdist-lock',
    ];
    expect(suffixes.sort()).toEqual(['', '.bookdist-job', '.bookdist-lock']);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep\n', { mode: 0o644 });
    for (const suffix of suffixes) {
      for (const extra of [[], ['--resume'], ['--restart']]) {
        const out = join(dir, `t${suffix.replace(/\W/g, '')}${extra.join('')}.csv`);
        symlinkSync(victim, out + suffix);
        const r = await run(gen(10, ['--out', out, ...extra]), { env, http: codesService(), clock: instant });
        expect(readFileSync(victim, 'utf8'), `${suffix} ${extra}`).toBe('keep\n');
        expect(statSync(victim).mode & 0o777).toBe(0o644);
        // Refused (exit 2), or (--resume/--restart over a planted lock or journal) the link was
        // removed and replaced by the job's own file, never followed.
        if (r.code === 0)
          expect(
            suffix === '' || existsSync(out + suffix) ? lstatSync(out + suffix).isSymbolicLink() : false,
            `${suffix} ${extra}`,
          ).toBe(false);
        else expect(r.code, r.stderr).toBe(2);
      }
    }
  });

  it("an existing empty file of the user's is taken over and set to 0600; one with another hard link is refused", async () => {
    const reg = codesService();
    const out = join(dir, 'e.csv');
    writeFileSync(out, '');
    chmodSync(out, 0o644);
    const r = await run(gen(10, ['--out', out]), { env, http: reg, clock: instant });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(codesIn(out)).toHaveLength(10);

    const linked = join(dir, 'l.csv');
    writeFileSync(linked, '');
    linkSync(linked, join(dir, 'other-name'));
    const refused = await run(gen(10, ['--out', linked]), { env, http: reg, clock: instant });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/exists and it has other hard links/);
    expect(readFileSync(linked, 'utf8')).toBe('');
  });

  it('resumes a journal written with the old key names (b, end, h) and a torn last line: only the rest is sent', async () => {
    const reg = codesService();
    const out = join(dir, 'old.csv');
    const head = 'code,deactivation_date,limit_days,hash_id,batch\n';
    const rows = (b: number, n: number) =>
      Array.from({ length: n }, (_, i) => `job-${b}-${i},,0,${HASH},${b}\n`).join('');
    const valid = head + rows(1, 100) + rows(2, 100);
    writeFileSync(out, valid + rows(3, 40), { mode: 0o600 }); // batch 3 torn by a crash
    const identity = {
      '--hash-id': HASH,
      '--org': 'acme',
      '--count': 300,
      '--limit-days': null,
      '--expires': null,
      '--samples': false,
      '--label': null,
      '--batch-size': 100,
    };
    const journal = [
      { v: 1, verb: 'codes generate', job_id: 'job', started: '2026-01-01T00:00:00.000Z', format: 'csv', identity },
      { b: 1, end: Buffer.byteLength(head + rows(1, 100)), h: digestOf([100]) },
      { b: 2, end: Buffer.byteLength(valid), h: digestOf([100]) },
    ];
    writeFileSync(out + '.bookdist-job', journal.map((l) => JSON.stringify(l)).join('\n') + '\n{"b":3,"en', {
      mode: 0o600,
    });
    const r = await run(gen(300, ['--out', out, '--resume']), { env, http: reg, clock: instant });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/300 of 300 codes \(200 from an earlier run, 100 now\)/);
    expect(reg.sent(GENERATE).map((q) => q.headers['idempotency-key'])).toEqual(['job-3']);
    const codes = codesIn(out);
    expect(codes).toHaveLength(300);
    expect(new Set(codes).size).toBe(300);
    expect(existsSync(out + '.bookdist-job')).toBe(false);
  });

  it('the journal says what it holds: batch, output_end, input_digest', async () => {
    const reg = codesService();
    const out = join(dir, 'j.csv');
    const full = await run(gen(300, ['--out', out]), { env, http: reg, clock: instant, fs: fullDisk(out, 9000) });
    expect(full.code).toBe(1);
    const lines = readFileSync(out + '.bookdist-job', 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[1]).toEqual({
      batch: 1,
      input_digest: digestOf([100]),
      output_end: expect.any(Number),
      chain: expect.any(String),
    });
  });

  it('a job refused before its first request (a bad CSV record) leaves no journal, lock or results file', async () => {
    const reg = new StubRegistry();
    const csv = join(dir, 'roster.csv');
    writeFileSync(csv, 'hash_id,username,price\n"unclosed,u,1\n' + `${HASH},u2,1\n`.repeat(3000));
    const r = await run(['access', 'allow', '--from-csv', csv, '--results', join(dir, 'r.csv')], {
      env,
      http: reg,
      clock: instant,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /--from-csv \S+roster\.csv: line 2 \(record 2, counting the header row\): a quoted field is never closed/,
    );
    expect(readdirSync(dir).sort()).toEqual(['roster.csv']);
    const again = await run(['access', 'allow', '--from-csv', csv, '--results', join(dir, 'r.csv')], {
      env,
      http: reg,
      clock: instant,
    });
    expect(again.stderr).not.toMatch(/interrupted job/);
  });

  it('a quote inside an unquoted field (csv-parse INVALID_OPENING_QUOTE) refuses the job like any CSV error: exit 2 naming the line and column, nothing sent or left behind', async () => {
    const reg = new StubRegistry();
    const csv = join(dir, 'roster.csv');
    writeFileSync(
      csv,
      `hash_id,username,price\n${HASH},u1,1\n${HASH},The "Best" Tides,1\n` + `${HASH},u2,1\n`.repeat(3000),
    );
    const r = await run(['access', 'allow', '--from-csv', csv, '--results', join(dir, 'r.csv')], {
      env,
      http: reg,
      clock: instant,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /--from-csv \S+roster\.csv: line 3 \(record 3, counting the header row\): a quote inside the unquoted field username \(after "The "\); to keep the quote, enclose the whole field in double quotes/,
    );
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(readdirSync(dir).sort()).toEqual(['roster.csv']);
    const again = await run(['access', 'allow', '--from-csv', csv, '--results', join(dir, 'r.csv')], {
      env,
      http: reg,
      clock: instant,
    });
    expect(again.stderr).not.toMatch(/interrupted job/);
  });

  it('a quote inside an unquoted field after the first batches: exit 2 naming its line, the rows before it kept with the journal; fixed, --resume does the rest once', async () => {
    const USER = 'd75a3b55f68088553c63bde47ad19a';
    const reg = new StubRegistry().on(
      'POST',
      '/v1/access/allow/',
      json(200, { code: 200, success: true, message: 'Access granted.' }),
      Infinity,
    );
    const csv = join(dir, 'roster.csv');
    const out = join(dir, 'r.csv');
    // Past csv-parse's first 64 KiB read, so that batches are sent before the parser meets line 3002.
    const rows = (bad: string) =>
      [
        'hash_id,username,price',
        ...Array.from({ length: 3000 }, () => `${HASH},${USER},1`),
        bad,
        ...Array.from({ length: 99 }, () => `${HASH},${USER},1`),
      ].join('\n') + '\n';
    writeFileSync(csv, rows(`${HASH},${USER},1 "each"`));
    const args = ['access', 'allow', '--from-csv', csv, '--results', out, '--concurrency', '1'];
    const r = await run(args, { env, http: reg, clock: instant });
    expect(r.code, r.stderr).toBe(2);
    const m = r.stderr.match(
      /--from-csv \S+roster\.csv: line 3002 \(record 3002, counting the header row\): a quote inside the unquoted field price \(after "1 "\).*\. (\d+) rows?: \1 ok, .* before it\. Fix the input, then continue:\n {2}bookdist access allow .*--resume\n/s,
    );
    expect(m, r.stderr).not.toBeNull();
    const before = Number(m![1]);
    expect(before).toBeGreaterThan(0);
    expect(reg.sent('/v1/access/allow/')).toHaveLength(before);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(before + 1);
    expect(existsSync(out + '.bookdist-job')).toBe(true);

    writeFileSync(csv, rows(`${HASH},${USER},1`));
    const again = await run([...args, '--resume'], { env, http: reg, clock: instant });
    expect(again.code, again.stderr).toBe(0);
    expect(reg.sent('/v1/access/allow/')).toHaveLength(3100);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3101);
    expect(filesLeft()).toEqual(['r.csv', 'roster.csv']);
  });

  it('lost answers (the connection reset after the service made the codes): where the service honours keys the client repeats the request once with its Idempotency-Key, the file is exact; elsewhere nothing is repeated blindly', async () => {
    const seen = new Map<string, number>();
    const reg = new StubRegistry().on(
      'POST',
      GENERATE,
      (req: StubRequest) => {
        const key = req.headers['idempotency-key'];
        seen.set(key, (seen.get(key) ?? 0) + 1);
        if (seen.get(key) === 1) return netError('ECONNRESET', 'socket hang up');
        return json(200, {
          code: 200,
          success: true,
          codes: Array.from({ length: req.payload.count }, (_, i) => ({
            code: `${key}-${i}`,
            deactivation_date: null,
            limit_days: 0,
          })),
        });
      },
      Infinity,
    );
    const out = join(dir, 'lost.csv');
    const r = await run(gen(500, ['--out', out]), {
      env: { ...env, BOOKDIST_IDEMPOTENCY_KEYS: '1' },
      http: reg,
      clock: instant,
    });
    expect(r.code, r.stderr).toBe(0);
    expect([...seen.values()]).toEqual([2, 2, 2, 2, 2]);
    expect(new Set(codesIn(out)).size).toBe(500);

    // Without the profile's word that keys are honoured: one request per batch, each batch's
    // outcome unknown (not written, not repeated), exit 6 with the command that resumes the job.
    seen.clear();
    const out2 = join(dir, 'lost2.csv');
    const r2 = await run(gen(500, ['--out', out2]), { env, http: reg, clock: instant });
    expect(r2.code, r2.stderr).toBe(6);
    expect(r2.stderr).toMatch(/the outcome is unknown/);
    expect(r2.stderr).toMatch(/To retry what failed, run:\n {2}bookdist codes generate .*--resume\n/);
    expect([...seen.values()]).toEqual([1, 1, 1, 1, 1]);
  });

  it('a 429 burst: each request is sent --retries + 1 times by the client alone, and the breaker stops the job after concurrency+2 failed requests', async () => {
    const reg = new StubRegistry().on(
      'POST',
      GENERATE,
      json(429, { code: 429, error: true, message: 'Too many requests' }, { 'retry-after': '1' }),
      Infinity,
    );
    const out = join(dir, 'burst.csv');
    const r = await run(gen(1000, ['--out', out, '--retries', '2']), { env, http: reg, clock: instant });
    expect(r.code, r.stderr).toBe(7);
    // 3 batches (the breaker's limit for --concurrency 1) of 3 attempts each; the other 7 unsent.
    expect(reg.sent(GENERATE)).toHaveLength(9);
    expect(r.stderr).toMatch(/stayed unavailable for 3 requests in a row/);
  });

  it('in CI: a Markdown summary appended to GITHUB_STEP_SUMMARY and an ::error:: annotation on GitHub Actions', async () => {
    const reg = new StubRegistry().on(
      'POST',
      GENERATE,
      json(503, { code: 503, error: true, message: 'Service temporarily unavailable.' }),
      Infinity,
    );
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const out = join(dir, 'ci.csv');
    const r = await run(gen(200, ['--out', out, '--retries', '0']), {
      env: { ...env, GITHUB_STEP_SUMMARY: summary, GITHUB_ACTIONS: 'true' },
      http: reg,
      clock: instant,
    });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(
      /^::error title=bookdist codes generate \(exit 7\)::codes generate: 0 of 200 codes generated .*%0A {2}bookdist codes generate .*--resume$/m,
    );
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n### bookdist codes generate: exit 7\n')).toBe(true);
    expect(md).toContain('| status | count |');
    expect(md).toContain(`Output: \`${out}\``);
    expect(md).toContain('```sh\nbookdist codes generate');
    expect(md).toContain(`--out ${out} --retries 0 --resume\n\`\`\``);

    const ok = codesService();
    const fine = await run(gen(10, ['-o', 'ndjson']), {
      env: { ...env, GITHUB_STEP_SUMMARY: summary, GITHUB_ACTIONS: 'true' },
      http: ok,
      clock: instant,
    });
    expect(fine.code).toBe(0);
    expect(fine.stderr).not.toContain('::error');
    expect(readFileSync(summary, 'utf8')).toMatch(
      /### bookdist codes generate: done\n[\s\S]*\| code \| 10 \|\n[\s\S]*Output: stdout\n+$/,
    );
  });
});

describe('retry hints run as printed', () => {
  it('a stdout job: the command with what is left and every flag, its note a shell comment', async () => {
    let n = 0;
    // The second batch's request fails: 200 of 300 codes printed, 100 left.
    const reg = new StubRegistry().on(
      'POST',
      GENERATE,
      (req: StubRequest) => {
        if (++n === 2) return json(503, { code: 503, error: true, message: 'Service temporarily unavailable.' });
        return json(200, {
          code: 200,
          success: true,
          codes: Array.from({ length: req.payload.count }, (_, i) => ({
            code: `${n}-${i}`,
            deactivation_date: null,
            limit_days: 0,
          })),
        });
      },
      Infinity,
    );
    const r = await run(gen(300, ['-o', 'ndjson', '--retries', '0']), { env, http: reg, clock: instant });
    expect(r.code).toBe(7);
    const hint = /To retry what failed, run:\n {2}(.*)\n/.exec(r.stderr)?.[1];
    expect(hint).toBe(
      `bookdist codes generate --hash-id ${HASH} --org acme --count 100 --batch-size 100 --concurrency 1 --output ndjson --retries 0  # the codes printed so far are valid; add --out FILE to make a job resumable`,
    );
    const again = await run(hint!.split('  # ')[0].split(' ').slice(1), { env, http: codesService(), clock: instant });
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n')).toHaveLength(100);
  });

  const hash = (i: number) => i.toString(16).padStart(40, 'a');
  /** book.process: books < `down` answer 503 (unavailable), the book `missing` 404, the rest are queued. */
  function processService(down: number, missing?: string) {
    return new StubRegistry().on(
      'POST',
      /^\/v1\/book\/[0-9a-f]{40}\/process\/$/,
      (req: StubRequest) => {
        const h = req.path.split('/')[3];
        if (h === missing) return json(404, { code: 404, error: true, message: 'Book not found' });
        if (parseInt(h, 16) - parseInt(hash(0), 16) < down)
          return json(503, { code: 503, error: true, message: 'Service temporarily unavailable.' });
        return json(200, { code: 200, success: true, message: 'Book queued for processing' });
      },
      Infinity,
    );
  }

  it('few failures: the books a retry may mend as arguments, every flag kept, refusals left out; the command runs', async () => {
    const books = [hash(0), hash(1), hash(5)];
    const reg = processService(2, hash(5));
    const r = await run(
      ['book', 'process', ...books, '--urgent', '--concurrency', '2', '--retries', '0', '--timeout', '20s'],
      { env, http: reg, clock: instant },
    );
    expect(r.code, r.stderr).toBe(6);
    const hint = /To retry what failed, run:\n {2}(.*)\n/.exec(r.stderr)?.[1];
    expect(hint).toBe(`bookdist book process --urgent --concurrency 2 ${hash(0)} ${hash(1)} --timeout 20s --retries 0`);
    const again = await run(hint!.split(' ').slice(1), { env, http: processService(0), clock: instant });
    expect(again.code, again.stderr).toBe(0);
  });

  it('many failures: the same command with the books on stdin from a here-document, no literal "..."', async () => {
    // (A stdout job's other hints end in a shell comment, so that they too run as printed.)
    const books = Array.from({ length: 12 }, (_, i) => hash(i));
    const r = await run(['book', 'process', ...books, '--retries', '0'], {
      env,
      http: processService(12),
      clock: instant,
    });
    expect(r.code).toBe(7);
    const m =
      /To retry what failed, run:\n {2}(bookdist book process --from-file - --retries 0 <<'EOF')\n([\s\S]*?)\nEOF\n/.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    expect(r.stderr).not.toContain('...');
    expect(m![2].split('\n').sort()).toEqual(books);
    const args = m![1].replace(" <<'EOF'", '').split(' ').slice(1);
    const again = await run(args, { env, http: processService(0), clock: instant, input: m![2] + '\n' });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/12 books: 12 queued/);
  });
});
