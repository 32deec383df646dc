// `bookdist sandbox requests list|show|tail|verify|clear`: the sandbox's request journal, read
// from its database (--db) or from a running sandbox's control routes (--url).
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import { emit, type Rec, type Style } from '../../output/index.js';
import { checkDuration } from '../../util/duration.js';
import type { VerbInput } from '../define.js';
import type { requestsClear, requestsList, requestsShow, requestsTail, requestsVerify } from './requests.cmd.js';
import { controlClient, openStore } from './parts/common.js';
import type { JournalEntry, JournalFilter } from '../../sandbox/journal/query.js';

/** How often `tail` asks for new requests (each is on screen within two of these). */
const TAIL_POLL_MS = 80;

interface Where {
  db?: string;
  url?: string;
}

/** Where the journal is read: the database (--db, or the default one), or a running sandbox's control routes. */
interface Source {
  list(f: JournalFilter, limit?: number): Promise<{ total: number; last_id: number; requests: JournalEntry[] }>;
  get(id: number): Promise<JournalEntry | undefined>;
  clear(): Promise<number>;
}

async function sourceOf(ctx: Context, w: Where): Promise<Source> {
  if (w.url) {
    const client = await controlClient(ctx, { url: w.url, db: w.db });
    return {
      async list(f, limit) {
        const q = new URLSearchParams();
        if (f.method) q.set('method', f.method);
        if (f.path) q.set('path', f.path);
        if (f.status) q.set('status', f.status);
        if (f.account) q.set('account', f.account);
        if (f.since !== undefined) q.set('since', String(f.since));
        if (f.afterId !== undefined) q.set('after_id', String(f.afterId));
        for (const b of f.body ?? []) q.append('body', b);
        if (limit !== undefined) q.set('limit', String(limit));
        const out = await client.call('GET', `/_sandbox/requests?${q.toString()}`);
        return { total: Number(out.total), last_id: Number(out.last_id), requests: out.requests as JournalEntry[] };
      },
      async get(id) {
        const a = await client.request('GET', `/_sandbox/requests/${id}`);
        if (a.status === 404) return undefined;
        return client.ok(a).request as JournalEntry;
      },
      async clear() {
        return Number((await client.call('POST', '/_sandbox/requests/clear', {})).cleared);
      },
    };
  }
  const store = await openStore(ctx, w.db);
  const q = await import('../../sandbox/journal/query.js');
  return {
    list: async (f, limit) => ({ ...q.listRequests(store, f, limit), last_id: q.lastRequestId(store) }),
    get: async (id) => q.getRequest(store, id),
    clear: async () => q.clearRequests(store),
  };
}

// ------------------------------------------------------------------------------ filters

interface FilterOpts {
  method?: string;
  path?: string;
  status?: string;
  account?: string;
  since?: string;
  body?: string[];
}

function filterOf(o: FilterOpts, now = Date.now()): JournalFilter {
  const f: JournalFilter = {
    method: o.method?.toUpperCase(),
    path: o.path,
    status: o.status,
    account: o.account,
    body: o.body ?? [],
  };
  if (f.method !== undefined && !/^[A-Z]{1,16}$/.test(f.method))
    throw usageError(`--method must be an HTTP method such as GET or POST, not "${o.method}".`);
  if (f.path !== undefined && !f.path.startsWith('/'))
    throw usageError(`--path must start with / (e.g. /v1/order/external/ or /v1/book/*), not "${o.path}".`);
  if (f.status !== undefined && !/^(\d{3}|[1-5]xx)$/i.test(f.status))
    throw usageError(`--status must be a status such as 201 or a class such as 4xx, not "${o.status}".`);
  for (const b of f.body ?? []) {
    if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*(=|$)/.test(b)) {
      throw usageError(
        `--body must be name=value (a field of the request body, dotted for nested ones, e.g. order_type=TestPlan or billing_address.country=US), not "${b}".`,
      );
    }
  }
  if (o.since !== undefined) {
    const t = o.since.trim();
    if (/^\d{4}-\d\d-\d\d/.test(t) && Number.isFinite(Date.parse(t))) f.since = Date.parse(t);
    else {
      const d = checkDuration('--since', t, {
        minMs: 0,
        maxMs: 3650 * 86_400_000,
        max: '3650d',
        like: '10m, 2h or an ISO time such as 2026-01-31T12:00:00Z',
      });
      if ('problem' in d) throw usageError(d.problem);
      f.since = now - d.ms;
    }
  }
  return f;
}

