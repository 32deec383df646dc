// Which requests are writes, and what the ledger calls them: the command that makes each one
// (`order create` for POST /v1/order/external/). A raw request (`bookdist api`) to a write path is
// recorded under that command's name; one to a path the interface does not list, as `api`.
import type { WriteRequest } from '../api/write-hook.js';
import { endpoints, findEndpoint, type Endpoint } from '../spec/endpoints.js';
import type { ResolvedConfig } from '../config/resolve.js';

/** Endpoint name → the operation the ledger records. */
const WRITE_OPS: Record<string, string> = {
  'order.external': 'order create',
  'order.refund': 'order refund',
  'order.free': 'order free',
  'user.create': 'user create',
  'user.invite': 'user invite',
  'codes.generate': 'codes generate',
  'access.allow': 'access allow',
  'access.revoke': 'access revoke',
  'book.process': 'book process',
};

/** The profile name the ledger records: `sandbox` for the embedded sandbox, `(env)` for a base URL given without a profile. */
export function ledgerProfile(cfg: ResolvedConfig): string {
  return cfg.embedded || cfg.profile.source !== 'default' ? cfg.profile.value : '(env)';
}

/** Is this request one the ledger may record (cheap: no module of the ledger's is loaded for a read)? */
export function mayWrite(req: { method: string; endpoint?: string }): boolean {
  return req.method !== 'GET' && (req.endpoint === undefined || Object.hasOwn(WRITE_OPS, req.endpoint));
}

/** Every operation a row may name, for `ledger list --op`. */
export const OPS = [...Object.values(WRITE_OPS), 'api'];

interface Route {
  name: string;
  re: RegExp;
  params: string[];
}

let routes: Route[] | undefined;
/** The routes of one endpoint, by its name (a typed call names its endpoint: no other is tried). */
const routesByName = new Map<string, Route[]>();

function routesFor(e: Endpoint): Route[] {
  return [e.path, ...(e.aliases ?? [])].map((p) => {
    const params: string[] = [];
    const re = new RegExp(
      '^' +
        p
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\\?\{(\w+)\\?\}/g, (_, n: string) => (params.push(n), '([^/]+)')) +
        '$',
    );
    return { name: e.name, re, params };
  });
}

function routesOf(endpoint?: string): Route[] {
  if (endpoint === undefined) return (routes ??= endpoints().flatMap(routesFor));
  let rs = routesByName.get(endpoint);
  if (!rs) {
    const e = findEndpoint(endpoint);
    rs = e ? routesFor(e) : [];
    routesByName.set(endpoint, rs);
  }
  return rs;
}

/** The endpoint a path is (and its path parameters), or undefined; `endpoint`: the one it is said to be. */
function match(path: string, endpoint?: string): { name: string; params: Record<string, string> } | undefined {
  const p = path.split('?')[0];
  for (const r of routesOf(endpoint)) {
    const m = r.re.exec(p);
    if (m)
      return { name: r.name, params: Object.fromEntries(r.params.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
  }
  return undefined;
}

export type Op = Readonly<{ op: string; params?: Readonly<Record<string, string>> }>;

/**
 * opOf's answers by endpoint ('' for none) and then path, while few (OP_CACHE_MAX a map): a bulk
 * job asks thousands of times for the same few, and no key string is made a request.
 */
const opCache = new Map<string, Map<string, Op | undefined>>();
const OP_CACHE_MAX = 256;

/** The operation of a write, with the identifiers its path names; undefined for a read. */
export function opOf(req: WriteRequest): Op | undefined {
  if (req.method === 'GET' || (req.endpoint !== undefined && !Object.hasOwn(WRITE_OPS, req.endpoint))) return undefined;
  const endpoint = req.endpoint ?? '';
  let byPath = opCache.get(endpoint);
  if (!byPath) opCache.set(endpoint, (byPath = new Map()));
  else if (byPath.has(req.path)) return byPath.get(req.path);
  const op = opOfPath(req);
  if (byPath.size >= OP_CACHE_MAX) byPath.clear();
  byPath.set(req.path, op);
  return op;
}

function opOfPath(req: WriteRequest): { op: string; params?: Record<string, string> } | undefined {
  const m = match(req.path, req.endpoint);
  const name = req.endpoint ?? m?.name;
  if (name && WRITE_OPS[name])
    return { op: WRITE_OPS[name], params: m?.params && Object.keys(m.params).length ? m.params : undefined };
  if (req.endpoint || m) return undefined; // a read sent as POST (search, viewer, purchase...)
  return { op: 'api' };
}
