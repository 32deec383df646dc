import type { Context } from '../../context.js';
import { configDir } from '../../config/paths.js';
import { readStore } from '../../config/store.js';
import { EMBEDDED_PROFILE } from '../../config/resolve.js';
import { emit } from '../../output/index.js';
import { cellText as t } from '../../output/format.js';
import { publicView } from './parts/common.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const store = await readStore(configDir(ctx.io.env));
  const current = store.current && store.profiles[store.current] ? store.current : EMBEDDED_PROFILE;
  const rows = [
    {
      name: EMBEDDED_PROFILE,
      current: current === EMBEDDED_PROFILE,
      base_url: null,
      store_url: null,
      username: null,
      auth: 'crypto',
      key_file: null,
      shared_key: null,
      token: null,
      builtin: true,
    },
    ...Object.keys(store.profiles)
      .sort()
      .map((name) => publicView(name, store.profiles[name], name === current)),
  ];
  await emit(ctx, rows, {
    columns: [
      { key: 'current', label: ' ', format: (v) => (v ? '*' : '') },
      { key: 'name' },
      { key: 'base_url', label: 'base url', format: (v, r) => (r.builtin ? '(built-in local sandbox)' : t(v)) },
      { key: 'username' },
      { key: 'auth' },
    ],
  });
}
