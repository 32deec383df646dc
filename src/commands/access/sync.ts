// `access sync ROSTER --hash-id H`: make the book's grants the roster's. The plan (./parts/plan.ts) comes
// from the roster, the ledger's access writes for the book, and --assume-current; --dry-run prints
// it, otherwise it runs as a spec on the bulk job engine (one change an item: resumable, journal,
// signals, exit 6). A resumed job plans as its first run did: the writes of its own job are left
// out of what the ledger knows (the journal then skips the changes already made).
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { sync } from './sync.cmd.js';
import type { ApiClient } from '../../api/client.js';
import { ExitCode, messageOf, usageError } from '../../errors.js';
import * as v from '../../validate/index.js';
import { toApiError } from '../../api/errors.js';
import { isAnswer } from '../../api/answer.js';
import { chunks, countsText, ROWS_PER_BATCH, eachItem, failedRow, runJob, type JobSpec } from '../../bulk/engine.js';
import { failureOf } from '../../bulk/retry.js';
import { runPool } from '../../bulk/pool.js';
import { csvRows, inputFingerprint } from '../../bulk/rows.js';
import { jobFlags, parseBulkFlags, type BulkFlags } from '../../bulk/flags.js';
import { jobCommand } from '../given.js';
import { emit, outputFormat, type Column } from '../../output/index.js';
import { confirm } from '../confirm.js';
import { readLedger } from '../ledger/parts/common.js';
import type { Write } from '../../ledger/read.js';
import { ledgerProfile } from '../../ledger/ops.js';
import {
  ALREADY_HAS,
  HAS_NONE,
  grantsOf,
  planSync,
  usernamesByEmail,
  type Change,
  type Plan,
  type RosterEntry,
} from './parts/plan.js';
import { cellText as t } from '../../output/format.js';

export interface Options extends BulkFlags {
  hashId: string;
  price?: string;
  assumeCurrent?: string;
}

type Status = 'ok' | 'already' | 'invalid' | 'failed';

interface Result extends Record<string, unknown> {
  row: number | string;
  action: string;
  status: Status;
  username: string;
  email: string;
  message: string;
}

const COLUMNS = ['row', 'action', 'status', 'username', 'email', 'message'] as const;

/** The columns of the table on a terminal (80 columns: the e-mail address only when there is room). */
const TABLE_COLUMNS: Column[] = [
  { key: 'row', label: 'ROW', id: true },
  { key: 'action', label: 'ACTION', id: true },
  { key: 'status', label: 'STATUS', id: true },
  // A row without a username (an unknown e-mail address) shows its address.
  { key: 'username', label: 'USER', id: true, format: (v, r) => t(v || r.email) },
  { key: 'email', label: 'EMAIL', optional: true, dropEmpty: true },
  { key: 'message', label: 'MESSAGE', min: 16, want: 24 },
];

export function parse({ args, opts, command }: VerbInput<typeof sync>): Options {
  // The roster is the job's input (an argument here, where the other bulk verbs take --from-csv).
  // A sync asks for a confirmation: a --yes given is repeated.
  const again = jobCommand(command, { confirms: true });
  const bulk = parseBulkFlags({ ...opts, roster: args.roster }, { roster: 'ROSTER' }, [], again)!;
  const hashId = v.hashId(opts.hashId, '--hash-id');
  const price = opts.price !== undefined ? v.price(opts.price, '--price') : undefined;
  const assumeCurrent = opts.assumeCurrent;
  if (assumeCurrent === '-' && bulk.file === '-')
    throw usageError('ROSTER and --assume-current cannot both be stdin (-): give one of them as a file.');
  return { ...bulk, hashId, price, assumeCurrent };
}

