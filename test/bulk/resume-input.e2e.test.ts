// --resume checks that the input is the one the job started with: the journal holds a digest of
// each done batch's rows, and a resumed job compares them while it reads the input again, before
// it sends anything. (Stdin is covered in process-job.e2e.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, type Cli } from './_support.js';
import { fullDisk } from './_fs.js';
import { run as runInProcess } from '../helpers/run.js';

let sb: TestSandbox;
let cli: Cli;
let dir: string;
const log: string[] = [];
const grants = () => log.filter((l) => l.startsWith('POST /v1/access/allow/')).length;

beforeAll(async () => {
  sb = await startTestSandbox({ log: (l) => log.push(l) });
  cli = cliFor(sb);
  dir = mkdtempSync(join(tmpdir(), 'bookdist-resume-input-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--resume with an input edited since the interrupted run', () => {
  it('an edit in a done batch: exit 2 naming the batch and its lines, nothing sent; an edit after the done part resumes', async () => {
    // 600 rows (batches of 250): every 50th a grant that is sent, the rest refused as invalid before sending.
    const lines = Array.from({ length: 600 }, (_, i) =>
      i % 50 === 0
        ? `${WELL_KNOWN.readme.hash_id},${WELL_KNOWN.user.username},1.00`
        : `${WELL_KNOWN.readme.hash_id},${WELL_KNOWN.user.username},x${i}`,
    );
    const text = (ls: string[]) => 'hash_id,username,price\n' + ls.join('\n') + '\n';
    const csv = join(dir, 'grants.csv');
    writeFileSync(csv, text(lines));
    // Where batch 1's results end, from a whole run of the same input.
    const whole = join(dir, 'whole.csv');
    expect((await cli(['access', 'allow', '--from-csv', csv, '--results', whole, '--concurrency', '1'])).code).toBe(6);
    const firstBatchEnd = Buffer.byteLength(readFileSync(whole, 'utf8').split('\n').slice(0, 251).join('\n') + '\n');

    // The disk fills up during batch 2: batch 1 is done and journalled.
    const results = join(dir, 'results.csv');
    const args = ['access', 'allow', '--from-csv', csv, '--results', results, '--concurrency', '1'];
    const full = await runInProcess(args, {
      env: { ...sb.env, XDG_STATE_HOME: join(dir, 'state') },
      fs: fullDisk(results, firstBatchEnd + 500),
    });
    expect(full.code, full.stderr).toBe(1);
    expect(statSync(results).size).toBe(firstBatchEnd + 500);

    // Line 101 (row 100 of the file, in batch 1) edited: a grant becomes another price.
    const edited = [...lines];
    edited[99] = `${WELL_KNOWN.readme.hash_id},${WELL_KNOWN.user.username},2.00`;
    writeFileSync(csv, text(edited));
    const sent = grants();
    const r = await cli([...args, '--resume']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /--resume: --from-csv \S+grants\.csv is not what the job was started with: batch 1 \(lines 2-251\) differs from the rows sent then .*Nothing was sent\. .*--restart/s,
    );
    expect(grants()).toBe(sent);
    expect(existsSync(results + '.bookdist-job')).toBe(true);
    // Refused before touching anything: the torn tail of batch 2 is cut only by a resume that goes on.
    expect(statSync(results).size).toBe(firstBatchEnd + 500);

    // The done part as it was, a row after it edited (not sent yet: fixing the input is allowed).
    const later = [...lines];
    later[549] = `nothex,${WELL_KNOWN.user.username},1.00`;
    writeFileSync(csv, text(later));
    const ok = await cli([...args, '--resume']);
    expect(ok.code, ok.stderr).toBe(6); // the invalid rows
    const rows = readFileSync(results, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => Number(l.split(',')[0]));
    expect(rows).toHaveLength(600);
    expect(new Set(rows).size).toBe(600);
    expect(readFileSync(results, 'utf8')).toMatch(/\n551,invalid,/);
    expect(existsSync(results + '.bookdist-job')).toBe(false);
  });
});
