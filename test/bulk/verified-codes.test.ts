// Issue 28, the job side: every code a batch returns is counted and checked (short, long,
// duplicated, garbage and non-answers), a job belongs to one service and account, its journal
// finds hand edits, and its file is checked to still be the file it writes. In-process, against
// HTTP stubs that misbehave as a captive portal, a proxy or a service in trouble would; each case
// ends with --resume against an honest service and exactly the asked codes, unique.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, stubEnv } from '../helpers/run.js';
import { json, StubRegistry, type StubRequest } from '../helpers/stub-http.js';

const HASH = 'cee313141a0ce9a22774b32f87855d677d864cfb';
const GENERATE = '/v1/codes/generate/';
const instant = { now: () => new Date(), sleep: async () => {} };

let dir: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-verified-'));
  env = stubEnv({ XDG_STATE_HOME: join(dir, 'state') });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Answer = ReturnType<typeof json>;
/** Codes as an honest service makes them: a repeat of an Idempotency-Key gets the same ones. */
const honest = (req: StubRequest, count = req.payload.count as number) =>
  json(200, {
    code: 200,
    success: true,
    codes: Array.from({ length: count }, (_, i) => ({
      code: `${req.headers['idempotency-key']}-${i}`,
      deactivation_date: null,
      limit_days: 0,
    })),
  });

/** A service whose answer to the n-th request is `answer(req, n)` (undefined: the honest one). */
function service(answer: (req: StubRequest, n: number) => Answer | undefined = () => undefined): StubRegistry {
  return new StubRegistry().on('POST', GENERATE, (req, n) => answer(req, n) ?? honest(req), Infinity);
}

