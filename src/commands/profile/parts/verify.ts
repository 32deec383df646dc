// Checking a profile's credentials against its service: one signed GET /profile/, the request
// `bookdist whoami` makes. Shared by `profile add` (before anything is stored) and `profile check`.
import type { Context } from '../../../context.js';
import { recOf, type Style } from '../../../output/index.js';
import { kv, type Pair } from '../../render.js';
import { CliError, ExitCode, messageOf } from '../../../errors.js';
import type { ApiError } from '../../../api/errors.js';
import { isAnswer } from '../../../api/answer.js';
import type { Answer } from '../../../spec/contract.js';
import type { ResolvedConfig } from '../../../config/resolve.js';
import type { ProfileData } from '../../../config/store.js';

export interface AccountCheck {
  profile: string;
  base_url: string;
  username: string | null;
  auth: string;
  /** The account's nickname (its label), as GET /profile/ says. */
  account: string | null;
  scopes: string[];
  test_mode: boolean;
  verified: boolean;
  /** How the service was reached (profile check): proxy, CA bundle, TLS, clock. */
  network?: NetworkCheck;
}

interface NetworkCheck {
  /** Names pinned to addresses (--resolve, BOOKDIST_RESOLVE); absent when none is. */
  resolve?: { host: string; port: number; address: string; from: string }[];
  proxy: { used: string | null; why: string; fix?: string };
  ca: { file: string | null; node_extra_ca_certs: string | null; fix?: string };
  tls: null | {
    protocol: string | null;
    subject: string;
    issuer: string;
    expires: string | null;
    days_left: number | null;
    fix?: string;
  };
  clock: null | { service_date: string; offset_seconds: number; fix?: string };
}

/**
 * The environment without the BOOKDIST_ settings that would override a stored profile's values.
 * BOOKDIST_CA_FILE stays: it is this machine's trust, which every command run here honours, and
 * which the certificate error's advice names (a profile's own CA comes from --ca-file); so does
 * BOOKDIST_RESOLVE, this machine's view of names (as --resolve is, which the check keeps too).
 */
function storedOnlyEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const keep = new Set(['BOOKDIST_CONFIG_DIR', 'BOOKDIST_DATA_DIR', 'BOOKDIST_CA_FILE', 'BOOKDIST_RESOLVE']);
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('BOOKDIST_') || keep.has(k)));
}

/** Resolve one profile from the given data alone (flags and BOOKDIST_ variables ignored). */
export async function configOf(
  ctx: Context,
  name: string,
  profiles: Record<string, ProfileData>,
): Promise<ResolvedConfig> {
  const { resolveConfig } = await import('../../../config/resolve.js');
  return resolveConfig({
    env: storedOnlyEnv(ctx.io.env),
    flags: { profile: name, resolve: ctx.globals.resolve?.join(',') },
    loadStore: () => Promise.resolve({ profiles }),
  });
}

function authOf(cfg: ResolvedConfig): string {
  if (cfg.embedded) return 'crypto';
  const modes = [cfg.keyFile && 'crypto', cfg.sharedKey && 'shared', cfg.token && 'token'].filter(Boolean);
  return modes.length ? modes.join('+') : 'none';
}

/**
 * Call GET /profile/ with the credentials of `cfg`. A refusal is exit 4 and a service that cannot
 * be reached keeps its exit code (7 unavailable, 1 other), each with a message that names `hint`.
 */
