// Part of the composition root: turn the resolved configuration into an ApiClient. Loads and
// checks the key, starts the embedded sandbox for the built-in profile (src/api/ never starts a
// server), wires --debug, --dry-run and the TEST MODE notice, and hands the client the context's
// HTTP handler when one was given (in-process tests).
// Key and CA files are read bounded (src/util/read-bounded.ts: a size cap, a time limit, never
// blocking on a FIFO or reading a device) with node:fs's callback API: node:fs/promises would load
// about fifteen more of Node's modules (readline among them) on every request.
import { existsSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { readBounded, unreadableReason } from './util/read-bounded.js';
import { join } from 'node:path';
import type { Context } from './context.js';
import { CliError, ExitCode } from './errors.js';
import { ApiClient } from './api/client.js';
import type { PayloadToCheck } from './api/options.js';
import { cacheDisabled, flush, IdCollector, idsDir, scopeOf } from './cache/ids.js';
import { setCodeCacheVariant } from './cache/cache-variant.js';
import { loadRsaPrivateKey, type Credentials } from './api/wire.js';
import { parsePins, type Pin } from './api/network.js';
import type { ResolvedConfig, Setting } from './config/resolve.js';
import { CONFIG_FILE, KEYS_DIR } from './config/store.js';
import { checkBaseUrl, checkHeaderValue, checkPermissions, sourceOf } from './config/check.js';
import type { WriteHook, WriteRequest } from './api/write-hook.js';
import { ledgerProfile, mayWrite, opOf } from './ledger/ops.js';

/** Where requests go and as whom: what connect() hands the client besides the context's settings. */
interface Target {
  baseUrl: string;
  storeUrl?: string;
  credentials: Credentials;
  accessToken?: string;
  idempotencyKeys: boolean;
  /** The embedded sandbox's seeded books and users, as answers carry them (for the completion cache). */
  seeded?: () => Promise<unknown[]>;
  /** The embedded sandbox's connections, in this process (no socket). */
  connect?: () => Duplex;
}

export async function connect(ctx: Context): Promise<ApiClient> {
  const cfg = await ctx.config();
  const { io, globals } = ctx;
  if (!ctx.http && !cfg.embedded && /^https:/i.test(cfg.baseUrl?.value ?? '')) startTlsEarly();
  const permissions = checkSettings(ctx, cfg);
  const given = () => givenCredentials(cfg, permissions);
  const target = cfg.embedded ? await embeddedTarget(ctx, cfg, given) : await remoteTarget(cfg, given);
  const ca = cfg.caFile ? await readCaFile(cfg.caFile) : undefined;
  const pins = cfg.resolve ? readPins(cfg.resolve) : undefined;

  let noticeShown = false;
  const ids = idCacheFor(ctx, cfg, target);
  const client = new ApiClient({
    ...target,
    timeout: globals.timeout,
    timeoutText: globals.timeoutText,
    // Each wait before a retry longer than a second is said on stderr, never a silent pause.
    notice: (line) => ctx.info(line),
    retries: globals.retries,
    sleep: ctx.clock.sleep,
    handler: ctx.http,
    connect: target.connect,
    env: io.env,
    ca,
    pins,
    signedOnly: !cfg.embedded,
    debugFull: io.env.BOOKDIST_DEBUG_BODIES === 'full',
    debug: globals.debug ? (line) => io.stderr.write(`[debug] ${line}\n`) : undefined,
    dryRun: globals.dryRun ? (line) => io.stdout.write(line + '\n') : undefined,
    checkPayload: globals.dryRun ? checkBeforeDryRun : undefined,
    writeHook: withIdCache(ledgerHook(ctx, cfg, target.baseUrl), ids, () => ctx.clock.now()),
    onResponse: (res) => {
      if (ids && res.format === 'json' && res.status < 300) ids.collect(res.body);
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
 * Load node:tls now, for a service over HTTPS (issue 31): loading it starts parsing Node's root
 * certificates on a thread of Node's own, and the first TLS connection waits for that thread
 * (20-40 ms on a slow machine). Loaded when the transport first needs it, that wait came after
 * all of this thread's work; loaded here, the parse runs beside the key's reading and loading,
 * the signature and the request's preparation. The same module, loaded earlier: nothing else changes.
 */
function startTlsEarly(): void {
  process.getBuiltinModule('node:tls');
}

/** Ledger rows one command puts in the completion cache: a TAB offers 100 at most. */
const LEDGER_IDS = 100;

/**
 * Writes feed the completion cache too: the organizations and labels they name (no answer returns
 * them) and their ledger rows (`ledger show <TAB>`), the first LEDGER_IDS of a command: a bulk
 * job's 10,000 rows would cost more than the ledger itself (`ledger list --job` lists them).
 */
function withIdCache(
  hook: WriteHook | undefined,
  ids: IdCollector | undefined,
  now: () => Date,
): WriteHook | undefined {
  if (!ids) return hook;
  let rows = 0;
  return {
    async before(req: WriteRequest) {
      const ticket = await hook?.before(req);
      const op = ticket && rows < LEDGER_IDS ? opOf(req)?.op : undefined;
      if (op) rows++;
      ids.collectWrite(req.payload, ticket && op ? { id: ticket.id, op, at: now() } : undefined);
      return ticket;
    },
    ahead: hook?.ahead && ((reqs) => hook.ahead!(reqs)),
  };
}

/**
 * The completion cache of ids (src/cache/ids.ts) for this service and account: fed by every
 * answer, written when the command ends. Undefined with --no-cache, BOOKDIST_CACHE=off or
 * --dry-run. The embedded sandbox's seeded books and users are put in on its first use.
 */
function idCacheFor(ctx: Context, cfg: ResolvedConfig, target: Target): IdCollector | undefined {
  if (ctx.globals.noCache || ctx.globals.dryRun || cacheDisabled(ctx.io.env)) return undefined;
  const account = target.credentials.kind === 'none' ? '' : (target.credentials.username ?? '');
  const service = cfg.embedded ? `embedded:${cfg.dataDir}` : target.baseUrl;
  const dir = idsDir(ctx.io.env);
  // The shells complete for a profile: point it at this scope only when the profile itself names
  // the service (not a --base-url or BOOKDIST_BASE_URL run, whose ids stay in their own scope).
  const profile = cfg.embedded || cfg.baseUrl?.source === 'profile' ? cfg.profile.value : '';
  const cache = { dir, scope: scopeOf(service, account), profile };
  const ids = new IdCollector();
  ctx.defer(async () => {
    if (!target.seeded || existsSync(join(dir, cache.scope))) return flush(ids, cache);
    // The first use of the built-in sandbox: its seeded books and users, older than this run's ids.
    const seeded = new IdCollector();
    for (const body of await target.seeded()) seeded.collect(body);
    flush(seeded.merge(ids), cache);
  });
  return ids;
}

/**
 * The ledger's write hook (issue 34), unless --no-ledger, BOOKDIST_LEDGER=off or the profile turns
 * it off, or --dry-run sends nothing. The recorder loads on the first write only: reads pay nothing.
 */
function ledgerHook(ctx: Context, cfg: ResolvedConfig, baseUrl: string): WriteHook | undefined {
  if (ctx.globals.ledger === false || cfg.ledger?.value === false || ctx.globals.dryRun) return undefined;
  let recorder: Promise<WriteHook> | undefined;
  // Once loaded, and no calls told ahead are still on their way to it, it is called at once (no
  // promise and turn of the microtask queue a request).
  let loaded: WriteHook | undefined;
  let telling = 0;
  const host = (() => {
    try {
      return new URL(baseUrl).host;
    } catch {
      return baseUrl;
    }
  })();
  const load = () =>
    (recorder ??= Promise.all([import('./ledger/recorder.js'), import('./ledger/store.js')]).then(([r, s]) => {
      const rec = new r.Recorder(new s.LedgerStore(s.ledgerDir(ctx.io.env)), {
        profile: ledgerProfile(cfg),
        host,
        job: () => ctx.ledgerJob,
        now: () => ctx.clock.now(),
        warn: (m) => ctx.warn(m),
      });
      // The last outcomes are written when the command ends (they wait for the next group otherwise).
      ctx.defer(() => rec.flush(true));
      loaded = rec;
      return rec;
    }));
  return {
    before(req: WriteRequest) {
      if (!mayWrite(req)) return undefined;
      if (loaded && !telling) return loaded.before(req);
      return load().then((r) => r.before(req));
    },
    ahead(reqs: WriteRequest[]) {
      const writes = reqs.filter(mayWrite);
      if (!writes.length) return;
      if (loaded && !telling) return loaded.ahead?.(writes);
      // Told in order: `before` of each of these finds it (the same promise, its callbacks in turn).
      telling++;
      void load().then((r) => {
        telling--;
        r.ahead?.(writes);
      });
    },
  };
}

type Permissions = (path: string, kind: 'key' | 'config' | 'keys-dir') => void;

/**
 * Values that become header values, and files that hold secrets, are checked before anything is
 * sent, whichever service answers. Returns the permission check for the key file (warned once).
 */
function checkSettings(ctx: Context, cfg: ResolvedConfig): Permissions {
  checkHeaderValue(cfg.username, 'username', '--username', false);
  checkHeaderValue(cfg.sharedKey, 'shared key', '--shared-key', true);
  checkHeaderValue(cfg.token, 'token', '--token', true);
  const warned = new Set<string>();
  const permissions: Permissions = (path, kind) => {
    const f = checkPermissions(path, kind);
    if (f?.refused) throw new CliError(f.refused, ExitCode.USAGE, { file: path });
    if (f?.warning && !warned.has(path)) {
      warned.add(path);
      ctx.warn(f.warning);
    }
  };
  const config = join(cfg.configDir, CONFIG_FILE);
  const keys = join(cfg.configDir, KEYS_DIR);
  if (existsSync(config)) permissions(config, 'config');
  if (existsSync(keys)) permissions(keys, 'keys-dir');
  return permissions;
}

/** The credentials given (flag, environment, profile): used, or refused with what to fix. */
async function givenCredentials(cfg: ResolvedConfig, permissions: Permissions): Promise<Credentials> {
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
      pem = await readBounded(file);
    } catch (e) {
      throw new CliError(
        `Cannot read the key file ${file} (from ${from}): ${unreadableReason(e)}. ` +
          'Point BOOKDIST_KEY_FILE or the profile (`bookdist profile add --key-file`) at the PEM private key.',
        ExitCode.USAGE,
        { file },
      );
    }
    permissions(file, 'key');
    let key;
    try {
      key = loadRsaPrivateKey(pem);
    } catch (e) {
      throw new CliError(`The key file ${file} (from ${from}) ${(e as Error).message}.`, ExitCode.USAGE, { file });
    }
    if (!username) throw missingUsername(cfg.keyFile);
    return { kind: 'crypto', username: username.value, key };
  }
  if (cfg.sharedKey) {
    if (!username) throw missingUsername(cfg.sharedKey);
    return { kind: 'shared', username: username.value, sharedKey: cfg.sharedKey.value };
  }
  return { kind: 'none' };
}

/**
 * The built-in sandbox profile: the embedded sandbox, started here (src/api/ never starts a
 * server). Credentials given through the environment are used against it too (it refuses what it
 * does not know), never dropped in favour of its own.
 */
async function embeddedTarget(ctx: Context, cfg: ResolvedConfig, given: () => Promise<Credentials>): Promise<Target> {
  // The code cache keeps an embedded run's functions apart from a remote one's of the same command.
  setCodeCacheVariant('embedded');
  const { startEmbedded } = await import('./sandbox/embedded.js');
  const own = cfg.keyFile || cfg.sharedKey || cfg.token ? await given() : undefined;
  // startEmbedded makes the data directory level by level and names BOOKDIST_DATA_DIR when it cannot.
  const sb = await startEmbedded({ dataDir: cfg.dataDir });
  ctx.defer(() => sb.close());
  if (own)
    return {
      baseUrl: sb.baseUrl,
      credentials: own,
      accessToken: cfg.token?.value,
      idempotencyKeys: true,
      seeded: seededAnswers,
      connect: sb.connect,
    };
  if (cfg.username) {
    throw new CliError(
      `A username is set (from ${sourceOf(cfg.username, '--username')}) but no key: set BOOKDIST_KEY_FILE or BOOKDIST_SHARED_KEY too, ` +
        'or unset it to use the built-in sandbox account.',
      ExitCode.USAGE,
      { setting: 'key' },
    );
  }
  return {
    baseUrl: sb.baseUrl,
    // The seeded key, decoded from its JWK (src/spec/rsa-keys.ts: cheaper than OpenSSL's PEM decoder).
    credentials: { kind: 'crypto', username: sb.username, key: sb.partnerKey() ?? loadRsaPrivateKey(sb.keyPem) },
    accessToken: sb.operatorToken,
    idempotencyKeys: true,
    seeded: seededAnswers,
    connect: sb.connect,
  };
}

/** The seeded catalogue and users of the built-in sandbox, shaped as the service's answers. */
async function seededAnswers(): Promise<unknown[]> {
  const { seedCatalogue, SEED_USERS } = await import('./sandbox/seed.js');
  const books = seedCatalogue().map((b) => ({
    hash_id: b.hash_id,
    title: b.title,
    author: b.author,
    identifiers: { isbn13: b.isbn13, isbn10: b.isbn10, eisbn13: b.eisbn13, eisbn10: b.eisbn10, sku: b.sku },
    digital_pricing: b.pricing.filter((p) => !p.deactivation_date),
  }));
  return [{ books }, { users: SEED_USERS }];
}

/** A service at a base URL: the URLs checked, and a profile's key only ever sent to its own base URL. */
async function remoteTarget(cfg: ResolvedConfig, given: () => Promise<Credentials>): Promise<Target> {
  if (!cfg.baseUrl) {
    throw new CliError(
      `Profile "${cfg.profile.value}" has no base URL. Set one with \`bookdist profile add\`, --base-url or BOOKDIST_BASE_URL.`,
      ExitCode.USAGE,
    );
  }
  const baseUrl = checkBaseUrl(cfg.baseUrl.value, sourceOf(cfg.baseUrl, '--base-url'));
  const storeUrl = cfg.storeUrl ? checkBaseUrl(cfg.storeUrl.value, sourceOf(cfg.storeUrl, '--store-url')) : undefined;
  const secrets = [cfg.keyFile, cfg.sharedKey, cfg.token];
  if (cfg.baseUrl.source !== 'profile' && secrets.some((s) => s?.source === 'profile')) {
    const own = cfg.profileBaseUrl;
    if (own && normalise(own) !== normalise(baseUrl)) {
      throw new CliError(
        `Refusing to send profile "${cfg.profile.value}"'s credentials to ${baseUrl} (from ${sourceOf(cfg.baseUrl, '--base-url')}; the profile's base URL is ${own}). ` +
          'Use a profile for that service, or give credentials through the environment (BOOKDIST_USERNAME, BOOKDIST_KEY_FILE).',
        ExitCode.USAGE,
      );
    }
  }
  return {
    baseUrl,
    storeUrl,
    credentials: await given(),
    accessToken: cfg.token?.value,
    idempotencyKeys: cfg.idempotencyKeys?.value ?? false,
  };
}

/** --resolve or BOOKDIST_RESOLVE: each entry HOST:PORT:ADDR, or a usage error naming the entry and where it came from. */
function readPins(setting: Setting): { pins: Pin[]; from: string } {
  const parsed = parsePins(setting.value);
  if ('problem' in parsed) throw new CliError(`${sourceOf(setting, '--resolve')}: ${parsed.problem}.`, ExitCode.USAGE);
  return { pins: parsed.pins, from: sourceOf(setting, '--resolve') };
}

/** --ca-file, BOOKDIST_CA_FILE or the profile's CA bundle: read and checked to hold a PEM certificate. */
async function readCaFile(setting: Setting): Promise<{ pem: string; file: string }> {
  const file = setting.value;
  let pem: string;
  try {
    pem = await readBounded(file);
  } catch (e) {
    throw new CliError(
      `Cannot read the CA file ${file} (from ${sourceOf(setting, '--ca-file')}): ${unreadableReason(e)}.`,
      ExitCode.USAGE,
      { file },
    );
  }
  if (!/-----BEGIN CERTIFICATE-----/.test(pem)) {
    throw new CliError(
      `The CA file ${file} (from ${sourceOf(setting, '--ca-file')}) holds no PEM certificate (-----BEGIN CERTIFICATE-----).`,
      ExitCode.USAGE,
      { file },
    );
  }
  return { pem, file };
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
