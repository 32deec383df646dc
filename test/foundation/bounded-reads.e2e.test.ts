// Bounded reads (issue 28): key, CA and config files are read with a size cap and a time limit,
// interruptibly. A device, a directory, a FIFO with no writer or an oversized file is refused at
// once with exit 2 (the process ends on its own, long before this test's own kill timer); a pipe
// (`--key-file <(pass show key)`) keeps working; a pipe that never ends yields to Ctrl-C.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';

let dir: string;
let env: Record<string, string>;
const USER = '0123456789abcdef0123456789abcd';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-bounded-'));
  // Port 9 (discard) on loopback: nothing listens, so a request that is sent fails at once.
  env = {
    BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    BOOKDIST_DATA_DIR: join(dir, 'data'),
    BOOKDIST_BASE_URL: 'http://127.0.0.1:9',
    BOOKDIST_USERNAME: USER,
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Killed by the test only if it hangs (then `signal` is SIGKILL and the assertions say so). */
const within = (args: string[], extra: Record<string, string> = {}) =>
  runCli(args, { env: { ...env, ...extra }, timeoutMs: 20_000 });
const refused = (r: CliResult, why: RegExp) => {
  expect(r.signal, 'the process hung and was killed').toBeNull();
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(why);
};

/** bash running bookdist with a process substitution as the key file (as `<(pass show key)` is). */
function withSubstitution(substitution: string, args: string[], how: 'flag' | 'env' = 'flag') {
  const line =
    how === 'flag'
      ? `exec "$0" "$@" --key-file <(${substitution})`
      : `BOOKDIST_KEY_FILE=<(${substitution}) exec "$0" "$@"`;
  return spawn('bash', ['-c', line, BIN, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TMPDIR: process.env.TMPDIR,
      NO_COLOR: '1',
      ...env,
    } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('key, CA and config files are read bounded', () => {
  it('a key file that is /dev/zero, a directory, a FIFO with no writer, or a 2 MiB file: exit 2 at once, naming why', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    writeFileSync(join(dir, 'big.pem'), Buffer.alloc(2 << 20, 65));
    refused(
      await within(['whoami'], { BOOKDIST_KEY_FILE: '/dev/zero' }),
      /key file \/dev\/zero .*: it is a device, not a file/,
    );
    refused(await within(['whoami'], { BOOKDIST_KEY_FILE: dir }), /: it is a directory/);
    refused(await within(['whoami'], { BOOKDIST_KEY_FILE: fifo }), /: it is a pipe \(FIFO\) with no writer/);
    refused(
      await within(['whoami'], { BOOKDIST_KEY_FILE: join(dir, 'big.pem') }),
      /: it is 2\.0 MiB, more than the 1\.0 MiB such a file can be/,
    );
  });

  it('a CA file that is /dev/urandom or oversized, for any command and for profile add: exit 2 at once', async () => {
    writeFileSync(join(dir, 'big-ca.pem'), Buffer.alloc(3 << 20, 65));
    refused(
      await within(['whoami', '--ca-file', '/dev/urandom']),
      /CA file \/dev\/urandom .*: it is a device, not a file/,
    );
    refused(
      await within(['whoami'], { BOOKDIST_CA_FILE: join(dir, 'big-ca.pem') }),
      /CA file .*big-ca\.pem .*: it is 3\.0 MiB/,
    );
    const add = await runCli(
      [
        'profile',
        'add',
        '--name',
        'x',
        '--base-url',
        'http://127.0.0.1:9',
        '--ca-file',
        '/dev/zero',
        '--token-stdin',
        '--no-verify',
      ],
      { env, input: 'tok\n', timeoutMs: 20_000 },
    );
    refused(add, /--ca-file \/dev\/zero: cannot read it \(it is a device, not a file\)/);
  });

  it('a config file that is a FIFO with no writer: exit 2 at once', async () => {
    execFileSync('mkdir', [join(dir, 'config')]);
    execFileSync('mkfifo', [join(dir, 'config', 'config.json')]);
    refused(await within(['profile', 'list']), /config file .*config\.json: it is a pipe \(FIFO\) with no writer/);
  });

  it('a key given as a pipe (<(cat key.pem)) still works: profile add stores it', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const child = withSubstitution(`cat '${join(dir, 'key.pem')}'`, [
      'profile',
      'add',
      '--name',
      'piped',
      '--base-url',
      'http://127.0.0.1:9',
      '--username',
      USER,
      '--no-verify',
    ]);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdout.resume();
    const code = await new Promise((r) => child.on('close', r));
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/Saved profile "piped"/);
  });

  it('a pipe whose writer never writes yields to SIGINT: the process dies of it', async () => {
    const child = withSubstitution('exec sleep 4', ['whoami'], 'env');
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdout.resume();
    const ended = new Promise<[number | null, string | null]>((r) => child.on('close', (c, s) => r([c, s])));
    // Give it time to start and reach the read, then interrupt.
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGINT');
    const [code, signal] = await ended;
    expect(signal === 'SIGINT' || code === 130, `code ${code} signal ${signal}: ${stderr}`).toBe(true);
  });
});
