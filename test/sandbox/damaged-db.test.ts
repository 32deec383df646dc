// The sandbox's own files (issue 28): a damaged database names its file and what to do, and
// `sandbox reset --yes` works on it (moving it aside, kept); a full disk in a statement is a 503
// with Retry-After (which the job engine retries), never a 500.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../helpers/run.js';
import { toHttpError } from '../../src/sandbox/http/http.js';

let dir: string;
let env: Record<string, string>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-damaged-'));
  env = {
    BOOKDIST_DATA_DIR: dir,
    BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    NO_COLOR: '1',
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a damaged sandbox database', () => {
  it('names its file and the fix; sandbox reset --yes moves it aside (kept) and starts afresh', async () => {
    const junk = 'not a database '.repeat(40);
    writeFileSync(join(dir, 'sandbox.db'), junk);
    const r = await run(['book', 'list', '--limit', '1'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`The sandbox database ${join(dir, 'sandbox.db')} is damaged`);
    expect(r.stderr).toContain('bookdist sandbox reset --yes');
    expect(r.stderr).not.toMatch(/unexpected error|at .*\.ts:\d+/);
    const reset = await run(['sandbox', 'reset', '--yes'], { env });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stderr).toMatch(/moved aside: .*sandbox\.db\.damaged-/);
    const aside = readdirSync(dir).find((f) => f.startsWith('sandbox.db.damaged-'));
    expect(readFileSync(join(dir, aside!), 'utf8')).toBe(junk);
    const again = await run(['book', 'list', '--limit', '1'], { env });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('a full disk in a statement', () => {
  it('SQLITE_FULL is a 503 with Retry-After, not a 500', () => {
    const full = Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 });
    const e = toHttpError(full);
    expect(e.status).toBe(503);
    expect(e.headers['retry-after']).toBe('5');
    expect(e.message).toMatch(/disk is full/);
  });
});
