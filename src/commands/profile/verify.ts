// Checking a profile's credentials against its service: one signed GET /profile/, the request
// `bookdist whoami` makes. Shared by `profile add` (before anything is stored) and `profile check`.
import type { Context } from '../../context.js';
import type { Style } from '../../output/index.js';
import { kv, type Pair } from '../render.js';
import { CliError, ExitCode } from '../../errors.js';
import type { ResolvedConfig } from '../../config/resolve.js';
import type { ProfileData } from '../../config/store.js';

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
}

/** The environment without the BOOKDIST_ settings that would override a stored profile's values. */
export function storedOnlyEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const keep = new Set(['BOOKDIST_CONFIG_DIR', 'BOOKDIST_DATA_DIR']);
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('BOOKDIST_') || keep.has(k)));
}

/** Resolve one profile from the given data alone (flags and BOOKDIST_ variables ignored). */
export async function configOf(ctx: Context, name: string, profiles: Record<string, ProfileData>): Promise<ResolvedConfig> {
  const { resolveConfig } = await import('../../config/resolve.js');
  return resolveConfig({ env: storedOnlyEnv(ctx.io.env), flags: { profile: name }, loadStore: async () => ({ profiles }) });
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
  let body: any;
  try {
    const api = await ctx.apiFor(cfg, { dryRun: false });
    if (!cfg.embedded) base.base_url = api.baseUrl;
    base.username ??= api.username ?? null;
    body = await api.ok('profile');
  } catch (e: any) {
    if (e?.name === 'ApiError' && (e.status === 401 || e.status === 403)) {
      const said = typeof e.body?.message === 'string' ? e.body.message : e.message;
      throw new CliError(
        `The service at ${base.base_url} refused the credentials of profile "${base.profile}" (HTTP ${e.status}: ${said}). ` +
          `Check the username and the key or shared key; ${hint}`,
        ExitCode.AUTH,
      );
    }
    // A key file that cannot be read, a URL that is not one: already a message naming the fix.
    if ((e instanceof CliError || e?.name === 'CliError') && (e.exitCode === ExitCode.AUTH || e.exitCode === ExitCode.USAGE)) throw e;
    if (e?.exitCode === ExitCode.INTERRUPTED || e?.name === 'AbortError') throw e;
    const code = e?.exitCode === ExitCode.UNAVAILABLE || e?.exitCode === ExitCode.NOT_FOUND ? e.exitCode : ExitCode.ERROR;
    throw new CliError(`Could not check profile "${base.profile}" with GET /profile/ on ${base.base_url}: ${String(e?.message ?? e).replace(/\.$/, '')}. ${hint}`, code);
  }
  const p = body?.profile ?? {};
  return { ...base, account: p.nickname ?? null, scopes: [...(body?.scopes ?? [])].sort(), test_mode: Boolean(body?.test_mode), verified: true };
}

/** The `gh auth status`-like card of a check. */
export function checkCard(c: AccountCheck, s: Style): string {
  const head = c.verified ? `${s.green('✓')} Profile ${c.profile}: credentials accepted by ${c.base_url}` : `- Profile ${c.profile}: ${c.base_url}`;
  return [
    head,
    kv(
      s,
      [
        ['Account', `${c.account ?? '-'}${c.username ? ` (username ${c.username})` : ''}`],
        ['Auth', c.auth],
        ...(c.verified ? ([['Scopes', c.scopes.join(', ') || '-'], ['Test mode', c.test_mode ? s.yellow('yes') : 'no']] as Pair[]) : []),
      ],
      '  ',
    ),
    ...(c.verified ? [] : [kv(s, [['Not verified', 'an access-control token alone has no request that checks it without changing access.']], '  ')]),
  ].join('\n');
}
