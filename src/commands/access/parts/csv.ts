// `access allow|revoke --from-csv FILE`: one request per CSV row, a spec on the bulk job engine.
// One result per row (row, status, message, hash_id, username) to stdout or --results FILE.
//
// Statuses: ok; already (the row was already in the desired state: not a failure); invalid (bad
// values, nothing sent); failed (the service refused, or stayed unavailable after retries:
// --resume sends the row again). Repeating a row is harmless by the access state table (allow on
// "has access" answers "already has access", revoke on "no access" answers "Purchase record not
// found"), so a batch cut short by a crash is simply sent again on --resume.
import type { Context } from '../../../context.js';
import * as v from '../../../validate/index.js';
import { usageError, messageOf } from '../../../errors.js';
import {
  chunks,
  countsText,
  ROWS_PER_BATCH,
  eachItem,
  failedRow,
  perItem,
  runJob,
  type JobSpec,
} from '../../../bulk/engine.js';
import { failureOf } from '../../../bulk/retry.js';
import { isAnswer } from '../../../api/answer.js';
import type { Payload } from '../../../spec/contract.js';
import { csvRows, inputFingerprint, type InputRow } from '../../../bulk/rows.js';
import { confirm } from '../../confirm.js';
import { jobFlags, type BulkFlags } from '../../../bulk/flags.js';

type Status = 'ok' | 'already' | 'invalid' | 'failed';

interface Result extends Record<string, unknown> {
  row: number;
  status: Status;
  message: string;
  hash_id: string;
  username: string;
}

const COLUMNS = ['row', 'status', 'message', 'hash_id', 'username'] as const;

function bool(value: string, flag: string): boolean | undefined {
  const s = value.trim().toLowerCase();
  if (s === '') return undefined;
  if (['true', 'yes', 'y', '1'].includes(s)) return true;
  if (['false', 'no', 'n', '0'].includes(s)) return false;
  throw usageError(`${flag} ${value}: give true or false.`);
}

/** The payload of one row, or throws a usage error naming the column. */
function payloadOf(action: 'allow' | 'revoke', r: Record<string, string>): Payload<'access.allow' | 'access.revoke'> {
  const hash_id = v.hashId(r.hash_id ?? '', 'hash_id');
  const username = v.username(r.username ?? '', 'username');
  if (action === 'revoke') return { hash_id, username };
  const p: Payload<'access.allow'> = { hash_id, username, price: v.price(r.price ?? '', 'price') };
  if (r.expiration_date) p.expiration_date = v.dateTime(r.expiration_date, 'expiration_date');
  if (r.email) p.email = v.email(r.email, 'email');
  const send = bool(r.send_email ?? '', 'send_email');
  if (send !== undefined) p.send_email = send;
  return p;
}

export async function runAccessCsv(o: BulkFlags & { action: 'allow' | 'revoke' }, ctx: Context): Promise<number> {
  const required = o.action === 'allow' ? ['hash_id', 'username', 'price'] : ['hash_id', 'username'];
  const optional = o.action === 'allow' ? ['expiration_date', 'email', 'send_email'] : [];
  const flag = '--from-csv';
  const input = await inputFingerprint(o.file, ctx, flag);
  const already = o.action === 'allow' ? /already has access/i : /purchase record not found/i;
  const check = perItem((row: InputRow<Record<string, string>>) => {
    try {
      if (row.problem) throw usageError(row.problem);
      return { payload: payloadOf(o.action, row.values) };
    } catch (e) {
      return { problem: messageOf(e) };
    }
  });

  const spec: JobSpec<InputRow<Record<string, string>>, Result> = {
    verb: `access ${o.action}`,
    columns: COLUMNS,
    unit: 'rows',
    source: () => chunks(csvRows(o.file, ctx, { flag, required, optional }), ROWS_PER_BATCH),
    process: (batch, job) =>
      eachItem(
        batch.items,
        async (row) => {
          const make = (status: Status, message: string): Result => ({
            row: row.line,
            status,
            message,
            hash_id: String(row.values.hash_id ?? ''),
            username: String(row.values.username ?? ''),
          });
          const { payload, problem } = check(row);
          if (!payload) return { row: make('invalid', problem), invalid: true };
          const r = await job.call(`access.${o.action}`, { payload });
          if (r.ok && isAnswer(r.response))
            return {
              row: make(
                'ok',
                String(r.response.body.message ?? (o.action === 'allow' ? 'Access granted.' : 'Access revoked.')),
              ),
            };
          if (r.ok && already.test(failureOf(r.response).message))
            return { row: make('already', failureOf(r.response).message) };
          return failedRow(r, make, `row ${row.line}`);
        },
        job,
        (row) => {
          const { payload } = check(row);
          return payload && { name: `access.${o.action}`, args: { payload } };
        },
      ),
    status: (r) => r.status,
    describe: (c, st) =>
      countsText(c, st, 'row', [
        ['ok', 'ok'],
        ['already', `already ${o.action === 'allow' ? 'had access' : 'without access'}`],
        ['invalid', 'invalid'],
        ['failed', 'failed'],
      ]),
    ...jobFlags(o, ctx),
    input: `--from-csv ${o.file}`,
    identity: { '--from-csv': input },
    command: o.command,
    stdoutResumeHint: () => ({
      command: o.command,
      note: 'rows already done report "already"; add --results FILE to resume exactly',
    }),
    confirm: o.action === 'revoke' ? () => confirm(ctx, `Revoke access for the rows of ${o.file}?`) : undefined,
    dryRunNote: `(dry run: the first valid row of ${o.file} is shown; nothing is sent)`,
  };
  return runJob(spec, ctx);
}