const filterOpts = (opts: FilterOpts): FilterOpts => ({
  method: opts.method,
  path: opts.path,
  status: opts.status,
  account: opts.account,
  since: opts.since,
  body: opts.body,
});

/** The filter in words, as verify and tail say it: `POST /v1/order/external/ with body.order_type = "TestPlan"`. */
function describeFilter(f: JournalFilter): string {
  const parts = [f.method ?? 'any method', f.path ?? 'any path'];
  if (f.status) parts.push(`status ${f.status}`);
  if (f.account) parts.push(`account ${f.account}`);
  if (f.since !== undefined) parts.push(`since ${new Date(f.since).toISOString()}`);
  const body = (f.body ?? []).map((b) =>
    b.includes('=')
      ? `body.${b.slice(0, b.indexOf('='))} = ${JSON.stringify(b.slice(b.indexOf('=') + 1))}`
      : `body.${b} present`,
  );
  return parts.join(' ') + (body.length ? ` with ${body.join(' and ')}` : '');
}

/** One request as one line: `#12 12:00:01.234 POST /v1/order/external/ 200 3.1ms CryptoAuth <account>`. */
function line(e: JournalEntry): string {
  const time = e.at.slice(11, 23);
  const q = e.query ? `?${e.query}` : '';
  return `#${e.id} ${time} ${e.method} ${e.path}${q} ${e.status} ${e.duration_ms}ms ${e.auth} ${e.account ?? '-'}`;
}

const COLUMNS = [
  { key: 'id', id: true },
  { key: 'at' },
  { key: 'method' },
  { key: 'path', id: true },
  { key: 'status' },
  { key: 'duration_ms', label: 'ms', optional: true },
  { key: 'auth', optional: true },
  { key: 'account', optional: true },
];

// ------------------------------------------------------------------------------ list

interface ListOptions extends Where {
  filter: JournalFilter;
  limit?: number;
}

export const list = {
  parse({ opts }: VerbInput<typeof requestsList>): ListOptions {
    let limit: number | undefined;
    if (opts.limit !== undefined) {
      limit = Number(opts.limit);
      if (!/^\d+$/.test(opts.limit) || limit < 1)
        throw usageError(`--limit must be a whole number of requests (1 or more), not "${opts.limit}".`);
    }
    return { filter: filterOf(filterOpts(opts)), limit, db: opts.db, url: opts.url };
  },
  async run(o: ListOptions, ctx: Context) {
    const src = await sourceOf(ctx, o);
    const { total, requests } = await src.list(o.filter, o.limit ?? 100);
    await emit(ctx, { total, requests }, { columns: COLUMNS, empty: 'No requests match.' });
    if (total > requests.length)
      ctx.info(`Showing the newest ${requests.length} of ${total} matching requests; --limit shows more.`);
  },
};

// ------------------------------------------------------------------------------ show

