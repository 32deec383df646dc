// The router, compiled from the endpoint table (src/spec/endpoints.ts): every path and alias,
// with and without the final slash; static segments win over parameters.
import { endpoints, type Endpoint } from '../../spec/endpoints.js';

interface Route {
  ep: Endpoint;
  segments: Array<{ literal: string } | { param: string }>;
  rank: number[];
}

function compile(ep: Endpoint, path: string): Route {
  const parts = path.split('/').filter(Boolean);
  const segments = parts.map((p) => {
    const m = /^\{(\w+)\}$/.exec(p);
    return m ? { param: m[1] } : { literal: p };
  });
  // More literal segments first; on a tie, the one whose first parameter comes later.
  const literals = segments.filter((s) => 'literal' in s).length;
  const firstParam = segments.findIndex((s) => 'param' in s);
  return { ep, segments, rank: [-literals, -(firstParam === -1 ? 99 : firstParam)] };
}

const ROUTES: Route[] = endpoints()
  .flatMap((ep) => [ep.path, ...(ep.aliases ?? [])].map((p) => compile(ep, p)))
  .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1]);

export interface RouteMatch {
  ep: Endpoint;
  params: Record<string, string>;
  /** The query, when the path carried it (the Ruby reference client's GET params). */
  query?: URLSearchParams;
}

// A last path segment that is a query: `limit=500&offset=0`.
const QUERY_SEGMENT = /^(\/(?:[^/]+\/)*)([^/=&]+=[^/]*)\/?$/;

/**
 * Match a raw (still percent-encoded) pathname. Throws URIError on a malformed escape.
 * Returns undefined when no endpoint has this path.
 *
 * With `method` GET, a path that matches nothing as it stands may end in its query: the Ruby
 * reference client's builder joins a GET's params to the path with no `?`, so its book index
 * asks for `/v1/book/index/limit=500&offset=0/`. That last segment is then the query of an
 * endpoint that takes GET with fields (a GET reads its fields from its query).
 */
export function matchRoute(pathname: string, method?: string): RouteMatch | undefined {
  const direct = matchPath(pathname);
  if (direct || method !== 'GET') return direct;
  const m = QUERY_SEGMENT.exec(pathname);
  const under = m ? matchPath(m[1]) : undefined;
  if (!under || under.ep.fields.length === 0 || !under.ep.methods.includes('GET')) return undefined;
  return { ...under, query: new URLSearchParams(m![2]) };
}

function matchPath(pathname: string): RouteMatch | undefined {
  if (hasEmptySegment(pathname)) return undefined;
  const raw = pathname.split('/').filter(Boolean);
  for (const r of ROUTES) {
    if (r.segments.length !== raw.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < raw.length; i++) {
      const s = r.segments[i];
      if ('literal' in s) {
        if (s.literal !== raw[i]) {
          ok = false;
          break;
        }
      } else {
        const v = decodeURIComponent(raw[i]);
        if (!v) {
          ok = false;
          break;
        }
        params[s.param] = v;
      }
    }
    if (ok) return { ep: r.ep, params };
  }
  return undefined;
}

/** Is there an empty segment inside the path (`/v1//book/`)? Such paths never match. */
export function hasEmptySegment(pathname: string): boolean {
  return /\/\/+/.test(pathname);
}

/** Every route the router serves, from its compiled table: the path template and its methods. */
export function listRoutes(): Array<{ name: string; path: string; methods: string[] }> {
  return ROUTES.map((r) => ({
    name: r.ep.name,
    path: '/' + r.segments.map((s) => ('literal' in s ? s.literal : `{${s.param}}`)).join('/'),
    methods: [...r.ep.methods],
  }));
}