const gen = (count: number, out: string, extra: string[] = []) => [
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
  '--out',
  out,
  ...extra,
];
const codesIn = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]);
const rescued = () => {
  const d = join(dir, 'state/bookdist/rescue');
  return existsSync(d)
    ? readdirSync(d).flatMap((f) =>
        readFileSync(join(d, f), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      )
    : [];
};

/** The job ends exact once resumed against an honest service: `count` codes, unique, no journal left. */
async function resumesExact(count: number, out: string): Promise<void> {
  const again = await run(gen(count, out, ['--resume']), { env, http: service(), clock: instant });
  expect(again.code, again.stderr).toBe(0);
  const codes = codesIn(out);
  expect(codes).toHaveLength(count);
  expect(new Set(codes).size).toBe(count);
  expect(existsSync(out + '.bookdist-job')).toBe(false);
}

describe('every code a batch returns is counted and checked', () => {
  it('one code fewer: the rest is asked for with a new Idempotency-Key, the file is exact, exit 0', async () => {
    const out = join(dir, 'short.csv');
    const reg = service((req) =>
      /-\d+$/.test(req.headers['idempotency-key']) ? honest(req, req.payload.count - 1) : undefined,
    );
    const r = await run(gen(250, out), { env, http: reg, clock: instant });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/250 of 250 codes generated/);
    const keys = reg
      .sent(GENERATE)
      .map((q) => `${q.headers['idempotency-key'].replace(/^[0-9a-f]+-/, '')}:${q.payload.count}`);
    expect(keys).toEqual(['1:100', '1-at99:1', '2:100', '2-at99:1', '3:50', '3-at49:1']);
    const codes = codesIn(out);
    expect(codes).toHaveLength(250);
    expect(new Set(codes).size).toBe(250);
  });

  it('always short: only the codes written are counted, the batch stays pending in the journal (exit 6); --resume completes it exactly', async () => {
    const out = join(dir, 'always-short.csv');
    const r = await run(gen(250, out), {
      env,
      http: service((req) => honest(req, Math.max(0, req.payload.count - 1))),
      clock: instant,
    });
    expect(r.code, r.stderr).toBe(6);
    const written = codesIn(out).length;
    expect(r.stderr).toContain(`${written} of 250 codes generated`);
    expect(written).toBeLessThan(250);
    expect(r.stderr).toMatch(/To retry what failed, run:\n {2}bookdist codes generate .*--resume/);
    expect(existsSync(out + '.bookdist-job')).toBe(true);
    await resumesExact(250, out);
  });

  it.each([
    [
      'a 302 to a sign-in page',
      () => ({ status: 302, headers: { location: 'http://portal.example/login' }, text: '' }),
    ],
    [
      'an HTML 200',
      () => ({ status: 200, headers: { 'content-type': 'text/html' }, text: '<html><body>Sign in</body></html>' }),
    ],
    ['an empty 200', () => ({ status: 200, headers: {}, text: '' })],
    ['success: false', () => json(200, { success: false, codes: [] })],
    [
      'truncated JSON',
      () => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        text: '{"code":200,"success":true,"codes":[{"code":"AB',
      }),
    ],
  ])(
    '%s for the 2nd request: outcome unknown, nothing of it written or counted, exit 6; --resume asks again with the same key and ends exact',
    async (_name, bad) => {
      const out = join(dir, 'bad.csv');
      const reg = service((_req, n) => (n === 2 ? bad() : undefined));
      const r = await run(gen(300, out), { env, http: reg, clock: instant });
      expect(r.code, r.stderr).toBe(6);
      expect(r.stderr).toMatch(/not what the interface promises/);
      expect(r.stderr).toContain('200 of 300 codes generated');
      expect(codesIn(out)).toHaveLength(200);
      const again = service();
      const res = await run(gen(300, out, ['--resume']), { env, http: again, clock: instant });
      expect(res.code, res.stderr).toBe(0);
      expect(again.sent(GENERATE).map((q) => q.headers['idempotency-key'].replace(/^[0-9a-f]+-/, ''))).toEqual(['2']);
      expect(new Set(codesIn(out)).size).toBe(300);
    },
  );

  it('every third batch not JSON: exit 6, then --resume ends with exactly the asked codes', async () => {
    const out = join(dir, 'third.csv');
    const r = await run(gen(1000, out), {
      env,
      http: service((_q, n) =>
        n % 3 === 0 ? { status: 200, headers: { 'content-type': 'text/plain' }, text: 'OK' } : undefined,
      ),
      clock: instant,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain(`${codesIn(out).length} of 1000 codes generated`);
    await resumesExact(1000, out);
  });

  it('2,500 identical codes: one written, the duplicates reported and never written; exit 6, then --resume ends exact and unique', async () => {
    const out = join(dir, 'same.csv');
    const same = () =>
      json(200, {
        success: true,
        codes: Array.from({ length: 100 }, () => ({ code: 'SAME-SAME-SAME', deactivation_date: null, limit_days: 0 })),
      });
    const r = await run(gen(2500, out), { env, http: service(same), clock: instant });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/code\(s\) the job already holds \(duplicates\): not written/);
    expect(codesIn(out)).toEqual(['SAME-SAME-SAME']);
    expect(r.stderr).toContain('1 of 2500 codes generated');
    await resumesExact(2500, out);
  });

  it('a long batch (115 for 100): only the asked number written, the extra kept in the rescue file and said; exit 0', async () => {
    const out = join(dir, 'long.csv');
    const r = await run(gen(250, out), {
      env,
      http: service((req) => honest(req, req.payload.count + 15)),
      clock: instant,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(codesIn(out)).toHaveLength(250);
    expect(r.stderr).toMatch(/15 code\(s\) more than the 100 asked: 100 written, the other 15 kept in the rescue file/);
    const extra = rescued();
    expect(extra).toHaveLength(45);
    expect(r.stderr).toContain('The 45 result(s) the service returned that were not written');
    expect(new Set([...codesIn(out), ...extra.map((x) => x.code)]).size).toBe(295);
  });

  it('null, objects and bad shapes are not codes: kept in the rescue file, never written, the rest asked for', async () => {
    const out = join(dir, 'garbage.csv');
    const reg = service((req, n) => {
      if (n !== 1) return undefined;
      const codes: unknown[] = honest(req, 97).text ? JSON.parse(honest(req, 97).text!).codes : [];
      return json(200, { success: true, codes: [...codes, null, { code: { x: 1 } }, { code: 'has space\x1b[8m' }] });
    });
    const r = await run(gen(100, out), { env, http: reg, clock: instant });
    expect(r.code, r.stderr).toBe(0);
    const codes = codesIn(out);
    expect(codes).toHaveLength(100);
    expect(codes.join()).not.toMatch(/null|object|space/);
    expect(rescued().map((x) => x.not_a_code)).toEqual([null, { code: { x: 1 } }, { code: 'has space\x1b[8m' }]);
    expect(r.stderr).toMatch(/3 entries are not a code/);
  });
});

describe('a job belongs to one service and one account, and its journal finds hand edits', () => {
  /** A job of 1000 left unfinished (its 4th request answered 503): 900 codes written, the journal kept. */
  async function unfinished(out: string) {
    const r = await run(gen(1000, out, ['--retries', '0']), {
      env,
      http: service((_q, n) => (n === 4 ? json(503, { code: 503, error: true, message: 'down' }) : undefined)),
      clock: instant,
    });
    expect(r.code).toBe(7);
    expect(existsSync(out + '.bookdist-job')).toBe(true);
  }

  it('--resume against another base URL or account: exit 2 naming both, nothing sent', async () => {
    const out = join(dir, 'svc.csv');
    await unfinished(out);
    const other = service();
    const r = await run(gen(1000, out, ['--resume']), {
      env: { ...env, BOOKDIST_BASE_URL: 'http://other.bookdist.test' },
      http: other,
      clock: instant,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /started against http:\/\/api\.bookdist\.test as stubpartner; this run would send to http:\/\/other\.bookdist\.test as stubpartner/,
    );
    const who = await run(gen(1000, out, ['--resume']), {
      env: { ...env, BOOKDIST_USERNAME: 'otherpartner' },
      http: other,
      clock: instant,
    });
    expect(who.code).toBe(2);
    expect(who.stderr).toMatch(/as stubpartner; this run would send to http:\/\/api\.bookdist\.test as otherpartner/);
    expect(other.requests).toHaveLength(0);
    await resumesExact(1000, out);
  });

  it('a batch line removed by hand: exit 2 naming the line, nothing sent (never 1,100 codes for 1,000)', async () => {
    const out = join(dir, 'edited.csv');
    await unfinished(out);
    const jpath = out + '.bookdist-job';
    const lines = readFileSync(jpath, 'utf8').split('\n');
    writeFileSync(jpath, [...lines.slice(0, 2), ...lines.slice(3)].join('\n'));
    const other = service();
    const r = await run(gen(1000, out, ['--resume']), { env, http: other, clock: instant });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/damaged at line 3 \(its digest does not match/);
    expect(other.requests).toHaveLength(0);
  });

  it('a journal of an older bookdist (no digest, no service) resumes with a warning; a batch line removed from it is still refused', async () => {
    const out = join(dir, 'old.csv');
    await unfinished(out);
    const jpath = out + '.bookdist-job';
    const old = readFileSync(jpath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const { chain: _c, service: _s, ...rest } = JSON.parse(l);
        return JSON.stringify(rest);
      });
    writeFileSync(jpath, [old[0], old[1], old[3]].join('\n') + '\n');
    const r = await run(gen(1000, out, ['--resume']), { env, http: service(), clock: instant });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/written by an older bookdist .* cannot be checked/);
    expect(r.stderr).toMatch(/holds 300 row\(s\) where its job journal accounts for 200/);
    expect(codesIn(out)).toHaveLength(900);
    writeFileSync(jpath, old.join('\n') + '\n');
    const ok = await run(gen(1000, out, ['--resume']), { env, http: service(), clock: instant });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/cannot be checked/);
    expect(new Set(codesIn(out)).size).toBe(1000);
  });

  it('a job_id with CR LF: refused before anything is sent (exit 2), never "outcome unknown"', async () => {
    const out = join(dir, 'crlf.csv');
    await unfinished(out);
    const jpath = out + '.bookdist-job';
    const lines = readFileSync(jpath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const header = { ...lines[0], job_id: 'abc\r\nX-Evil: 1' };
    delete header.chain;
    writeFileSync(
      jpath,
      [header, ...lines.slice(1).map(({ chain: _c, ...r }) => r)].map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    const other = service();
    const r = await run(gen(1000, out, ['--resume']), { env, http: other, clock: instant });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/job_id "abc\\r\\nX-Evil: 1" is not a job id/);
    expect(r.stderr).not.toMatch(/outcome unknown/);
    expect(other.requests).toHaveLength(0);
  });
});

describe('the output stays where the user was told it is', () => {
  it.each([
    ['deleted', (out: string) => rmSync(out)],
    ['replaced by another file', (out: string) => (writeFileSync(out + '.new', 'x\n'), renameSync(out + '.new', out))],
  ])(
    'FILE %s mid-job: exit 1, every code it held in the rescue file, the message says where; --resume writes them to FILE again',
    async (how, act) => {
      const out = join(dir, 'moved.csv');
      const reg = service((_req, n) => {
        if (n === 3) act(out);
        return undefined;
      });
      const r = await run(gen(1000, out), { env, http: reg, clock: instant });
      expect(r.code).toBe(1);
      const kept = rescued();
      expect(kept.length).toBeGreaterThanOrEqual(300);
      expect(r.stderr).toContain(`moved.csv was ${how} while the job was writing it`);
      expect(r.stderr).toContain(
        `The ${kept.length} result(s) the service returned for it are kept in ${join(dir, 'state/bookdist/rescue')}`,
      );
      expect(existsSync(out + '.bookdist-job')).toBe(true);
      if (how === 'deleted') {
        await resumesExact(1000, out);
        const codes = new Set(codesIn(out));
        expect(kept.every((x) => codes.has(x.code))).toBe(true);
      }
    },
  );
});
