// The progress bar of bulk jobs: drawn on stderr only when stderr is a terminal and --quiet is
// not given; a script's stderr holds nothing but errors. Drives main() in-process with fake
// terminal streams against a real sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/main.js';
import type { IO } from '../../src/context.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'bookdist-progress-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

function sink(isTTY: boolean) {
  let text = '';
  const stream = Object.assign(new Writable({ write: (c, _e, cb) => ((text += c.toString()), cb()) }), {
    isTTY,
    columns: 100,
  });
  return { stream, text: () => text };
}

async function generate(out: string, stderrTTY: boolean, extra: string[] = []) {
  const stderr = sink(stderrTTY);
  const stdout = sink(false);
  const io: IO = {
    stdin: Object.assign(new PassThrough(), { isTTY: false }),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { ...sb.env },
    cwd: dir,
  };
  const args = [
    'codes',
    'generate',
    '--hash-id',
    WELL_KNOWN.readme.hash_id,
    '--org',
    'acme',
    '--count',
    '2500',
    '--batch-size',
    '500',
    '--out',
    out,
    ...extra,
  ];
  const code = await main(args, { io, signals: false });
  return { code, stderr: stderr.text() };
}

describe('bulk progress bar', () => {
  it('on a terminal: done/total, rate and ETA redrawn in place on stderr, ending at the total', async () => {
    const out = join(dir, 'tty.csv');
    const r = await generate(out, true);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2501);
    expect(r.stderr).toContain('\r');
    expect(r.stderr).toMatch(/2,500\/2,500/);
    expect(r.stderr).toMatch(/\d[\d,]*\/s/);
    expect(r.stderr).toMatch(/ETA /);
  });

  it('when stderr is not a terminal: no bar and no notices, just one summary line for the log', async () => {
    const out = join(dir, 'piped.csv');
    const r = await generate(out, false);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2501);
    expect(r.stderr).toMatch(
      /^codes generate: 2500 of 2500 codes generated for [0-9a-f]{40} in [\d.]+m?s → \S+piped\.csv\.\n$/,
    );
  });

  it('with --quiet on a terminal: no bar', async () => {
    const out = join(dir, 'quiet.csv');
    const r = await generate(out, true, ['--quiet']);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/ETA|2,500\/2,500/);
  });
});
