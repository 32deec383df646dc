// Which endpoint of the table a method and path go to (a path template's `{param}` takes one
// segment; a literal segment wins over a parameter). Small and free of the schema library: the
// raw `bookdist api` call verifies its answer by it, --dry-run checks payloads by it.
import { endpoints, type Endpoint } from './endpoints.js';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ROUTES: Array<[RegExp, Endpoint]> = endpoints().flatMap((ep) =>
  [ep.path, ...(ep.aliases ?? [])].map((p): [RegExp, Endpoint] => {
    // A literal segment wins over a parameter (/v1/book/isbn/{isbn}/ before /v1/book/{hash_id}/):
    // the table lists the literal forms first where it matters, and a parameter takes one segment.
    const re = escape(p.replace(/\/$/, '')).replace(/\\\{\w+\\\}/g, '[^/]+');
    return [new RegExp(`^${re}/?$`), ep];
  }),
);

/** The endpoint a request goes to, by method, path and host; undefined when the table has none. */
export function endpointFor(method: string, path: string, host: 'api' | 'store'): Endpoint | undefined {
  const pathname = path.split('?')[0];
  const literal = ROUTES.filter(
    ([re, ep]) => re.test(pathname) && ep.host === host && (ep.methods as string[]).includes(method),
  );
  // Prefer the route with the most literal characters (a literal segment wins over a parameter).
  return literal.sort(
    ([a], [b]) => b.source.replace(/\[\^\/\]\+/g, '').length - a.source.replace(/\[\^\/\]\+/g, '').length,
  )[0]?.[1];
}
