// Part of the composition root: turn the resolved configuration into an ApiClient. Loads and
// checks the key, starts the embedded sandbox for the built-in profile (src/api/ never starts a
// server), wires --debug, --dry-run and the TEST MODE notice, and hands the client the context's
// HTTP handler when one was given (in-process tests).
import { readFile } from 'node:fs/promises';
import type { Context } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { ApiClient, type PayloadToCheck } from './api/client.js';
import { loadRsaPrivateKey, type Credentials } from './api/wire.js';

export async function connect(ctx: Context): Promise<ApiClient> {
  const cfg = await ctx.config();
  const { io, globals } = ctx;
  let baseUrl: string;
  let storeUrl: string | undefined;
  let credentials: Credentials = { kind: 'none' };
  let accessToken: string | undefined;

  if (cfg.embedded) {
    const { startEmbedded } = await import('./sandbox/embedded.js');
    const sb = await startEmbedded({ dataDir: cfg.dataDir });
    ctx.defer(() => sb.close());
    baseUrl = sb.baseUrl;
    credentials = { kind: 'crypto', username: sb.username, key: loadRsaPrivateKey(sb.keyPem) };
    accessToken = sb.operatorToken;
  } else {
    if (!cfg.baseUrl) {
      throw new CliError(
        `Profile "${cfg.profile.value}" has no base URL. Set one with \`bookdist profile add\`, --base-url or BOOKDIST_BASE_URL.`,
        ExitCode.USAGE,
      );
    }
    baseUrl = cfg.baseUrl.value;
    storeUrl = cfg.storeUrl?.value;
    try {
      new URL(baseUrl);
    } catch {
      throw new CliError(`Base URL "${baseUrl}" is not a URL (from ${describeSource(cfg.baseUrl)}).`, ExitCode.USAGE);
    }
    // A key stored in a profile is only ever sent to that profile's own base URL.
    const secrets = [cfg.keyFile, cfg.sharedKey, cfg.token].filter(Boolean);
    if (cfg.baseUrl.source !== 'profile' && secrets.some((s) => s!.source === 'profile')) {
      const own = cfg.profileBaseUrl;
      if (own && normalise(own) !== normalise(baseUrl)) {
        throw new CliError(
          `Refusing to send profile "${cfg.profile.value}"'s credentials to ${baseUrl} (the profile's base URL is ${own}). ` +
            'Use a profile for that service, or give credentials through the environment.',
          ExitCode.AUTH,
        );
      }
    }
    const username = cfg.username?.value;
    if (cfg.keyFile) {
      let pem: string;
      try {
        pem = await readFile(cfg.keyFile.value, 'utf8');
      } catch (e: any) {
        throw new CliError(
          `Cannot read the key file ${cfg.keyFile.value} (from ${describeSource(cfg.keyFile)}): ${e?.code === 'ENOENT' ? 'no such file' : e?.code ?? e?.message}. ` +
            'Point the profile at the PEM private key (`bookdist profile add --key-file`) or set BOOKDIST_KEY_FILE.',
          ExitCode.AUTH,
        );
      }
      try {
        credentials = { kind: 'crypto', username: requireUsername(username, cfg.profile.value), key: loadRsaPrivateKey(pem) };
      } catch (e: any) {
        if (e instanceof CliError) throw e;
        throw new CliError(`The key file ${cfg.keyFile.value} ${e.message}.`, ExitCode.AUTH);
      }
    } else if (cfg.sharedKey) {
      credentials = { kind: 'shared', username: requireUsername(username, cfg.profile.value), sharedKey: cfg.sharedKey.value };
    }
    accessToken = cfg.token?.value;
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

function requireUsername(username: string | undefined, profile: string): string {
  if (!username) {
    throw new CliError(
      `Profile "${profile}" has a key but no username. Add it with \`bookdist profile add --username\` or BOOKDIST_USERNAME.`,
      ExitCode.AUTH,
    );
  }
  return username;
}

function normalise(url: string): string {
  return url.replace(/\/+$/, '').toLowerCase();
}

function describeSource(s: { source: string; from?: string }): string {
  return s.source === 'flag' ? 'a flag' : s.source === 'env' ? `${s.from}` : s.source === 'profile' ? `profile ${s.from}` : 'the default';
}
