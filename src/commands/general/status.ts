import type { Context } from '../../context.js';
import { emit, recsOf } from '../../output/index.js';
import { cellText as t } from '../../output/format.js';

export async function run(_: unknown, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('index');
  await emit(ctx, body, {
    card: (a, s, d) => {
      const versions = recsOf(a.available_versions)
        .map(
          (v) =>
            `  ${s.bold(t(v.version))}  ${t(v.version_string)}  (${t(v.version_date)})  ${t(v.version_url)}  help: ${t(v.version_help)}`,
        )
        .join('\n');
      return [
        `${s.bold('Host')}             ${t(a.host)}`,
        `${s.bold('Base URL')}         ${api.baseUrl}`,
        `${s.bold('Current version')}  ${t(a.current_version)}`,
        `${s.bold('Admin')}            ${t(a.admin)}`,
        `${s.bold('Test mode')}        ${d.test_mode ? s.yellow('yes') : 'no'}`,
        `${s.bold('Versions')}`,
        versions,
      ].join('\n');
    },
  });
}