/** A roster's users: a username, else an e-mail address to resolve; rows with neither are problems. */
async function readRoster(file: string, ctx: Context, flag: string): Promise<RosterEntry[]> {
  const out: RosterEntry[] = [];
  let checked = false;
  for await (const row of csvRows(file, ctx, { flag, required: [], optional: ['username', 'email'] })) {
    if (!checked) {
      checked = true;
      const names = Object.keys(row.values);
      if (!names.includes('username') && !names.includes('email')) {
        throw usageError(
          `${flag} ${file}: the header row names neither username nor email (it has: ${names.join(', ')}); a roster names its users in one of them.`,
        );
      }
    }
    const u = row.values.username ?? '';
    const e = row.values.email ?? '';
    const entry: RosterEntry = { line: row.line, email: e || undefined };
    try {
      if (row.problem) throw usageError(row.problem);
      if (u) entry.username = v.username(u, 'username');
      else if (e) entry.email = v.email(e, 'email');
      else throw usageError('the row gives neither a username nor an e-mail address');
    } catch (err) {
      entry.problem = messageOf(err).replace(/\.$/, '');
    }
    out.push(entry);
  }
  return out;
}

/**
 * Usernames for the entries given by e-mail: the users this ledger saw created first, then a
 * look-up of the rest (reads only). An address no user has becomes the entry's problem.
 */
async function resolveEmails(
  entries: RosterEntry[],
  known: Map<string, string>,
  api: () => Promise<ApiClient>,
  ctx: Context,
  concurrency: number,
): Promise<void> {
  const open = entries.filter((e) => !e.username && !e.problem && e.email);
  const ask = new Map<string, string | undefined>();
  for (const e of open) {
    const k = e.email!.toLowerCase();
    if (known.has(k)) e.username = known.get(k);
    else ask.set(k, undefined);
  }
  if (ask.size) {
    const client = await api();
    await runPool(
      ask.keys(),
      async (email) => {
        const res = await client.call('user.email', { params: { email } });
        if (res.status === 404) return;
        const username = isAnswer(res) ? (res.body as { user?: { username?: unknown } }).user?.username : undefined;
        if (typeof username !== 'string') throw toApiError(res);
        ask.set(email, username.toLowerCase());
      },
      { concurrency, signal: ctx.signal },
    );
  }
  for (const e of open) {
    if (e.username) continue;
    const found = ask.get(e.email!.toLowerCase());
    if (found) e.username = found;
    else e.problem = 'no user has this e-mail address';
  }
}

interface Planned {
  plan: Plan;
  profile: string;
  writes: Write[];
}

/** The plan: the roster and the previous roster read and resolved, against the ledger's grants. */
async function makePlan(o: Options, ctx: Context, api: () => Promise<ApiClient>, skipJob?: string): Promise<Planned> {
  const cfg = await ctx.config();
  const profile = ledgerProfile(cfg);
  const { writes } = readLedger(ctx);
  const roster = await readRoster(o.file, ctx, 'ROSTER');
  const previous = o.assumeCurrent !== undefined ? await readRoster(o.assumeCurrent, ctx, '--assume-current') : [];
  await resolveEmails([...roster, ...previous], usernamesByEmail(writes, profile), api, ctx, o.concurrency);
  if (!roster.some((r) => r.username)) {
    throw usageError(
      `ROSTER ${o.file} names no user who exists${roster.length ? ` (${roster.length} row(s), none usable)` : ''}: a sync to it would revoke every grant of the book. ` +
        'Nothing was sent. To take access from everyone, use `bookdist access revoke --from-csv FILE`.',
    );
  }
  const plan = planSync(roster, grantsOf(writes, o.hashId, profile, ctx.clock.now(), skipJob), previous);
  return { plan, profile, writes };
}

/** What the plan is, and what the ledger cannot know, in plain words (stderr). */
function describePlan(o: Options, { plan, profile }: Planned): string[] {
  const n = (a: Change['action']) => plan.changes.filter((c) => c.action === a).length;
  const invalid = n('invalid');
  const lines = [
    `Book ${o.hashId}, profile ${profile}: ${plan.wanted} user(s) in ${o.file}; the ledger knows ${plan.known} with access` +
      (plan.unsure ? ` (and ${plan.unsure} whose last change has an unknown outcome)` : '') +
      (o.assumeCurrent !== undefined ? `, ${plan.assumed} more assumed from ${o.assumeCurrent}` : '') +
      `. Plan: ${n('allow')} to allow, ${n('revoke')} to revoke, ${plan.unchanged} unchanged` +
      (invalid ? `, ${invalid} invalid row(s)` : '') +
      '.',
  ];
  if (o.assumeCurrent === undefined) {
    lines.push(
      'Grants made outside this ledger (on another machine, with --no-ledger, or by the service itself) are unknown to it ' +
        'and are not revoked: give the previous roster with --assume-current FILE to count its users as having access.',
    );
  }
  return lines;
}

