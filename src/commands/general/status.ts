import type { Context } from '../../context.js';
import { emit, recsOf } from '../../output/index.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('index');
  await emit(ctx, body, {
    card: (a, s, d) => {
      const versions = recsOf(a.available_versions)
        .map((v) => `  ${s.bold(String(v.version))}  ${v.version_string}  (${v.version_date})  ${v.version_url}  help: ${v.version_help}`)
        .join('\n');
      return [
        `${s.bold('Host')}             ${a.host ?? ''}`,
        `${s.bold('Base URL')}         ${api.baseUrl}`,
        `${s.bold('Current version')}  ${a.current_version ?? ''}`,
        `${s.bold('Admin')}            ${a.admin ?? ''}`,
        `${s.bold('Test mode')}        ${d.test_mode ? s.yellow('yes') : 'no'}`,
        `${s.bold('Versions')}`,
        versions,
      ].join('\n');
    },
  });
}
