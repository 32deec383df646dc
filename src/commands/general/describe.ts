import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { emit, recsOf } from '../../output/index.js';
import { cellText as t } from '../../output/format.js';
import type { VerbInput } from '../define.js';
import type { describe } from './describe.cmd.js';

export function parse(input: VerbInput<typeof describe>) {
  return { endpoint: input.opts.endpoint };
}

export async function run(o: { endpoint?: string }, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body = await api.ok('describe');
  let endpoints = recsOf(body.endpoints ?? []);
  if (o.endpoint) {
    endpoints = endpoints.filter((e) => e.name === o.endpoint || e.path === o.endpoint);
    if (!endpoints.length)
      throw new CliError(
        `No endpoint named "${o.endpoint}"; run \`bookdist describe\` to list them.`,
        ExitCode.NOT_FOUND,
      );
  }
  await emit(
    ctx,
    { ...body, endpoints },
    {
      columns: [
        // One row per endpoint: at 80 columns name, path and scope (the widest path is 43
        // columns); the methods and the fields show on a wider terminal, and in --json.
        { key: 'name', id: true },
        // Formats read the record itself: the flattened cell of an array is already text.
        {
          key: 'methods',
          optional: true,
          id: true,
          format: (_v, r) => (Array.isArray(r.methods) ? r.methods.map(t).join('|') : t(r.methods)),
        },
        { key: 'path', id: true },
        { key: 'scope', id: true, format: (v) => (v == null ? '-' : t(v)) },
        {
          key: 'fields',
          optional: true,
          // `name*:type` per field of the request payload or query; * marks a required one.
          format: (_v, r) =>
            Array.isArray(r.fields) && r.fields.length
              ? recsOf(r.fields)
                  .map((f) => `${t(f.name)}${f.required ? '*' : ''}:${t(f.type)}`)
                  .join(' ')
              : '-',
        },
      ],
    },
  );
}
