// Output to a full disk (/dev/full): one clear line on stderr and exit 1, never a stack trace.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

describe.runIf(existsSync('/dev/full'))('writing to a full disk', () => {
  it('bookdist sandbox openapi > /dev/full says it could not write, exit 1, no stack trace', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bookdist-full-'));
    const fd = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [BIN, 'sandbox', 'openapi'], {
        env: { PATH: process.env.PATH, HOME: home, BOOKDIST_DATA_DIR: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), NO_COLOR: '1' },
        stdio: ['ignore', fd, 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/cannot write the output \(ENOSPC\)/);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      closeSync(fd);
    }
  });
});
