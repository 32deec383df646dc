// `bookdist profile add`: flags in scripts, prompts on a terminal. Secrets come from stdin or a
// hidden prompt, never from argv. The key is checked and copied into the config dir (0600).
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError, messageOf } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { readStore, removeKeyCopy, updateStore, writeKeyCopy, type ProfileData } from '../../config/store.js';
import { emit } from '../../output/index.js';
import { cellText as t } from '../../output/format.js';
import { readAll } from '../../util/io.js';
import { readBounded, unreadableReason } from '../../util/read-bounded.js';
import { homeDir } from '../../util/home.js';
import type { VerbInput } from '../define.js';
import type { add } from './add.cmd.js';
import { checkName, checkUrl, publicView } from './parts/common.js';

export interface AddOptions {
  name?: string;
  baseUrl?: string;
  storeUrl?: string;
  username?: string;
  keyFile?: string;
  sharedKey?: string;
  token?: string;
  /** --ca-file: a CA bundle the profile trusts besides Node's roots. */
  caFile?: string;
  /** --idempotency-keys: the service honours Idempotency-Key. */
  idempotencyKeys?: boolean;
  use: boolean;
  force: boolean;
  /** Check the credentials with GET /profile/ before storing (default; --no-verify turns it off). */
  verify: boolean;
}

export async function parse({ opts: o }: VerbInput<typeof add>, ctx: Context): Promise<AddOptions> {
  if (o.sharedKeyStdin && o.tokenStdin) {
    throw usageError(
      '--shared-key-stdin and --token-stdin both read stdin; add the profile with one and then again with --force and the other, or use the prompts on a terminal.',
    );
  }
  if (o.keyFile && o.sharedKeyStdin)
    throw usageError('Give either --key-file (CryptoAuth) or --shared-key-stdin (SharedKeyAuth), not both.');
  const out: AddOptions = {
    name: o.name !== undefined ? checkName(o.name) : undefined,
    baseUrl: ctx.globals.baseUrl !== undefined ? checkUrl(ctx.globals.baseUrl, '--base-url') : undefined,
    storeUrl: o.storeUrl !== undefined ? checkUrl(o.storeUrl, '--store-url') : undefined,
    username: o.username !== undefined ? checkUsername(o.username) : undefined,
    keyFile: o.keyFile,
    caFile: ctx.globals.caFile !== undefined ? await checkCaFile(ctx.globals.caFile) : undefined,
    idempotencyKeys: o.idempotencyKeys === true ? true : undefined,
    use: Boolean(o.use),
    force: Boolean(o.force),
    verify: o.verify,
  };
  if (o.sharedKeyStdin || o.tokenStdin) {
    const flag = o.sharedKeyStdin ? '--shared-key-stdin' : '--token-stdin';
    const secret = (await readAll(ctx.io.stdin)).trim();
    if (!secret)
      throw usageError(
        `${flag}: stdin was empty; pipe the secret in, e.g. printf %s "$SECRET" | bookdist profile add ... ${flag}`,
      );
    if (/\s/.test(secret))
      throw usageError(`${flag}: the secret read from stdin contains whitespace; give exactly one value.`);
    if (o.sharedKeyStdin) out.sharedKey = secret;
    else out.token = secret;
  }
  if (!ctx.interactive) {
    // In scripts nothing is asked: name what is missing, at once.
    if (!out.name) throw usageError('Missing --name: the name of the profile to add.');
    if (!out.baseUrl) throw usageError('Missing --base-url: the service base URL of the profile.');
    if (!out.keyFile && !out.sharedKey && !out.token) {
      throw usageError('Missing credentials: give --key-file <pem>, --shared-key-stdin or --token-stdin.');
    }
    if ((out.keyFile || out.sharedKey) && !out.username) {
      throw usageError(
        `Missing --username: ${out.keyFile ? '--key-file' : '--shared-key-stdin'} signs requests as a user.`,
      );
    }
  }
  return out;
}

/** A CA bundle must be readable and hold a PEM certificate; stored as an absolute path. */
async function checkCaFile(file: string): Promise<string> {
  const nodePath = await import('node:path');
  const path = nodePath.resolve(file);
  let pem: string;
  try {
    pem = await readBounded(path);
  } catch (e) {
    throw usageError(`--ca-file ${file}: cannot read it (${unreadableReason(e)}).`);
  }
  if (!/-----BEGIN CERTIFICATE-----/.test(pem))
    throw usageError(`--ca-file ${file}: holds no PEM certificate (-----BEGIN CERTIFICATE-----).`);
  return path;
}

/** A username of the service: 30 lowercase hexadecimal characters. */
export const USERNAME = /^[0-9a-f]{30}$/;

