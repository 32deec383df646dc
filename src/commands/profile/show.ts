// `bookdist profile show [name]`: every setting the next command would use, with its source.
import { messageOf } from '../../errors.js';
import type { Context } from '../../context.js';
import { GAP } from '../../output/table.js';
import { textWidth } from '../../output/text.js';
import { configDir } from '../../config/paths.js';
import { readStore } from '../../config/store.js';
import { resolveConfig, type Setting } from '../../config/resolve.js';
import { REDACTED } from '../../api/wire.js';
import { routeFor } from '../../api/network.js';
import { emit } from '../../output/index.js';
import { grid, kv, type Pair } from '../render.js';
import type { VerbInput } from '../define.js';
import type { show } from './show.cmd.js';

export function parse({ args }: VerbInput<typeof show>): { name?: string } {
  return { name: args.name };
}

interface Row {
  setting: string;
  value: string | null;
  source: string | null;
}

function source(s: Setting<unknown> | undefined, flag?: string): string | null {
  if (!s) return null;
  switch (s.source) {
    case 'flag':
      return flag ? `flag ${flag}` : 'flag';
    case 'env':
      return `env ${s.from}`;
    case 'profile':
      return s.from === 'current profile' ? 'current profile (bookdist profile use)' : `profile ${s.from}`;
    default:
      return s.from ? `default (${s.from})` : 'default';
  }
}

/** Whether requests to the base URL go through a proxy, and which setting decided it (credentials never shown). */
function proxyRow(baseUrl: string | undefined, env: Record<string, string | undefined>): Row {
  if (!baseUrl) return { setting: 'proxy', value: 'none (the local sandbox is loopback, never proxied)', source: null };
  try {
    const r = routeFor(new URL(baseUrl), env);
    return r.proxy
      ? { setting: 'proxy', value: r.shown!, source: `env ${r.why}` }
      : { setting: 'proxy', value: 'none', source: r.why };
  } catch (e) {
    return { setting: 'proxy', value: 'unusable', source: messageOf(e) };
  }
}

export async function run(o: { name?: string }, ctx: Context): Promise<void> {
  const env = ctx.io.env;
  const cfg = await resolveConfig({
    env,
    flags: { profile: o.name ?? ctx.globals.profile, baseUrl: ctx.globals.baseUrl, caFile: ctx.globals.caFile },
    loadStore: () => readStore(configDir(env)),
  });
  const secret = (s: Setting | undefined) => (s ? REDACTED : null);
  const builtin = 'built-in sandbox profile';
  const rows: Row[] = [
    {
      setting: 'profile',
      value: cfg.profile.value + (cfg.embedded ? ' (built-in local sandbox)' : ''),
      source: o.name ? 'argument' : source(cfg.profile, '--profile'),
    },
    cfg.embedded
      ? { setting: 'base_url', value: 'local sandbox, started on demand', source: builtin }
      : { setting: 'base_url', value: cfg.baseUrl?.value ?? null, source: source(cfg.baseUrl, '--base-url') },
    cfg.embedded
      ? { setting: 'store_url', value: 'the sandbox', source: builtin }
      : { setting: 'store_url', value: cfg.storeUrl?.value ?? null, source: source(cfg.storeUrl) },
    cfg.embedded && !cfg.username
      ? { setting: 'username', value: 'the seeded partner account', source: builtin }
      : { setting: 'username', value: cfg.username?.value ?? null, source: source(cfg.username) },
    cfg.embedded && !cfg.keyFile
      ? { setting: 'key_file', value: "the seeded partner's key", source: builtin }
      : { setting: 'key_file', value: cfg.keyFile?.value ?? null, source: source(cfg.keyFile) },
    { setting: 'shared_key', value: secret(cfg.sharedKey), source: source(cfg.sharedKey) },
    cfg.embedded && !cfg.token
      ? { setting: 'token', value: REDACTED, source: builtin }
      : { setting: 'token', value: secret(cfg.token), source: source(cfg.token) },
    { setting: 'ca_file', value: cfg.caFile?.value ?? null, source: source(cfg.caFile, '--ca-file') },
    cfg.embedded
      ? { setting: 'idempotency_keys', value: 'honoured', source: builtin }
      : {
          setting: 'idempotency_keys',
          value: cfg.idempotencyKeys ? (cfg.idempotencyKeys.value ? 'honoured' : 'not honoured') : 'not honoured',
          source: source(cfg.idempotencyKeys) ?? 'default',
        },
    proxyRow(cfg.embedded ? undefined : cfg.baseUrl?.value, env),
    {
      setting: 'config_dir',
      value: cfg.configDir,
      source: env.BOOKDIST_CONFIG_DIR
        ? 'env BOOKDIST_CONFIG_DIR'
        : env.XDG_CONFIG_HOME
          ? 'env XDG_CONFIG_HOME'
          : 'default',
    },
  ];
  // One record: each setting with its value and where it came from.
  const obj: Record<string, unknown> = { builtin: cfg.embedded };
  for (const r of rows) obj[r.setting] = { value: r.value, source: r.source };
  await emit(ctx, obj, {
    card: (_d, s) => {
      const cells = rows.map((r) => [
        r.setting,
        r.value == null ? '-' : String(r.value),
        r.source == null ? 'not set' : String(r.source),
      ]);
      const widest = Math.max(...cells.map((c) => c.reduce((n, x) => n + textWidth(x), 0) + 2 * GAP));
      if (widest <= s.width) return grid(s, ['SETTING', { head: 'VALUE', fixed: true }, 'SOURCE'], cells, '');
      // Values are paths and URLs, never cut: on a narrow terminal each wraps beside its setting.
      return kv(
        s,
        cells.map(([k, v, from]): Pair => [k, `${v} (${from})`]),
      );
    },
  });
}