export const show = {
  parse({ args, opts }: VerbInput<typeof requestsShow>): Where & { id: number } {
    const id = Number(String(args.id).replace(/^#/, ''));
    if (!/^#?\d{1,15}$/.test(args.id) || id < 1)
      throw usageError(
        `<id> must be a request id from \`bookdist sandbox requests list\`, such as 12, not "${args.id}".`,
      );
    return { id, db: opts.db, url: opts.url };
  },
  async run(o: Where & { id: number }, ctx: Context) {
    const src = await sourceOf(ctx, o);
    const e = await src.get(o.id);
    if (!e)
      throw new CliError(
        `No request ${o.id} in the journal (it may have been dropped as the oldest, or cleared).`,
        ExitCode.NOT_FOUND,
      );
    await emit(ctx, { request: e }, { card: card });
  },
};

function card(r: Rec, s: Style): string {
  const e = r as unknown as JournalEntry;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const out = [
    `${s.bold(`#${e.id}`)}  ${e.method} ${e.path}${e.query ? `?${e.query}` : ''}  ${e.status >= 400 || e.status === 0 ? s.red(String(e.status)) : s.green(String(e.status))}`,
    `${s.bold('At')}        ${e.at} (sandbox clock ${e.sandbox_at})`,
    `${s.bold('Took')}      ${e.duration_ms} ms`,
    `${s.bold('Auth')}      ${e.auth}${e.account ? ` as ${e.account}` : ''}`,
  ];
  if (e.endpoint) out.push(`${s.bold('Endpoint')}  ${e.endpoint}`);
  if (Object.keys(e.changes ?? {}).length) out.push(`${s.bold('Changed')}   ${JSON.stringify(e.changes)}`);
  if (e.emails?.length) out.push(`${s.bold('E-mails')}   outbox ${e.emails.map((i) => `#${i}`).join(', ')}`);
  out.push(s.bold('Headers'), json(e.headers));
  if (e.request !== null) out.push(s.bold('Request body'), json(e.request));
  if (e.response !== null) out.push(s.bold('Response body'), json(e.response));
  return out.join('\n');
}

// ------------------------------------------------------------------------------ tail

export const tail = {
  parse({ opts }: VerbInput<typeof requestsTail>): Where & { filter: JournalFilter } {
    return { filter: filterOf(filterOpts(opts)), db: opts.db, url: opts.url };
  },
  async run(o: Where & { filter: JournalFilter }, ctx: Context): Promise<number> {
    const src = await sourceOf(ctx, o);
    ctx.trapInterrupt();
    const json = ctx.globals.json || ctx.globals.output === 'json' || ctx.globals.output === 'ndjson';
    let after = (await src.list({ afterId: Number.MAX_SAFE_INTEGER }, 0)).last_id;
    ctx.info(
      `Following the requests of ${o.url ?? 'the sandbox database'} that match ${describeFilter(o.filter)}; Ctrl-C stops.`,
    );
    while (!ctx.signal.aborted) {
      const { requests, last_id } = await src.list({ ...o.filter, afterId: after });
      for (const e of requests) ctx.io.stdout.write((json ? JSON.stringify(e) : line(e)) + '\n');
      after = Math.max(after, last_id, ...requests.map((e) => e.id));
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, TAIL_POLL_MS);
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
    }
    return 0;
  },
};

// ------------------------------------------------------------------------------ verify

interface VerifyOptions extends Where {
  filter: JournalFilter;
  expect: { kind: 'count' | 'at-least'; n: number };
}

export const verify = {
  parse({ opts }: VerbInput<typeof requestsVerify>): VerifyOptions {
    const given = [
      opts.count !== undefined && 'count',
      opts.atLeast !== undefined && 'at-least',
      opts.none && 'none',
    ].filter(Boolean);
    if (given.length !== 1)
      throw usageError('Give one of --count N, --at-least N or --none: how many requests must match.');
    const n = (flag: string, v: string) => {
      if (!/^\d{1,9}$/.test(v)) throw usageError(`--${flag} must be a whole number of requests, not "${v}".`);
      return Number(v);
    };
    const expect: VerifyOptions['expect'] = opts.none
      ? { kind: 'count', n: 0 }
      : opts.count !== undefined
        ? { kind: 'count', n: n('count', opts.count) }
        : { kind: 'at-least', n: n('at-least', opts.atLeast ?? '') };
    const filter = filterOf(filterOpts(opts));
    if (!filter.method && !filter.path)
      throw usageError(
        'Say which requests to count: --method and/or --path (e.g. --method POST --path /v1/order/external/).',
      );
    return { filter, expect, db: opts.db, url: opts.url };
  },
  async run(o: VerifyOptions, ctx: Context): Promise<number> {
    const src = await sourceOf(ctx, o);
    // The candidates: every request of the path (or method) in the window, so that the ones that
    // missed can be shown with the field that made them miss.
    const { matched, near } = await candidates(src, o.filter);
    const ok = o.expect.kind === 'count' ? matched.length === o.expect.n : matched.length >= o.expect.n;
    const want =
      o.expect.kind === 'count'
        ? o.expect.n === 0
          ? 'no request'
          : `exactly ${o.expect.n} request${o.expect.n === 1 ? '' : 's'}`
        : `at least ${o.expect.n} request${o.expect.n === 1 ? '' : 's'}`;
    const what = describeFilter(o.filter);
    const json = ctx.globals.json || ctx.globals.output === 'json';
    if (json) {
      ctx.io.stdout.write(
        JSON.stringify({
          ok,
          expected: { [o.expect.kind === 'count' ? 'count' : 'at_least']: o.expect.n },
          matched: matched.length,
          filter: o.filter,
          requests: matched.map(brief),
          near_misses: near.map(({ e, why }) => ({ ...brief(e), why })),
        }) + '\n',
      );
      return ok ? 0 : 1;
    }
    if (ok) {
      ctx.io.stdout.write(
        `ok: ${matched.length} request${matched.length === 1 ? '' : 's'} matched ${what} (expected ${want})\n`,
      );
      return 0;
    }
    const out = [
      `requests verify failed: expected ${want} matching`,
      `    ${what}`,
      `but ${matched.length === 0 ? 'none' : matched.length} matched:`,
    ];
    for (const e of matched.slice(-20)) out.push(`  + ${line(e)}${bodyNote(e, o.filter)}`);
    if (matched.length > 20) out.push(`  (${matched.length - 20} more)`);
    if (near.length) {
      out.push('Near misses (same path or method, one field different):');
      for (const { e, why } of near.slice(-10)) out.push(`  - ${line(e)}: ${why.join('; ')}`);
    }
    if (!matched.length && !near.length)
      out.push(
        '  (no request of that method or path is in the journal: was it sent to this sandbox, and is its journal on?)',
      );
    ctx.io.stderr.write(out.join('\n') + '\n');
    return 1;
  },
};

const brief = (e: JournalEntry) => ({
  id: e.id,
  at: e.at,
  method: e.method,
  path: e.path,
  status: e.status,
  account: e.account,
  request: e.request,
});

/** The values of the asked-for body fields, for the lines of a diff. */
function bodyNote(e: JournalEntry, f: JournalFilter): string {
  const names = (f.body ?? []).map((b) => (b.includes('=') ? b.slice(0, b.indexOf('=')) : b));
  if (!names.length) return '';
  return (
    '  ' +
    names
      .map(
        (n) =>
          `${n}=${JSON.stringify(n.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Rec)[k] : undefined), e.request))}`,
      )
      .join(' ')
  );
}

async function candidates(
  src: Source,
  f: JournalFilter,
): Promise<{ matched: JournalEntry[]; near: Array<{ e: JournalEntry; why: string[] }> }> {
  const { mismatches } = await import('../../sandbox/journal/query.js');
  // By path when given (other methods and bodies are near misses), else by method.
  const wide: JournalFilter = f.path ? { path: f.path, since: f.since } : { method: f.method, since: f.since };
  const { requests } = await src.list(wide);
  const matched: JournalEntry[] = [];
  const near: Array<{ e: JournalEntry; why: string[] }> = [];
  for (const e of requests) {
    const why = mismatches(e, f);
    if (!why.length) matched.push(e);
    else if (why.length === 1) near.push({ e, why });
  }
  return { matched, near };
}

// ------------------------------------------------------------------------------ clear

export const clear = {
  parse({ opts }: VerbInput<typeof requestsClear>): Where {
    return { db: opts.db, url: opts.url };
  },
  async run(o: Where, ctx: Context) {
    const n = await (await sourceOf(ctx, o)).clear();
    await emit(ctx, { cleared: n, message: `Cleared ${n} request${n === 1 ? '' : 's'} from the journal.` });
  },
};