/**
 * A username of the service. At a prompt, hex typed in upper case is lower-cased (the service's
 * usernames are lower-case hex: an upper-case copy names the same account); a flag in a script is
 * taken as written and refused, so the script gets fixed. The message names the flag only when
 * the flag gave the value.
 */
function checkUsername(v: string, given: 'flag' | 'prompt' = 'flag'): string {
  const s = v.trim();
  if (USERNAME.test(s)) return s;
  if (given === 'prompt' && /^[0-9a-fA-F]{30}$/.test(s)) return s.toLowerCase();
  const why = /^[0-9a-fA-F]{30}$/.test(s)
    ? 'it has upper-case letters'
    : /^[0-9a-fA-F]*$/.test(s)
      ? `it has ${s.length} characters`
      : 'it has other characters';
  const what = given === 'flag' ? `--username ${JSON.stringify(v)} is` : `${JSON.stringify(s)} is`;
  throw usageError(
    `${what} not a username of the service: 30 ${given === 'flag' ? 'lowercase ' : ''}hex characters (0-9, a-f) expected, ${why}. ` +
      '`bookdist whoami` run with working credentials shows it.',
  );
}

/** `~` and `~/...` at the start of a path typed at a prompt (no shell expanded it), from HOME. */
export function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  const p = path.trim();
  if (p !== '~' && !p.startsWith('~/')) return p;
  const home = homeDir(env);
  return p === '~' ? home : join(home, p.slice(2));
}

/**
 * Read and check a key file: a missing or unreadable file, or a key that is not RSA, is exit 2
 * (invalid input, named with --key-file when the flag gave it).
 */
export async function readRsaKey(path: string, given: 'flag' | 'prompt' = 'flag'): Promise<string> {
  const from = given === 'flag' ? ' (from --key-file)' : '';
  let pem: string;
  try {
    pem = await readBounded(path);
  } catch (e) {
    throw new CliError(`Cannot read the key file ${path}${from}: ${unreadableReason(e)}.`, ExitCode.USAGE);
  }
  const { loadRsaPrivateKey } = await import('../../api/wire.js');
  try {
    loadRsaPrivateKey(pem);
  } catch (e) {
    throw new CliError(`The key file ${path}${from} ${messageOf(e)}.`, ExitCode.USAGE);
  }
  return pem;
}

async function prompt(o: AddOptions, ctx: Context): Promise<void> {
  const { input, password, select, confirm } = await import('@inquirer/prompts');
  const output = ctx.io.stderr.isTTY ? ctx.io.stderr : ctx.io.stdout;
  const io = { input: ctx.io.stdin, output, signal: ctx.signal };
  const valid = (check: (v: string) => unknown) => (v: string) => {
    try {
      check(v);
      return true;
    } catch (e) {
      return messageOf(e);
    }
  };
  o.name ??= await input({ message: 'Profile name', validate: valid((v) => checkName(v.trim(), 'name')) }, io).then(
    (v) => v.trim(),
  );
  o.baseUrl ??= checkUrl(
    (await input({ message: 'Base URL of the service', validate: valid((v) => checkUrl(v.trim(), 'URL')) }, io)).trim(),
    '--base-url',
  );
  if (o.storeUrl === undefined) {
    const s = (
      await input(
        {
          message: 'Store (price comparison) URL, empty for the base URL',
          default: '',
          validate: valid((v) => !v.trim() || checkUrl(v.trim(), 'URL')),
        },
        io,
      )
    ).trim();
    if (s) o.storeUrl = checkUrl(s, '--store-url');
  }
  if (!o.keyFile && !o.sharedKey && !o.token) {
    const mode = await select(
      {
        message: 'Authentication',
        choices: [
          { name: 'RSA private key (CryptoAuth)', value: 'crypto' },
          { name: 'Shared key (SharedKeyAuth)', value: 'shared' },
          { name: 'Access-control token only', value: 'token' },
        ],
      },
      io,
    );
    if (mode === 'crypto') {
      const typed = await input(
        {
          message: 'Path of the PEM private key',
          validate: async (v) => {
            try {
              await readRsaKey(expandHome(v, ctx.io.env), 'prompt');
              return true;
            } catch (e) {
              return messageOf(e);
            }
          },
        },
        io,
      );
      o.keyFile = expandHome(typed, ctx.io.env);
    } else if (mode === 'shared') {
      o.sharedKey = (
        await password(
          { message: 'Shared key', mask: true, validate: (v) => (v.trim() ? true : 'The shared key is empty.') },
          io,
        )
      ).trim();
    } else {
      o.token = (
        await password(
          { message: 'Access-control token', mask: true, validate: (v) => (v.trim() ? true : 'The token is empty.') },
          io,
        )
      ).trim();
    }
  }
  if ((o.keyFile || o.sharedKey) && !o.username) {
    o.username = checkUsername(
      await input({ message: 'Username of the account', validate: valid((v) => checkUsername(v, 'prompt')) }, io),
      'prompt',
    );
  }
  if (!o.token && (o.keyFile || o.sharedKey)) {
    if (await confirm({ message: 'Also store an access-control token?', default: false }, io)) {
      o.token = (
        await password(
          { message: 'Access-control token', mask: true, validate: (v) => (v.trim() ? true : 'The token is empty.') },
          io,
        )
      ).trim();
    }
  }
}

