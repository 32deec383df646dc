// A full disk in the middle of a sandbox statement (issue 28, item 10), on a real full disk: the
// sandbox's database on a small tmpfs filled to the last byte, so that SQLite's write hits
// SQLITE_FULL. The client sees a 503 with Retry-After (never a 500), nothing of the write is left
// half done (no code was made), and once there is room again the same request succeeds.
// Mounting needs root (the tests run as root in CI); where mount is refused the tests are listed
// in the run's summary as not run, with the reason (test/helpers/not-run.ts).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/http/server.js';
import { WELL_KNOWN } from '../../src/sandbox/seed.js';
import { run } from '../helpers/run.js';

let dir: string;
let disk: string;
let mounted = false;
let why = '';
let server: RunningSandbox | undefined;
let env: Record<string, string>;
const serverLog: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-fulldisk-'));
  disk = join(dir, 'disk');
  mkdirSync(disk);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=0700', 'tmpfs', disk], { encoding: 'utf8' });
  mounted = m.status === 0;
  if (!mounted) {
    why = `mount -t tmpfs was refused (${(m.stderr || m.error?.message || `exit ${m.status}`).trim()}): a small disk to fill needs root`;
    return;
  }
  server = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    dbPath: join(disk, 'sandbox.db'),
    processDelayMs: 2000,
    workspaces: false,
    journal: false,
    log: (l) => void serverLog.push(l),
  });
  const c = server.credentials;
  env = {
    BOOKDIST_BASE_URL: server.url,
    BOOKDIST_USERNAME: c.partner.username,
    BOOKDIST_KEY_FILE: c.partner.key_file,
    BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    BOOKDIST_DATA_DIR: join(dir, 'data'),
    XDG_STATE_HOME: join(dir, 'state'),
    NO_COLOR: '1',
  };
});

afterAll(async () => {
  await server?.close();
  if (mounted) {
    const u = spawnSync('umount', [disk], { encoding: 'utf8' });
    if (u.status !== 0) spawnSync('umount', ['-l', disk]);
  }
  rmSync(dir, { recursive: true, force: true });
});

beforeEach((ctx) => {
  if (!mounted) ctx.skip(why);
});

/** Fill the disk to the last byte: a file of zeros written until the disk says no more (ENOSPC). */
function fill(): string {
  const path = join(disk, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let size = chunk.length; size >= 1; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

const generated = async () => {
  const r = await run(['codes', 'summary', '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).codes_generated as number;
};

describe('the sandbox on a full disk', () => {
  it('a write that cannot be stored: 503 with Retry-After, nothing of it kept; with room again the same write is done', async () => {
    const before = await generated();
    const generate = [
      'api',
      'POST',
      '/v1/codes/generate/',
      '-F',
      `hash_id="${WELL_KNOWN.readme.hash_id}"`,
      '-f',
      'org=full-disk',
      '-F',
      'count=1000',
      '-i',
      '--retries',
      '0',
    ];
    const filler = fill();
    const full = await run(generate, { env });
    unlinkSync(filler);
    expect(full.stderr).toMatch(/^HTTP 503$/m);
    expect(full.stderr).toMatch(/^retry-after: \d+$/m);
    // Said as what it is (not a generic failed commit), and the server logged no 500 or stack trace.
    expect(full.stderr).toContain(
      "HTTP 503: The sandbox's disk is full; nothing was changed. Retry once there is room.",
    );
    expect(serverLog.filter((l) => / 500 |\n\s+at /.test(l))).toEqual([]);
    expect(full.code).toBe(7);
    expect(full.stderr).not.toMatch(/\n\s+at /);
    // Nothing half done: not one of the 1,000 codes exists.
    expect(await generated()).toBe(before);

    const roomy = await run(generate, { env });
    expect(roomy.code, roomy.stderr).toBe(0);
    expect(await generated()).toBe(before + 1000);
  });
});
