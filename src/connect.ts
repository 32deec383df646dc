// Part of the composition root: turn the resolved configuration into an ApiClient. Loads and
// checks the key, starts the embedded sandbox for the built-in profile (src/api/ never starts a
// server), wires --debug, --dry-run and the TEST MODE notice, and hands the client the context's
// HTTP handler when one was given (in-process tests).
import { readFile } from 'node:fs/promises';
import type { Context } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { ApiClient, type PayloadToCheck } from './api/client.js';
import { loadRsaPrivateKey, type Credentials } from './api/wire.js';
import type { Setting } from './config/resolve.js';

export async function connect(ctx: Context): Promise<ApiClient> {
  const cfg = await ctx.config();
  const { io, globals } = ctx;
  const { checkBaseUrl, checkHeaderValue, checkPermissions, sourceOf } = await import('./config/check.js');
  let baseUrl: string;
  let storeUrl: string | undefined;
  let credentials: Credentials = { kind: 'none' };
  let accessToken: string | undefined;
  let idempotencyKeys = cfg.idempotencyKeys?.value ?? false;

  // Values that become header values, and files that hold secrets, are checked before anything
  // is sent, whichever service answers.
  checkHeaderValue(cfg.username, 'username', '--username', false);
  checkHeaderValue(cfg.sharedKey, 'shared key', '--shared-key', true);
  checkHeaderValue(cfg.token, 'token', '--token', true);
  const warned = new Set<string>();
  const permissions = (path: string, kind: 'key' | 'config' | 'keys-dir') => {
    const f = checkPermissions(path, kind);
    if (f?.refused) throw new CliError(f.refused, ExitCode.USAGE, { file: path });
    if (f?.warning && !warned.has(path)) {
      warned.add(path);
      ctx.warn(f.warning);
    }
  };
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { CONFIG_FILE, KEYS_DIR } = await import('./config/store.js');
  if (existsSync(join(cfg.configDir, CONFIG_FILE))) permissions(join(cfg.configDir, CONFIG_FILE), 'config');
  if (existsSync(join(cfg.configDir, KEYS_DIR))) permissions(join(cfg.configDir, KEYS_DIR), 'keys-dir');

  /** The credentials given (flag, environment, profile): used, or refused with what to fix. */
  const given = async (): Promise<Credentials> => {
    const username = cfg.username;
    const missingUsername = (what: Setting) =>
      new CliError(
        `A ${what === cfg.keyFile ? 'key file' : 'shared key'} is set (from ${sourceOf(what, '--key-file')}) but no username: ` +
          `set BOOKDIST_USERNAME, or \`bookdist profile add --username\`${cfg.profile.source !== 'default' ? ` (profile "${cfg.profile.value}")` : ''}.`,
        ExitCode.USAGE,
        { setting: 'username' },
      );
    if (cfg.keyFile) {
      const file = cfg.keyFile.value;
      const from = sourceOf(cfg.keyFile, '--key-file');
      let pem: string;
      try {
        pem = await readFile(file, 'utf8');
      } catch (e: any) {
        const why = e?.code === 'ENOENT' ? 'no such file' : e?.code === 'EACCES' ? 'permission denied' : e?.code === 'EISDIR' ? 'a directory' : (e?.code ?? e?.message);
        throw new CliError(
          `Cannot read the key file ${file} (from ${from}): ${why}. ` +
            'Point BOOKDIST_KEY_FILE or the profile (`bookdist profile add --key-file`) at the PEM private key.',
          ExitCode.USAGE,
          { file },
        );
      }
      permissions(file, 'key');
      let key;
      try {
        key = loadRsaPrivateKey(pem);
      } catch (e: any) {
        throw new CliError(`The key file ${file} (from ${from}) ${e.message}.`, ExitCode.USAGE, { file });
      }
      if (!username) throw missingUsername(cfg.keyFile);
      return { kind: 'crypto', username: username.value, key };
    }
    if (cfg.sharedKey) {
      if (!username) throw missingUsername(cfg.sharedKey);
      return { kind: 'shared', username: username.value, sharedKey: cfg.sharedKey.value };
    }
    return { kind: 'none' };
  };

  if (cfg.embedded) {
    const { startEmbedded } = await import('./sandbox/embedded.js');
    // Credentials given through the environment are used against the sandbox too (it refuses
    // what it does not know), never dropped in favour of its own.
    const own = cfg.keyFile || cfg.sharedKey || cfg.token ? await given() : undefined;
    const sb = await startEmbedded({ dataDir: cfg.dataDir });
    ctx.defer(() => sb.close());
    baseUrl = sb.baseUrl;
    idempotencyKeys = true;
    if (own) {
      credentials = own;
      accessToken = cfg.token?.value;
    } else {
      if (cfg.username) {
        throw new CliError(
          `A username is set (from ${sourceOf(cfg.username, '--username')}) but no key: set BOOKDIST_KEY_FILE or BOOKDIST_SHARED_KEY too, ` +
            'or unset it to use the built-in sandbox account.',
          ExitCode.USAGE,
          { setting: 'key' },
        );
      }
      credentials = { kind: 'crypto', username: sb.username, key: loadRsaPrivateKey(sb.keyPem) };
      accessToken = sb.operatorToken;
    }
  } else {
    if (!cfg.baseUrl) {
      throw new CliError(
        `Profile "${cfg.profile.value}" has no base URL. Set one with \`bookdist profile add\`, --base-url or BOOKDIST_BASE_URL.`,
        ExitCode.USAGE,
      );
    }
    baseUrl = checkBaseUrl(cfg.baseUrl.value, sourceOf(cfg.baseUrl, '--base-url'));
    storeUrl = cfg.storeUrl ? checkBaseUrl(cfg.storeUrl.value, sourceOf(cfg.storeUrl, '--store-url')) : undefined;
    // A key stored in a profile is only ever sent to that profile's own base URL.
    const secrets = [cfg.keyFile, cfg.sharedKey, cfg.token].filter(Boolean);
    if (cfg.baseUrl.source !== 'profile' && secrets.some((s) => s!.source === 'profile')) {
      const own = cfg.profileBaseUrl;
      if (own && normalise(own) !== normalise(baseUrl)) {
        throw new CliError(
          `Refusing to send profile "${cfg.profile.value}"'s credentials to ${baseUrl} (from ${sourceOf(cfg.baseUrl, '--base-url')}; the profile's base URL is ${own}). ` +
            'Use a profile for that service, or give credentials through the environment (BOOKDIST_USERNAME, BOOKDIST_KEY_FILE).',
          ExitCode.USAGE,
        );
      }
    }
    credentials = await given();
    accessToken = cfg.token?.value;
  }

  let ca: { pem: string; file: string } | undefined;
  if (cfg.caFile) {
    const file = cfg.caFile.value;
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch (e: any) {
      throw new CliError(
        `Cannot read the CA file ${file} (from ${sourceOf(cfg.caFile, '--ca-file')}): ${e?.code === 'ENOENT' ? 'no such file' : (e?.code ?? e?.message)}.`,
        ExitCode.USAGE,
        { file },
      );
    }
    if (!/-----BEGIN CERTIFICATE-----/.test(pem)) {
      throw new CliError(`The CA file ${file} (from ${sourceOf(cfg.caFile, '--ca-file')}) holds no PEM certificate (-----BEGIN CERTIFICATE-----).`, ExitCode.USAGE, { file });
    }
    ca = { pem, file };
  }

  let noticeShown = false;
  const client = new ApiClient({
    baseUrl,
    storeUrl,
    credentials,
    accessToken,
    timeout: globals.timeout,
    retries: globals.retries,
    sleep: ctx.clock.sleep,
    handler: ctx.http,
    env: io.env,
    ca,
    idempotencyKeys,
    signedOnly: !cfg.embedded,
    debugFull: io.env.BOOKDIST_DEBUG_BODIES === 'full',
    debug: globals.debug ? (line) => io.stderr.write(`[debug] ${line}\n`) : undefined,
    dryRun: globals.dryRun ? (line) => io.stdout.write(line + '\n') : undefined,
    checkPayload: globals.dryRun ? checkBeforeDryRun : undefined,
    onResponse: (res) => {
      if (!noticeShown && res.body && res.body.test_mode === true) {
        noticeShown = true;
        if (ctx.noticesOnTtyOnly && !io.stderr.isTTY) return;
        ctx.info(cfg.embedded ? 'TEST MODE (sandbox)' : 'TEST MODE');
      }
    },
  });
  ctx.defer(() => client.close());
  return client;
}

/**
 * --dry-run checks a payload against the service's OpenAPI document (src/spec/check.ts) before it
 * prints the request: generic OpenAPI tools cannot decode the JSON text of a form's `request`.
 */
async function checkBeforeDryRun(req: PayloadToCheck): Promise<void> {
  if (req.method !== 'POST' || req.requestText === undefined) return;
  const { checkPayload } = await import('./spec/check.js');
  const r = checkPayload(req);
  if (r?.problems.length) {
    throw new CliError(
      `The request does not match the service's OpenAPI document (${r.schema}); nothing was sent:\n  ${r.problems.join('\n  ')}`,
      ExitCode.USAGE,
      { schema: r.schema, problems: r.problems },
    );
  }
}

function normalise(url: string): string {
  return url.replace(/\/+$/, '').toLowerCase();
}
