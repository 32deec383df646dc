// `bookdist sandbox openapi`: print the OpenAPI 3.1 document of the service, the same one a
// running sandbox serves at GET /openapi.json. No sandbox or database is needed.
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import type { VerbInput } from '../define.js';
import type { openapi } from './openapi.cmd.js';

export function parse({ opts }: VerbInput<typeof openapi>) {
  const server = opts.server;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw usageError(`--server ${server}: give the base URL of the service, like http://127.0.0.1:8710.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`--server ${server}: the base URL must start with http:// or https://.`);
  return { server: server.replace(/\/+$/, '') };
}

export async function run(o: { server: string }, ctx: Context): Promise<void> {
  const { openApiDocument } = await import('../../spec/openapi.js');
  // One record, the document, JSON by default; --fields/--query/-o as everywhere else.
  const { emit } = await import('../../output/index.js');
  await emit(ctx, openApiDocument(o.server));
}
