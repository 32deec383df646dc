// Output to a full disk (/dev/full): one clear line on stderr and exit 1, never a stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { BIN } from '../helpers/cli.js';

describe('writing to a full disk', () => {
  // Listed in the run's summary (test/helpers/not-run.ts) when it cannot run.
  beforeEach((ctx) => {
    if (!existsSync('/dev/full')) ctx.skip('this machine has no /dev/full');
  });
  it('bookdist sandbox openapi > /dev/full says it could not write, exit 1, no stack trace', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bookdist-full-'));
    const fd = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [BIN, 'sandbox', 'openapi'], {
        env: {
          PATH: process.env.PATH,
          HOME: home,
          TMPDIR: process.env.TMPDIR,
          BOOKDIST_DATA_DIR: join(home, 'data'),
          XDG_CONFIG_HOME: join(home, 'config'),
          NO_COLOR: '1',
        },
        stdio: ['ignore', fd, 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/cannot write the output \(ENOSPC\)/);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      closeSync(fd);
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("bookdist --version / -V > /dev/full (the launcher's own fast path, run as a shell runs it): the same line, exit 1", () => {
    const home = mkdtempSync(join(tmpdir(), 'bookdist-full-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    for (const flag of ['--version', '-V']) {
      const r = spawnSync('sh', ['-c', `"${BIN}" ${flag} > /dev/full`], {
        env: { PATH: process.env.PATH, HOME: home, TMPDIR: process.env.TMPDIR },
        encoding: 'utf8',
      });
      expect(r.status, flag).toBe(1);
      expect(r.stderr).toBe('bookdist: cannot write the output (ENOSPC); nothing more was written.\n');
    }
    // control: to a working stdout it prints the version
    const ok = spawnSync('sh', ['-c', `"${BIN}" --version`], {
      env: { PATH: process.env.PATH, HOME: home, TMPDIR: process.env.TMPDIR },
      encoding: 'utf8',
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