export async function run(o: Options, ctx: Context): Promise<number> {
  const input = await inputFingerprint(o.file, ctx, 'ROSTER');
  const previous =
    o.assumeCurrent !== undefined ? await inputFingerprint(o.assumeCurrent, ctx, '--assume-current') : undefined;
  if (ctx.globals.dryRun) return dryRun(o, ctx);
  const ledgerOff = ctx.globals.ledger === false || (await ctx.config()).ledger?.value === false;
  if (ledgerOff) {
    ctx.warn('the ledger is off for this run: the grants it makes will be unknown to the next `access sync`.');
  }
  let revokes = 0;
  let planned: Planned | undefined;
  const payloadOf = (c: Change) =>
    c.action === 'allow'
      ? { hash_id: o.hashId, username: c.username, price: o.price! }
      : { hash_id: o.hashId, username: c.username };
  const spec: JobSpec<Change, Result> = {
    verb: 'access sync',
    columns: COLUMNS,
    unit: 'changes',
    source: async function* () {
      // Planned once the job's id is known (a resumed job's is its journal's): its own writes are left out.
      const p = (planned = await makePlan(o, ctx, () => ctx.api(), ctx.ledgerJob));
      const changes = p.plan.changes;
      for (const line of describePlan(o, p)) ctx.info(line);
      if (!ledgerOff)
        ctx.info(
          `Its changes are recorded in the ledger as job ${ctx.ledgerJob} (\`bookdist ledger list --job ${ctx.ledgerJob}\`).`,
        );
      if (o.price === undefined && changes.some((c) => c.action === 'allow')) {
        throw usageError(
          `The plan allows ${changes.filter((c) => c.action === 'allow').length} user(s): give the price of their grants with --price (e.g. 12.01). Nothing was sent.`,
        );
      }
      revokes = changes.filter((c) => c.action === 'revoke').length;
      spec.total = changes.length;
      yield* chunks(changes, ROWS_PER_BATCH);
    },
    // The journal checks a resumed plan by what each change is, not by the words of its reason.
    digestOf: (items) => items.map((c) => [c.action, c.username, c.line ?? null]),
    process: (batch, job) =>
      eachItem(
        batch.items,
        async (c) => {
          const make = (status: Status, message: string): Result => ({
            row: c.line ?? '',
            action: c.action,
            status,
            username: c.username,
            email: c.email ?? '',
            message,
          });
          if (c.action === 'invalid') return { row: make('invalid', c.why), invalid: true };
          const allow = c.action === 'allow';
          const r = await job.call(allow ? 'access.allow' : 'access.revoke', { payload: payloadOf(c) });
          if (r.ok && isAnswer(r.response))
            return {
              row: make('ok', String(r.response.body.message ?? (allow ? 'Access granted.' : 'Access revoked.'))),
            };
          if (r.ok && (allow ? ALREADY_HAS : HAS_NONE).test(failureOf(r.response).message))
            return { row: make('already', failureOf(r.response).message) };
          return failedRow(r, make, `${c.action} ${c.username}`);
        },
        job,
        (c) =>
          c.action === 'invalid'
            ? undefined
            : { name: c.action === 'allow' ? 'access.allow' : 'access.revoke', args: { payload: payloadOf(c) } },
      ),
    status: (r) => r.status,
    stdoutColumns: outputFormat(ctx) === 'table' && !ctx.globals.fields ? TABLE_COLUMNS : undefined,
    describe: (c, st) =>
      countsText(c, st, 'change', [
        ['ok', 'made'],
        ['already', 'already so'],
        ['invalid', 'invalid'],
        ['failed', 'failed'],
      ]),
    ...jobFlags(o, ctx),
    input: o.file,
    identity: {
      ROSTER: input,
      '--hash-id': o.hashId,
      '--price': o.price ?? null,
      '--assume-current': previous ?? null,
    },
    command: o.command,
    stdoutResumeHint: () => ({
      command: o.command,
      note: 'the plan is made again from the ledger: changes already made are not repeated',
    }),
    confirm: () =>
      revokes
        ? confirm(ctx, `Revoke access to book ${o.hashId} for ${revokes} user(s) not in ${o.file}?`)
        : Promise.resolve(),
    invalidHint: ' Fix the invalid rows of the roster (or create their users) and run the sync again.',
    changedPlan: (batch) => changedPlan(o, planned, ctx.ledgerJob, batch),
  };
  return runJob(spec, ctx);
}

