// `user create --from-csv ROSTER`: one user per row (email, first_name, last_name, label), a spec
// on the bulk job engine. Each row's result holds the username; an e-mail address that already
// has an account is a row marked `exists` with the username from the service's conflict answer,
// not a failure (so a roster can be run again, or resumed after a crash, and every row ends with
// its username). Generated passwords are never written anywhere: users set theirs by the reset
// flow, or are created with `user invite`.
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import * as v from '../../validate/index.js';
import { chunks, runJob, type JobSpec } from '../../bulk/engine.js';
import { failureOf, type Failure } from '../../bulk/retry.js';
import { csvRows, inputFingerprint, type InputRow } from '../../bulk/rows.js';
import { isConflict } from '../../api/client.js';
import type { BulkFlags } from '../../bulk/flags.js';

type Status = 'ok' | 'exists' | 'invalid' | 'failed';

interface Result extends Record<string, unknown> {
  row: number;
  status: Status;
  username: string;
  email: string;
  message: string;
}

const COLUMNS = ['row', 'status', 'username', 'email', 'message'] as const;
const ROWS_PER_BATCH = 100;

export async function runRoster(o: BulkFlags, ctx: Context): Promise<number> {
  const { z, via, optional, checkRow } = await import('../../bulk/schema.js');
  const Row = z.object({
    email: via(v.email, 'email'),
    first_name: optional(z.string().trim().max(100, 'at most 100 characters')),
    last_name: optional(z.string().trim().max(100, 'at most 100 characters')),
    label: optional(via(v.label, 'label')),
  });
  const flag = '--from-csv';
  const input = await inputFingerprint(o.file, ctx, flag);
  const spec: JobSpec<InputRow, Result> = {
    verb: 'user create',
    columns: COLUMNS,
    unit: 'users',
    source: () => chunks(csvRows(o.file, ctx, { flag, required: ['email'], optional: ['first_name', 'last_name', 'label'] }), ROWS_PER_BATCH),
    async process(batch, job) {
      const rows: Result[] = [];
      const redo: number[] = [];
      const failures: Failure[] = [];
      let invalid = 0;
      for (let i = 0; i < batch.items.length; i++) {
        const row = batch.items[i];
        const base = { row: row.line, username: '', email: String(row.values.email ?? '') };
        const c = row.problem ? { ok: false as const, message: row.problem } : checkRow(Row, row.values);
        if (!c.ok) {
          rows.push({ ...base, status: 'invalid', message: c.message });
          invalid++;
          continue;
        }
        const r = await job.call('user.create', { payload: { ...c.data } });
        if (!r.ok) {
          if (r.interrupted) {
            for (let k = i; k < batch.items.length; k++) redo.push(k);
            break;
          }
          failures.push(r.failure);
          redo.push(i);
          rows.push({ ...base, status: 'failed', message: r.failure.message });
          job.log(`row ${row.line}: ${r.failure.message}`);
          continue;
        }
        const body = r.response.body;
        if (isConflict(r.response.status, body) || body?.conflict === true) {
          rows.push({ ...base, status: 'exists', username: String(body?.username ?? ''), message: String(body?.message ?? 'User with email address already exists') });
        } else if (r.response.status < 400) {
          rows.push({ ...base, status: 'ok', username: String(body?.username ?? ''), message: 'created' });
        } else {
          const f = failureOf(r.response);
          failures.push(f);
          redo.push(i);
          rows.push({ ...base, status: 'failed', message: f.message });
          job.log(`row ${row.line}: ${f.message}`);
        }
      }
      return { rows, redo, failures, invalid };
    },
    status: (r) => r.status,
    describe: (c, st) => {
      const n = (s: Status) => c[s] ?? 0;
      const now = n('ok') + n('exists') + n('invalid') + n('failed');
      return `${st.earlier + now} row(s): ${n('ok')} created, ${n('exists')} existed, ${n('invalid')} invalid, ${n('failed')} failed` + (st.earlier ? `, ${st.earlier} done in an earlier run` : '');
    },
    file: o.results ? { path: resolve(ctx.io.cwd, o.results), flag: '--results', display: o.results, format: ctx.globals.output === 'csv' || /\.csv$/i.test(o.results) ? 'csv' : 'ndjson' } : undefined,
    identity: { '--from-csv': input },
    resume: o.resume,
    restart: o.restart,
    concurrency: o.concurrency,
    command: `bookdist user create ${o.argv.join(' ')}`,
    stdoutResumeHint: () => `bookdist user create ${o.argv.join(' ')} (rows already created report "exists" with their username)`,
    dryRunNote: `(dry run: the first valid row of ${o.file} is shown; nothing is sent)`,
  };
  return runJob(spec, ctx);
}
