// `user create --from-csv ROSTER`: one user per row (email, first_name, last_name, label), a spec
// on the bulk job engine. Each row's result holds the username; an e-mail address that already
// has an account is a row marked `exists` with the username from the service's conflict answer,
// not a failure (so a roster can be run again, or resumed after a crash, and every row ends with
// its username). Generated passwords are never written anywhere: users set theirs by the reset
// flow, or are created with `user invite`.
import type { Context } from '../../../context.js';
import * as v from '../../../validate/index.js';
import { cellText as t } from '../../../output/format.js';
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
import { csvRows, inputFingerprint, type InputRow } from '../../../bulk/rows.js';
import { isConflict } from '../../../api/errors.js';
import { jobFlags, type BulkFlags } from '../../../bulk/flags.js';

type Status = 'ok' | 'exists' | 'invalid' | 'failed';

interface Result extends Record<string, unknown> {
  row: number;
  status: Status;
  username: string;
  email: string;
  message: string;
}

const COLUMNS = ['row', 'status', 'username', 'email', 'message'] as const;

export async function runRoster(o: BulkFlags, ctx: Context): Promise<number> {
  const { z, via, optional, checkRow } = await import('../../../bulk/schema.js');
  const Row = z.object({
    email: via(v.email, 'email'),
    first_name: optional(z.string().trim().max(100, 'at most 100 characters')),
    last_name: optional(z.string().trim().max(100, 'at most 100 characters')),
    label: optional(via(v.label, 'label')),
  });
  const flag = '--from-csv';
  const input = await inputFingerprint(o.file, ctx, flag);
  const check = perItem((row: InputRow) =>
    row.problem ? { ok: false as const, message: row.problem } : checkRow(Row, row.values),
  );
  const spec: JobSpec<InputRow, Result> = {
    verb: 'user create',
    columns: COLUMNS,
    unit: 'users',
    source: () =>
      chunks(
        csvRows(o.file, ctx, { flag, required: ['email'], optional: ['first_name', 'last_name', 'label'] }),
        ROWS_PER_BATCH,
      ),
    process: (batch, job) =>
      eachItem(
        batch.items,
        async (row) => {
          const make = (status: Status, message: string, username = ''): Result => ({
            row: row.line,
            status,
            username,
            email: t(row.values.email),
            message,
          });
          const c = check(row);
          if (!c.ok) return { row: make('invalid', c.message), invalid: true };
          const r = await job.call('user.create', { payload: { ...c.data } });
          const body = r.ok ? r.response.body : undefined;
          // An e-mail address with an account: the conflict answer names its username.
          if (r.ok && (isConflict(r.response.status, body) || body?.conflict === true)) {
            return {
              row: make('exists', t(body?.message ?? 'User with email address already exists'), t(body?.username)),
            };
          }
          if (r.ok && r.response.status < 400) return { row: make('ok', 'created', t(body?.username)) };
          return failedRow(r, make, `row ${row.line}`);
        },
        job,
        (row) => {
          const c = check(row);
          return c.ok ? { name: 'user.create', args: { payload: { ...c.data } } } : undefined;
        },
      ),
    status: (r) => r.status,
    describe: (c, st) =>
      countsText(c, st, 'row', [
        ['ok', 'created'],
        ['exists', 'existed'],
        ['invalid', 'invalid'],
        ['failed', 'failed'],
      ]),
    ...jobFlags(o, ctx),
    input: `--from-csv ${o.file}`,
    identity: { '--from-csv': input },
    command: o.command,
    stdoutResumeHint: () => ({
      command: o.command,
      note: 'rows already created report "exists" with their username',
    }),
    dryRunNote: `(dry run: the first valid row of ${o.file} is shown; nothing is sent)`,
  };
  return runJob(spec, ctx);
}
