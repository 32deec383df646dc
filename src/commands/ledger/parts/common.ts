// What the ledger verbs share: the store of this environment, its writes, and the filters.
import type { Context } from '../../../context.js';
import { usageError } from '../../../errors.js';
import { LedgerStore, ledgerDir } from '../../../ledger/store.js';
import {
  foldWrites,
  matches,
  parseLedger,
  type Filter,
  type Parsed,
  type Status,
  type Write,
} from '../../../ledger/read.js';
import { OPS } from '../../../ledger/ops.js';

export function storeOf(ctx: Context): LedgerStore {
  return new LedgerStore(ledgerDir(ctx.io.env));
}

export function readLedger(ctx: Context): { store: LedgerStore; parsed: Parsed; writes: Write[] } {
  const store = storeOf(ctx);
  const parsed = parseLedger(store.readText());
  return { store, parsed, writes: foldWrites(parsed.rows) };
}

const AGE = /^(\d+)\s*(m|h|d|w)$/i;
const UNIT: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** A time given as YYYY-MM-DD (UTC midnight), an ISO date-time, or an age (24h, 7d) before now. */
export function parseWhen(value: string, flag: string, now: Date): Date {
  const v = value.trim();
  const age = AGE.exec(v);
  if (age) return new Date(now.getTime() - Number(age[1]) * UNIT[age[2].toLowerCase()]);
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const d = new Date(v + 'T00:00:00Z');
    if (!Number.isNaN(d.getTime())) return d;
  } else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(v)) {
    const d = new Date(v.replace(' ', 'T'));
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw usageError(
    `${flag} ${value}: give a date (YYYY-MM-DD), a date-time (YYYY-MM-DDTHH:MM[:SS][Z]) or an age such as 24h or 7d.`,
  );
}

interface FilterOpts {
  since?: string;
  until?: string;
  op?: string;
  status?: Status;
  user?: string;
  book?: string;
  job?: string;
  org?: string;
  label?: string;
}

export function filterOf(o: FilterOpts, ctx: Context): Filter {
  const now = ctx.clock.now();
  if (o.op !== undefined && !OPS.includes(o.op))
    throw usageError(
      `--op ${o.op}: not an operation the ledger records; give one of ${OPS.map((x) => `"${x}"`).join(', ')}.`,
    );
  const f: Filter = {
    since: o.since !== undefined ? parseWhen(o.since, '--since', now) : undefined,
    until: o.until !== undefined ? parseWhen(o.until, '--until', now) : undefined,
    op: o.op,
    status: o.status,
    user: o.user,
    book: o.book,
    job: o.job,
    org: o.org,
    label: o.label,
    profile: ctx.globals.profile,
  };
  return f;
}

function select(writes: Write[], f: Filter): Write[] {
  return writes.filter((w) => matches(w, f));
}

/**
 * The writes that match, without those a stopped job told ahead and never sent (they did nothing)
 * unless --status asks for a status; `left` counts those left out, and `note` says so (stderr).
 */
export function selectSent(writes: Write[], f: Filter): { writes: Write[]; left: number; note?: string } {
  const chosen = select(writes, f);
  const sent = f.status ? chosen : chosen.filter((w) => w.status !== 'unsent');
  const left = chosen.length - sent.length;
  return {
    writes: sent,
    left,
    note: left
      ? `${left} unsent write(s) left out: a job that stopped had told them ahead and never sent them (\`--status unsent\` selects them).`
      : undefined,
  };
}

/** A write as one flat record (list, export): stable field names. */
export function recordOf(w: Write): Record<string, unknown> {
  return {
    id: w.id,
    time: w.t,
    profile: w.profile,
    host: w.host,
    op: w.op,
    status: w.status,
    recorded: w.recorded,
    settled: w.settled ?? null,
    http: w.http ?? null,
    job: w.job ?? null,
    ...w.ids,
    idempotency_key: w.idempotency_key ?? null,
    returned: w.returned ?? null,
    reason: w.reason ?? null,
  };
}
