// The ledger's lock across processes (issue 34: writers "block each other for no more than a few
// milliseconds"): a bulk job holds it only while it appends, so another writer waits for one
// append, not for the job, however slow the job is between its appends (a job under valgrind
// held it up to a second). Asserted by order, not by time: the job stays busy after its first
// group (no turn of its event loop, as a slowed process) until the other writer's row is in the
// file, and only then appends again.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/ledger/read.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-ledger-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Run a script to its end: its exit code, stdout and stderr; `onOut` sees stdout as it comes. */
function runNode(
  script: string,
  args: string[],
  onOut?: (text: string) => void,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      onOut?.(out);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('the ledger lock', () => {
  it('a slow bulk job between its appends keeps no other writer waiting: the single write lands between the job’s two groups', async () => {
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      `export { Recorder } from ${JSON.stringify(join(import.meta.dirname, '../../src/ledger/recorder.ts'))};
export { LedgerStore } from ${JSON.stringify(join(import.meta.dirname, '../../src/ledger/store.ts'))};
`,
    );
    const bundle = join(dir, 'ledger.mjs');
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'error',
    });
    const state = join(dir, 'state');
    const file = join(state, 'ledger.ndjson');
    const gaveUp = join(dir, 'writer-ended');
    // The job: the recorder of a bulk job, whose first group is written (the recorder writes it in
    // the check phase; the job's next callback there runs right after, before any timer); then busy
    // (no turn of its event loop, as a slowed process: no timer can let anything go) until the
    // other writer's row is in the file, or the other writer has ended without it.
    const job = join(dir, 'job.mjs');
    writeFileSync(
      job,
      `import { existsSync, readFileSync } from 'node:fs';
import { LedgerStore, Recorder } from ${JSON.stringify(bundle)};
const rec = new Recorder(new LedgerStore(${JSON.stringify(state)}), { profile: 'p', host: 'h', job: () => 'slow-job' });
const req = (i) => ({ method: 'POST', path: '/slow/job/' + i, headers: {}, payload: { i } });
const first = rec.before(req(1));
await new Promise((r) => setImmediate(r));
if (!readFileSync(${JSON.stringify(file)}, 'utf8').includes('/slow/job/1')) throw new Error('the first group is not written');
process.stdout.write('first group written\\n');
const pause = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  if (readFileSync(${JSON.stringify(file)}, 'utf8').includes('/other/writer')) break;
  if (existsSync(${JSON.stringify(gaveUp)})) {
    process.stdout.write('the other writer ended without its row\\n');
    process.exit(3);
  }
  Atomics.wait(pause, 0, 0, 2);
}
(await first).after({ status: 'done', http: 200, body: {} });
const second = await rec.before(req(2));
second.after({ status: 'done', http: 200, body: {} });
rec.flush(true);
`,
    );
    // The other writer: a single write command's recorder (its intent durable before it returns).
    const writer = join(dir, 'writer.mjs');
    writeFileSync(
      writer,
      `import { LedgerStore, Recorder } from ${JSON.stringify(bundle)};
const rec = new Recorder(new LedgerStore(${JSON.stringify(state)}), { profile: 'p', host: 'h' });
const t = await rec.before({ method: 'POST', path: '/other/writer', headers: {}, payload: {} });
t.after({ status: 'done', http: 200, body: {} });
rec.flush(true);
`,
    );
    let started!: () => void;
    const firstGroup = new Promise<void>((r) => (started = r));
    const jobRun = runNode(job, [], (out) => {
      if (out.includes('first group written')) started();
    });
    await Promise.race([firstGroup, jobRun]);
    const other = await runNode(writer, []);
    writeFileSync(gaveUp, '');
    const done = await jobRun;
    expect(other).toMatchObject({ code: 0, err: '' });
    expect(done).toMatchObject({ code: 0, err: '' });
    const parsed = parseLedger(readFileSync(file, 'utf8'));
    expect(parsed.broken).toBeUndefined();
    // The single write's intent and outcome come after the job's first intent and before its second.
    const order = parsed.rows.filter((r) => r.kind === 'intent').map((r) => (r as { request?: string }).request);
    expect(order).toEqual(['POST /slow/job/1', 'POST /other/writer', 'POST /slow/job/2']);
  });
});
