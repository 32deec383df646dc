// Settings resolution: flag > environment > stored profile > default.
import { configDir, dataDir } from './paths.js';
import { readStore, type ProfileData } from './store.js';

type Source = 'flag' | 'env' | 'profile' | 'default';
export interface Setting<T = string> {
  value: T;
  source: Source;
  /** e.g. the environment variable or the profile name it came from. */
  from?: string;
}

export const EMBEDDED_PROFILE = 'sandbox';

export interface ResolvedConfig {
  profile: Setting;
  /** The built-in `sandbox` profile: start the sandbox in-process. */
  embedded: boolean;
  baseUrl?: Setting;
  storeUrl?: Setting;
  username?: Setting;
  keyFile?: Setting;
  sharedKey?: Setting;
  token?: Setting;
  /** A CA bundle (PEM) trusted besides Node's: --ca-file, BOOKDIST_CA_FILE, the profile's. */
  caFile?: Setting;
  /**
   * Host names pinned to addresses, `HOST:PORT:ADDR[,...]` (curl's --resolve): --resolve or
   * BOOKDIST_RESOLVE. This machine's view of names, like its proxy: never stored in a profile.
   */
  resolve?: Setting;
  /** The service honours Idempotency-Key (BOOKDIST_IDEMPOTENCY_KEYS=1, the profile's setting). */
  idempotencyKeys?: Setting<boolean>;
  /** Record writes in the ledger (BOOKDIST_LEDGER=off|on, the profile's setting; on by default). */
  ledger?: Setting<boolean>;
  /** The stored profile's own base URL: its credentials are only ever sent there. */
  profileBaseUrl?: string;
  configDir: string;
  dataDir: string;
}

export interface ResolveInput {
  env: Record<string, string | undefined>;
  flags: { profile?: string; baseUrl?: string; caFile?: string; resolve?: string };
  /** Reads the profile store; injected so tests can pass data and start-up stays lazy. */
  loadStore: () => Promise<{ current?: string; profiles: Record<string, ProfileData> }>;
}

const ENV = {
  profile: 'BOOKDIST_PROFILE',
  baseUrl: 'BOOKDIST_BASE_URL',
  storeUrl: 'BOOKDIST_STORE_URL',
  username: 'BOOKDIST_USERNAME',
  keyFile: 'BOOKDIST_KEY_FILE',
  sharedKey: 'BOOKDIST_SHARED_KEY',
  token: 'BOOKDIST_TOKEN',
  caFile: 'BOOKDIST_CA_FILE',
  resolve: 'BOOKDIST_RESOLVE',
  idempotencyKeys: 'BOOKDIST_IDEMPOTENCY_KEYS',
  ledger: 'BOOKDIST_LEDGER',
} as const;

export async function resolveConfig(input: ResolveInput): Promise<ResolvedConfig> {
  const { env, flags } = input;
  const store = await input.loadStore();
  const pick = (
    flag: string | undefined,
    envName: string,
    profileValue: string | undefined,
    profileName: string,
  ): Setting | undefined => {
    if (flag) return { value: flag, source: 'flag' };
    if (env[envName]) return { value: env[envName], source: 'env', from: envName };
    if (profileValue) return { value: profileValue, source: 'profile', from: profileName };
    return undefined;
  };

  let profile: Setting;
  if (flags.profile) profile = { value: flags.profile, source: 'flag' };
  else if (env[ENV.profile]) profile = { value: env[ENV.profile]!, source: 'env', from: ENV.profile };
  else if (store.current) profile = { value: store.current, source: 'profile', from: 'current profile' };
  else profile = { value: EMBEDDED_PROFILE, source: 'default' };

  const data: ProfileData | undefined = store.profiles[profile.value];
  if (!data && profile.value !== EMBEDDED_PROFILE && profile.source !== 'default') {
    const { CliError, ExitCode } = await import('../errors.js');
    const known = Object.keys(store.profiles);
    throw new CliError(
      `No profile named "${profile.value}" (from ${profile.from ?? '--profile'}). ` +
        (known.length ? `Known profiles: ${known.join(', ')}.` : 'Add one with `bookdist profile add`.'),
      ExitCode.USAGE,
    );
  }
  const p = data ?? {};
  const baseUrl = pick(flags.baseUrl, ENV.baseUrl, p.baseUrl, profile.value);
  // The built-in sandbox profile applies when no base URL came from anywhere.
  const embedded = !baseUrl && !data && profile.value === EMBEDDED_PROFILE;
  const storeUrl =
    pick(undefined, ENV.storeUrl, p.storeUrl, profile.value) ??
    (baseUrl ? { value: baseUrl.value, source: 'default' as Source, from: 'base URL' } : undefined);
  return {
    profile,
    embedded,
    baseUrl,
    storeUrl,
    username: pick(undefined, ENV.username, p.username, profile.value),
    keyFile: pick(undefined, ENV.keyFile, p.keyFile, profile.value),
    sharedKey: pick(undefined, ENV.sharedKey, p.sharedKey, profile.value),
    token: pick(undefined, ENV.token, p.token, profile.value),
    caFile: pick(flags.caFile, ENV.caFile, p.caFile, profile.value),
    resolve: pick(flags.resolve, ENV.resolve, undefined, profile.value),
    idempotencyKeys: (() => {
      const s = pick(
        undefined,
        ENV.idempotencyKeys,
        p.idempotencyKeys === undefined ? undefined : String(p.idempotencyKeys),
        profile.value,
      );
      return s ? { ...s, value: /^(1|true|yes|on)$/i.test(s.value) } : undefined;
    })(),
    ledger: (() => {
      const s = pick(undefined, ENV.ledger, p.ledger === undefined ? undefined : String(p.ledger), profile.value);
      return s ? { ...s, value: !/^(0|false|no|off)$/i.test(s.value.trim()) } : undefined;
    })(),
    profileBaseUrl: p.baseUrl,
    configDir: configDir(env),
    dataDir: dataDir(env),
  };
}

/** The configuration of a command: flags and environment over the profiles stored in the config dir. */
export function loadConfig(env: ResolveInput['env'], flags: ResolveInput['flags']): Promise<ResolvedConfig> {
  return resolveConfig({ env, flags, loadStore: () => readStore(configDir(env)) });
}
