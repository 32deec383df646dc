// The root help and --version to a file or a pipe go straight to fd 1, without process.stdout and
// the stream modules it loads (src/cli/direct-out.ts, issue 31): the same bytes and exit codes as
// through the stream, run as a shell runs bookdist.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { run } from '../helpers/run.js';
import { tempDir } from './helpers.js';

const hook = pathToFileURL(fileURLToPath(new URL('./fixtures/trace-loads.mjs', import.meta.url))).href;
const t = tempDir('bookdist-direct-out-');
afterAll(() => t.cleanup());
const env = (more: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  HOME: t.dir,
  TMPDIR: process.env.TMPDIR ?? '',
  NO_COLOR: '1',
  ...more,
});

/** bookdist ARGS with stdout a file (what the shell's `>` gives): its bytes and exit code. */
function toFile(args: string[], more: Record<string, string> = {}) {
  const path = join(t.dir, `out-${Math.random().toString(36).slice(2)}.txt`);
  const fd = openSync(path, 'w');
  try {
    const r = spawnSync(BIN, args, { env: env(more), stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
    return { code: r.status, stderr: r.stderr, stdout: readFileSync(path, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

describe('the root help and --version straight to fd 1', () => {
  it('to a file and to a pipe: the bytes the stream path writes (in-process), at $COLUMNS or 80, exit 0', async () => {
    for (const args of [['--help'], ['-h'], []]) {
      for (const columns of [undefined, '50']) {
        const more: Record<string, string> = columns ? { COLUMNS: columns } : {};
        const streamed = await run(args, { env: env(more) });
        expect(streamed.code).toBe(0);
        expect(streamed.stdout).toMatch(/^Usage: bookdist /);
        const file = toFile(args, more);
        expect(file, `${args.join(' ')} COLUMNS=${columns}`).toEqual({ code: 0, stderr: '', stdout: streamed.stdout });
        const piped = spawnSync(BIN, args, { env: env(more), encoding: 'utf8' });
        expect(piped.stdout).toBe(streamed.stdout);
        expect(piped.status).toBe(0);
      }
    }
    // --version: the version the build stamped (in-process, src/version.ts has none)
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V'])
      expect(toFile([flag])).toEqual({ code: 0, stderr: '', stdout: `${version}\n` });
  });

  it('loads none of the stream modules (control: a command that prints through process.stdout does)', () => {
    const builtins = (args: string[]) => {
      const file = join(t.dir, `builtins-${Math.random().toString(36).slice(2)}.txt`);
      const r = spawnSync(BIN, args, {
        env: env({ NODE_OPTIONS: `--import=${hook}`, BOOKDIST_TRACE_BUILTINS: file, BOOKDIST_CONFIG_DIR: t.dir }),
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(file, 'utf8').trim().split('\n');
    };
    for (const args of [['--help'], ['--version'], []]) {
      expect(
        builtins(args).filter((m) => /^(stream|internal\/streams\/writable)$/.test(m)),
        args.join(' '),
      ).toEqual([]);
    }
    expect(builtins(['profile', 'list'])).toContain('internal/streams/writable');
  });

  it('a reader that went away ends it quietly with 0; a full disk is one line and exit 1', async () => {
    for (const args of [['--help'], ['--version'], []]) {
      const child = spawn(BIN, args, { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect({ code, stderr }, args.join(' ')).toEqual({ code: 0, stderr: '' });
    }
    for (const args of [['--help'], ['-h'], []]) {
      const r = spawnSync('sh', ['-c', `"${BIN}" ${args.join(' ')} > /dev/full`], { env: env(), encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr).toBe('bookdist: cannot write the output (ENOSPC); nothing more was written.\n');
    }
  });
});