/**
 * --resume planned otherwise than the job did (the roster itself is checked before, by its
 * fingerprint): the ledger's grants of the book changed since the job started, by writes of other
 * commands (named), or the roster's users resolve otherwise now. --restart plans from the grants
 * as they are: the job's own changes are in the ledger, so none is made twice.
 */
function changedPlan(o: Options, p: Planned | undefined, job: string | undefined, batch: number): string {
  const mine = p?.writes.filter((w) => w.job !== undefined && w.job === job) ?? [];
  const first = mine.length ? mine.reduce((a, w) => (w.id < a.id ? w : a)) : undefined;
  const others = first
    ? p!.writes.filter(
        (w) =>
          (w.op === 'access allow' || w.op === 'access revoke') &&
          w.ids.hash_id === o.hashId &&
          w.profile === p!.profile &&
          w.job !== job &&
          (w.id > first.id || (w.settled_at !== undefined && w.settled_at >= first.t)),
      )
    : [];
  const ids = others.map((w) => `#${w.id}`);
  const cause = others.length
    ? `the book's grants in the ledger changed after the job started: ${others.length} access write(s) of this book by other commands ` +
      `(ledger ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}; \`bookdist ledger show ID\`).`
    : `the grants the ledger knows, or the users ${o.file} names, changed after the job started (an e-mail address that finds another user, a grant that expired).`;
  return (
    `--resume: the plan made now differs from the one this sync started with (batch ${batch}): ${cause} Nothing was sent. ` +
    'Run the sync again with --restart instead of --resume: it plans from the grants as they are now, and the changes this job made are in the ledger, so none is made twice ' +
    `(the results so far are kept aside).`
  );
}

/** --dry-run: the plan as rows (every output format), its summary on stderr; no write is sent. */
async function dryRun(o: Options, ctx: Context): Promise<number> {
  // Look-ups of e-mail addresses are reads: they are sent (the dry-run client would only print them).
  const api = async () => ctx.apiFor(await ctx.config(), { dryRun: false });
  const p = await makePlan(o, ctx, api);
  await emit(
    ctx,
    p.plan.changes.map((c) => ({
      action: c.action,
      username: c.username || null,
      email: c.email ?? null,
      row: c.line ?? null,
      why: c.why,
    })),
    {
      columns: [
        { key: 'action', label: 'ACTION', id: true },
        // A row without a username (an unknown e-mail address) shows its address.
        { key: 'username', label: 'USER', id: true, format: (v, r) => t(v ?? r.email) },
        { key: 'email', label: 'EMAIL', optional: true, dropEmpty: true },
        { key: 'why', label: 'WHY', min: 16, want: 34 },
      ],
      empty: 'Nothing to change: the grants the ledger knows are the roster.',
    },
  );
  for (const line of describePlan(o, p)) ctx.info(line);
  if (o.price === undefined && p.plan.changes.some((c) => c.action === 'allow'))
    ctx.info('To run it, give the price of the new grants with --price.');
  ctx.info('(dry run: nothing was sent)');
  return ExitCode.OK;
}