export async function checkAccount(ctx: Context, cfg: ResolvedConfig, hint: string): Promise<AccountCheck> {
  const base: AccountCheck = {
    profile: cfg.profile.value,
    base_url: cfg.embedded ? '(built-in sandbox)' : (cfg.baseUrl?.value ?? ''),
    username: cfg.username?.value ?? null,
    auth: authOf(cfg),
    account: null,
    scopes: [],
    test_mode: false,
    verified: false,
  };
  // An access-control token alone signs nothing that GET /profile/ accepts, and the access API has
  // no request that reads without changing access: there is nothing safe to check it with.
  if (!cfg.embedded && !cfg.keyFile && !cfg.sharedKey) return base;
  let body: Answer<'profile'>;
  try {
    const api = await ctx.apiFor(cfg, { dryRun: false });
    if (!cfg.embedded) base.base_url = api.baseUrl;
    base.username ??= api.username ?? null;
    const res = await api.call('profile');
    if (!isAnswer(res)) {
      const { toApiError } = await import('../../../api/errors.js');
      throw toApiError(res);
    }
    body = res.body;
    base.network = networkOf(api, res, ctx);
  } catch (e) {
    if (isApiError(e) && (e.status === 401 || e.status === 403)) {
      const said = typeof recOf(e.body).message === 'string' ? String(recOf(e.body).message) : e.message;
      throw new CliError(
        `The service at ${base.base_url} refused the credentials of profile "${base.profile}" (HTTP ${e.status}: ${said}). ` +
          `Check the username and the key or shared key; ${hint}`,
        ExitCode.AUTH,
      );
    }
    // A key file that cannot be read, a URL that is not one: already a message naming the fix.
    const thrown: { name?: unknown; exitCode?: unknown } = typeof e === 'object' && e !== null ? e : {};
    if (
      (e instanceof CliError || thrown.name === 'CliError') &&
      [ExitCode.AUTH, ExitCode.USAGE, ExitCode.TLS, ExitCode.PROXY].some((c) => c === thrown.exitCode)
    )
      throw e;
    if (thrown.exitCode === ExitCode.INTERRUPTED || thrown.name === 'AbortError') throw e;
    const code =
      thrown.exitCode === ExitCode.UNAVAILABLE || thrown.exitCode === ExitCode.NOT_FOUND
        ? thrown.exitCode
        : ExitCode.ERROR;
    throw new CliError(
      `Could not check profile "${base.profile}" with GET /profile/ on ${base.base_url}: ${messageOf(e).replace(/\.$/, '')}. ${hint}`,
      code,
    );
  }
  return {
    ...base,
    account: typeof body.profile.nickname === 'string' ? body.profile.nickname : null,
    scopes: [...body.scopes].sort(),
    test_mode: Boolean(body.test_mode),
    verified: true,
  };
}

const isApiError = (e: unknown): e is ApiError => e instanceof Error && e.name === 'ApiError';

/** What profile check says about the way to the service, each part with what to do when it is wrong. */
function networkOf(
  api: import('../../../api/client.js').ApiClient,
  res: import('../../../api/answer.js').ApiResponse,
  ctx: Context,
): NetworkCheck {
  const route = api.route(res.request.url);
  const https = res.request.url.startsWith('https:');
  const extra = ctx.io.env.NODE_EXTRA_CA_CERTS || null;
  const out: NetworkCheck = {
    proxy: route?.proxy
      ? { used: route.shown!, why: route.why, fix: 'To go direct, name the host in NO_PROXY.' }
      : { used: null, why: route?.why ?? 'direct' },
    ca: {
      file: api.caFile ?? null,
      node_extra_ca_certs: extra,
      ...(https && !api.caFile
        ? {
            fix: "Node's CA roots (and NODE_EXTRA_CA_CERTS) verified the certificate; for a private CA use --ca-file or BOOKDIST_CA_FILE.",
          }
        : {}),
    },
    tls: null,
    clock: null,
  };
  if (api.pins) out.resolve = api.pins.pins.map((p) => ({ ...p, from: api.pins!.from }));
  if (res.tls) {
    const expires = res.tls.validTo ? new Date(res.tls.validTo) : undefined;
    const days =
      expires && !Number.isNaN(expires.getTime()) ? Math.floor((expires.getTime() - Date.now()) / 86_400_000) : null;
    out.tls = {
      protocol: res.tls.protocol ?? null,
      subject: res.tls.subject,
      issuer: res.tls.issuer,
      expires: expires && !Number.isNaN(expires.getTime()) ? expires.toISOString() : null,
      days_left: days,
      ...(days !== null && days < 14
        ? { fix: `The certificate expires in ${days} day(s): tell the service's operators.` }
        : {}),
      ...(res.tls.protocol && /TLSv1(\.[01])?$/.test(res.tls.protocol)
        ? { fix: `${res.tls.protocol} is outdated: the service should offer TLS 1.2 or 1.3.` }
        : {}),
    };
  }
  const date = res.headers['date'];
  const t = date ? Date.parse(date) : NaN;
  if (!Number.isNaN(t)) {
    // The Date header has whole seconds: differences under 2 s are noise.
    const offset = Math.round((t - ctx.clock.now().getTime()) / 1000);
    out.clock = {
      service_date: new Date(t).toISOString(),
      offset_seconds: Math.abs(offset) < 2 ? 0 : offset,
      ...(Math.abs(offset) > 60
        ? {
            fix: `This machine's clock is ${Math.abs(offset)} s ${offset > 0 ? 'behind' : 'ahead of'} the service's: certificate checks and the expiry times bookdist works out depend on it (the signature holds no time); set the clock (NTP).`,
          }
        : {}),
    };
  }
  return out;
}