export async function run(o: AddOptions, ctx: Context): Promise<void> {
  const dir = configDir(ctx.io.env);
  const before = await readStore(dir);
  // Check what the flags gave before asking anything, so a typo fails at once.
  if (o.name && before.profiles[o.name] && !o.force) {
    throw new CliError(
      `Profile "${o.name}" already exists. Add --force to replace it, or \`bookdist profile remove ${o.name}\` first.`,
      ExitCode.CONFLICT,
    );
  }
  let pem = o.keyFile ? await readRsaKey(o.keyFile) : undefined;
  const incomplete =
    !o.name || !o.baseUrl || (!o.keyFile && !o.sharedKey && !o.token) || ((o.keyFile || o.sharedKey) && !o.username);
  if (ctx.interactive && incomplete) {
    await prompt(o, ctx);
    if (before.profiles[o.name!] && !o.force) {
      throw new CliError(`Profile "${o.name}" already exists. Add --force to replace it.`, ExitCode.CONFLICT);
    }
    if (o.keyFile && !pem) pem = await readRsaKey(o.keyFile);
  }
  const name = o.name!;
  const data: ProfileData = { baseUrl: o.baseUrl };
  if (o.storeUrl) data.storeUrl = o.storeUrl;
  if (o.username) data.username = o.username;
  if (o.caFile) data.caFile = o.caFile;
  if (o.idempotencyKeys) data.idempotencyKeys = true;
  // The global --no-ledger given to `profile add` is the profile's setting: its writes go unrecorded.
  if (ctx.globals.ledger === false) data.ledger = false;
  if (o.verify) {
    // Check before anything is written: a refused key leaves no half-made profile behind.
    const { checkAccount, configOf } = await import('./parts/verify.js');
    const candidate: ProfileData = { ...data, keyFile: o.keyFile, sharedKey: o.sharedKey, token: o.token };
    const checked = await checkAccount(
      ctx,
      await configOf(ctx, name, { [name]: candidate }),
      'nothing was saved (add --no-verify to store it without checking).',
    );
    if (checked.verified) {
      ctx.info(
        `Verified: ${checked.base_url} accepts the credentials (account ${checked.account ?? '-'}; scopes ${checked.scopes.join(', ') || '-'}${checked.test_mode ? '; test mode' : ''}).`,
      );
    } else
      ctx.info('Not verified: an access-control token alone has no request that checks it without changing access.');
  }
  if (o.sharedKey) data.sharedKey = o.sharedKey;
  if (o.token) data.token = o.token;
  // Under the store's lock: another `profile add` of the same name meanwhile is a conflict, not overwritten.
  const after = await updateStore(dir, (s) => {
    const old = s.profiles[name];
    if (old && !o.force)
      throw new CliError(
        `Profile "${name}" already exists (added meanwhile). Add --force to replace it.`,
        ExitCode.CONFLICT,
      );
    if (old?.keyFile) removeKeyCopy(dir, old.keyFile);
    if (pem) data.keyFile = writeKeyCopy(dir, name, pem);
    s.profiles[name] = data;
    if (o.use) s.current = name;
  });
  const current = after.current === name;
  ctx.info(
    `Saved profile "${name}" in ${dir}` +
      (pem ? ` (key copied to ${data.keyFile})` : '') +
      '.' +
      (current
        ? ' It is now the current profile.'
        : ` Use it with --profile ${name}, or make it current: bookdist profile use ${name}`),
  );
  await emit(ctx, publicView(name, data, current), {
    card: (v, s) =>
      [
        `${s.bold('Profile')}    ${t(v.name)}${v.current ? ' (current)' : ''}`,
        `${s.bold('Base URL')}   ${t(v.base_url)}`,
        `${s.bold('Store URL')}  ${v.store_url ? t(v.store_url) : `${t(v.base_url)} (the base URL)`}`,
        `${s.bold('Username')}   ${t(v.username ?? '-')}`,
        `${s.bold('Auth')}       ${t(v.auth)}`,
      ].join('\n'),
  });
}