/** The `gh auth status`-like card of a check. */
export function checkCard(c: AccountCheck, s: Style): string {
  const head = c.verified
    ? `${s.green('✓')} Profile ${c.profile}: credentials accepted by ${c.base_url}`
    : `- Profile ${c.profile}: ${c.base_url}`;
  return [
    head,
    kv(
      s,
      [
        ['Account', `${c.account ?? '-'}${c.username ? ` (username ${c.username})` : ''}`],
        ['Auth', c.auth],
        ...(c.verified
          ? ([
              ['Scopes', c.scopes.join(', ') || '-'],
              ['Test mode', c.test_mode ? s.yellow('yes') : 'no'],
            ] as Pair[])
          : []),
      ],
      '  ',
    ),
    ...(c.verified
      ? []
      : [
          kv(
            s,
            [['Not verified', 'an access-control token alone has no request that checks it without changing access.']],
            '  ',
          ),
        ]),
    ...(c.network ? [networkCard(c.network, s)] : []),
  ].join('\n');
}

function networkCard(n: NetworkCheck, s: Style): string {
  const fix = (f?: string) => (f ? ` ${s.dim('→ ' + f)}` : '');
  const pairs: Pair[] = [
    ...(n.resolve ?? []).map((p): Pair => ['Resolve', `${p.host}:${p.port} → ${p.address} (${p.from})`]),
    ['Proxy', (n.proxy.used ? `${n.proxy.used} (${n.proxy.why})` : `none: ${n.proxy.why}`) + fix(n.proxy.fix)],
    [
      'CA bundle',
      (n.ca.file ? `${n.ca.file} and Node's roots` : "Node's roots") +
        (n.ca.node_extra_ca_certs ? ` + NODE_EXTRA_CA_CERTS ${n.ca.node_extra_ca_certs}` : '') +
        fix(n.ca.fix),
    ],
  ];
  if (n.tls) {
    pairs.push(['TLS', n.tls.protocol ?? '-']);
    pairs.push([
      'Certificate',
      `${n.tls.subject}; issuer ${n.tls.issuer}; expires ${n.tls.expires ?? '-'}${n.tls.days_left !== null ? ` (${n.tls.days_left} days)` : ''}` +
        fix(n.tls.fix),
    ]);
  } else pairs.push(['TLS', 'none (http://): requests and signatures travel in clear text']);
  if (n.clock)
    pairs.push([
      'Clock',
      (n.clock.offset_seconds === 0
        ? 'in step with the service'
        : `${n.clock.offset_seconds} s from the service's Date`) + fix(n.clock.fix),
    ]);
  return kv(s, pairs, '  ');
}
