// The job journal read back as --resume reads it (src/bulk/job/journal.ts), in-process through a
// file-system seam that answers with a text: what each line means, the old key names, the chain
// of digests that finds a line removed, changed or moved, and the usage error (exit 2) naming the
// line of each kind of damage. The engine's tests (engine.test.ts) run whole jobs; these take
// milliseconds, so `npm run mutate` judges the journal by them first (test/mutation/sequencer.ts).
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../src/errors.js';
import {
  digestOf,
  earlierRuns,
  headerLine,
  journalLine,
  outputEndOf,
  readJournal,
  type JournalHeader,
  type NewRecord,
} from '../../src/bulk/job/journal.js';
import type { Fs } from '../../src/util/fs-safe.js';

/**
 * These tests take milliseconds: a change of the code that leaves a promise unsettled (a commit
 * never resolved) fails here within 5 s, instead of hanging until the mutation run's timeout,
 * which restarts its test worker (tens of seconds on these machines).
 */
const QUICK = { timeout: 5_000 };

const PATH = '/jobs/codes.csv.bookdist-job';

/** A seam whose journal holds `text` (undefined: there is none), or whose read fails with `error`. */
const fsWith = (text: string | undefined, error?: unknown): Fs =>
  ({
    readText: async (p: string) => {
      expect(p).toBe(PATH);
      if (error !== undefined) throw error;
      return text;
    },
  }) as unknown as Fs;

const read = (text: string | undefined, error?: unknown) =>
  readJournal(fsWith(text, error), PATH, '--out', 'out/codes.csv');

/** The usage error reading `text` gives: its message (exit 2 checked). */
async function damage(text: string): Promise<string> {
  const e = await read(text).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CliError);
  expect((e as CliError).exitCode).toBe(ExitCode.USAGE);
  return (e as CliError).message;
}

const header: Omit<JournalHeader, 'chain'> = {
  v: 1,
  verb: 'codes generate',
  job_id: 'a1b2c3',
  started: '2026-11-28T00:00:00Z',
  format: 'csv',
  identity: { '--count': 250 },
  service: { base_url: 'https://api.example', account: 'acme' },
};

/** A journal as the engine writes it: the header, then each record chained on the line before. */
function journal(records: Array<[NewRecord, number]>, h = header): string {
  const first = headerLine(h);
  let chain = first.header.chain;
  let text = first.text;
  for (const [r, end] of records) {
    const line = journalLine(r, end, chain);
    text += line.text;
    chain = line.chain;
  }
  return text;
}

/** A journal of an older bookdist: no digests at all. */
const unchained = (h: object, ...lines: object[]) => [h, ...lines].map((l) => JSON.stringify(l) + '\n').join('');

describe('the job journal read back (--resume)', QUICK, () => {
  it('a journal the engine wrote: its header, each record, where FILE ends, and the last digest to chain on', async () => {
    const text = journal([
      [{ batch: 1, input_digest: 'd1' }, 120],
      [{ batch: 2, redo: [4], pending: [0, 2], input_digest: 'd2' }, 240],
      [{ settled: [[2, 0]] }, 260],
    ]);
    const j = (await read(text))!;
    expect(j.header).toMatchObject({ ...header });
    expect(j.records).toEqual([
      { batch: 1, outputEnd: 120, redo: [], pending: [], digest: 'd1' },
      { batch: 2, outputEnd: 240, redo: [4], pending: [0, 2], digest: 'd2' },
      { outputEnd: 260, redo: [], pending: [], settled: [[2, 0]] },
    ]);
    expect(j.validEnd).toBe(Buffer.byteLength(text));
    // The next line chains on the last one: a journal continued so reads back whole.
    const next = journalLine({ batch: 3 }, 300, j.chain);
    expect((await read(text + next.text))!.records).toHaveLength(4);
    expect(j.chain).toBe(JSON.parse(text.trim().split('\n').at(-1)!).chain);
  });

  it('a journal an earlier run of this bookdist left on disk (its exact bytes) resumes: the digests are computed as they were', async () => {
    const onDisk =
      '{"v":1,"verb":"codes generate","job_id":"f00d","started":"2026-11-01T10:00:00Z","format":"csv","identity":{"--count":250},"service":{"base_url":"https://api.example","account":"acme"},"chain":"aYBGyW4fXYFc3NuYzcA7ds"}\n' +
      '{"batch":1,"input_digest":"dA","output_end":57,"chain":"QZcrmBN6WI5K_G3NAP_xSp"}\n' +
      '{"batch":2,"redo":[1],"input_digest":"dB","output_end":90,"chain":"LmPqD8S8ltk1N9TlRakc17"}\n';
    const j = (await read(onDisk))!;
    expect(j.records.map((r) => [r.batch, r.outputEnd, r.redo])).toEqual([
      [1, 57, []],
      [2, 90, [1]],
    ]);
    expect(j.chain).toBe('LmPqD8S8ltk1N9TlRakc17');
  });

  it('no journal is undefined; a torn last line (a kill while appending) is cut: validEnd counts bytes, not characters', async () => {
    expect(await read(undefined)).toBeUndefined();
    const h = { ...header, identity: { '--note': 'café ✓' } };
    const whole = journal([[{ batch: 1 }, 10]], h);
    const j = (await read(whole + '{"batch":2,"outp'))!;
    expect(j.records).toHaveLength(1);
    expect(j.validEnd).toBe(Buffer.byteLength(whole, 'utf8'));
    expect(j.validEnd).toBeGreaterThan(whole.length);
  });

  it('an older journal: the old key names (b, end, wait, h, s) and no digests, read alike and left unchecked', async () => {
    const text = unchained(
      { v: 1, verb: 'codes generate', job_id: 'old_1-x', started: 's', format: 'csv', identity: {} },
      { b: 1, end: 50, wait: [1], h: 'hh' },
      { b: 1, end: 70, redo: [2] },
      { s: [[1, 1]], end: 80 },
    );
    const j = (await read(text))!;
    expect(j.chain).toBeUndefined();
    expect(j.records).toEqual([
      { batch: 1, outputEnd: 50, redo: [], pending: [1], digest: 'hh' },
      { batch: 1, outputEnd: 70, redo: [2], pending: [], digest: undefined },
      { outputEnd: 80, redo: [], pending: [], settled: [[1, 1]] },
    ]);
    // Continued by this bookdist without digests: its lines carry none either.
    expect(journalLine({ batch: 2 }, 90)).toEqual({ text: '{"batch":2,"output_end":90}\n' });
  });

  it('a line removed, changed or moved by hand is found by the chain of digests, naming the line', async () => {
    const lines = journal([
      [{ batch: 1 }, 10],
      [{ batch: 2 }, 20],
      [{ batch: 3 }, 30],
    ])
      .trim()
      .split('\n');
    const join = (ls: string[]) => ls.join('\n') + '\n';
    expect(await damage(join([lines[0], lines[1], lines[3]]))).toContain(
      'damaged at line 3 (its digest does not match',
    );
    expect(await damage(join([lines[0], lines[2], lines[1], lines[3]]))).toContain('damaged at line 2 (its digest');
    expect(
      await damage(join([lines[0], lines[1].replace('"output_end":10', '"output_end":11'), ...lines.slice(2)])),
    ).toContain('damaged at line 2');
    // A line whose digest was taken away, in a journal that has them.
    const bare = JSON.parse(lines[2]) as Record<string, unknown>;
    delete bare.chain;
    expect(await damage(join([lines[0], lines[1], JSON.stringify(bare), lines[3]]))).toContain('damaged at line 3');
    // The header's own digest: an identity changed by hand.
    const h = JSON.parse(lines[0]) as Record<string, unknown>;
    const edited = JSON.stringify({ ...h, identity: { '--count': 9999 } });
    const m = await damage(join([edited, ...lines.slice(1)]));
    expect(m).toContain('damaged at line 1 (its digest does not match its content)');
    expect(m).toBe(
      '--out out/codes.csv: the job journal codes.csv.bookdist-job is damaged at line 1 (its digest does not match its content); ' +
        'it was edited or written by something else. Start over with --restart (codes.csv is kept, renamed with a .abandoned suffix), or restore the journal.',
    );
  });

  it('each kind of damage names its line and why', async () => {
    const h = JSON.stringify({ v: 1, verb: 'x', job_id: 'j1', started: 's', format: 'csv', identity: {} });
    const with1 = (line: unknown) => `${h}\n${typeof line === 'string' ? line : JSON.stringify(line)}\n`;
    expect(await damage('')).toContain('at line 1 (no header)');
    expect(await damage('{"v":1')).toContain('at line 1 (no header)');
    expect(await damage('not json\n')).toContain('at line 1 (not JSON)');
    expect(await damage(with1('{"batch":'))).toContain('at line 2 (not JSON)');
    for (const bad of [
      { v: 2, job_id: 'j', identity: {} },
      { job_id: 'j', identity: {} },
      { v: 1, job_id: 7, identity: {} },
      { v: 1, job_id: 'j' },
      { v: 1, job_id: 'j', identity: 'x' },
      null,
    ])
      expect(await damage(JSON.stringify(bad) + '\n')).toContain('at line 1 (not a job header)');
    // The job id goes into an Idempotency-Key: only what bookdist makes, at most 64 characters.
    for (const id of ['', 'a b', 'a\nb', 'é', 'x'.repeat(65), 'a/b', 'a.b'])
      expect(await damage(JSON.stringify({ v: 1, job_id: id, identity: {} }) + '\n')).toContain(
        `its job_id ${JSON.stringify(id)} is not a job id bookdist makes`,
      );
    for (const id of ['x'.repeat(64), 'A-z_09', '0'])
      expect(await read(JSON.stringify({ v: 1, job_id: id, identity: {} }) + '\n')).toBeDefined();
    for (const bad of [
      { batch: 1 },
      { batch: 1, output_end: -1 },
      { batch: 1, output_end: 1.5 },
      { batch: 1, output_end: '10' },
      7,
      null,
      '"a line"',
    ])
      expect(await damage(with1(bad))).toContain('at line 2 (not a batch record)');
    for (const bad of [
      { output_end: 5 },
      { batch: 0, output_end: 5 },
      { batch: -1, output_end: 5 },
      { batch: 1.5, output_end: 5 },
      { batch: '1', output_end: 5 },
      { batch: 1, output_end: 5, redo: 3 },
      { batch: 1, output_end: 5, redo: [-1] },
      { batch: 1, output_end: 5, redo: [0.5] },
      { batch: 1, output_end: 5, redo: [0, -1] },
      { batch: 1, output_end: 5, pending: [2, 0.5] },
      { batch: 1, output_end: 5, pending: {} },
      { batch: 1, output_end: 5, pending: ['0'] },
      { batch: 1, output_end: 5, input_digest: 3 },
      { b: 1, end: 5, h: null },
    ])
      expect(await damage(with1(bad)), JSON.stringify(bad)).toContain('at line 2 (not a batch record)');
    for (const bad of [[[1]], [[1, 2, 3]], [[1, -2]], [1, 2], 'x', [['1', 2]], [[1, 0], [1]]])
      expect(await damage(with1({ settled: bad, output_end: 5 })), JSON.stringify(bad)).toContain(
        'at line 2 (not a settle record)',
      );
    // Offsets may stay where they were (a batch that wrote nothing), never go back.
    expect(
      (await read(
        `${h}\n${JSON.stringify({ batch: 1, output_end: 5 })}\n${JSON.stringify({ batch: 2, output_end: 5 })}\n`,
      ))!.records,
    ).toHaveLength(2);
    expect(
      await damage(
        `${h}\n${JSON.stringify({ batch: 1, output_end: 5 })}\n${JSON.stringify({ batch: 2, output_end: 4 })}\n`,
      ),
    ).toContain('at line 3 (the output offsets go backwards)');
    // A batch record with every optional member: positions and digest as given.
    expect(
      (await read(with1({ batch: 2, output_end: 0, redo: [0], pending: [1, 3], input_digest: 'd' })))!.records,
    ).toEqual([{ batch: 2, outputEnd: 0, redo: [0], pending: [1, 3], digest: 'd' }]);
  });

  it('a journal that cannot be read: a link is named as one, other errors by their code or message', async () => {
    const fail = async (error: unknown) => {
      const e = (await read('', error).catch((x: unknown) => x)) as CliError;
      expect(e).toBeInstanceOf(CliError);
      expect(e.exitCode).toBe(ExitCode.USAGE);
      return e.message;
    };
    expect(await fail(Object.assign(new Error('too many links'), { code: 'ELOOP' }))).toBe(
      '--out out/codes.csv: unusable job journal codes.csv.bookdist-job (a symbolic link, not a journal bookdist wrote). Remove it, or start over with --restart.',
    );
    expect(await fail(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }))).toContain(
      'unusable job journal codes.csv.bookdist-job (EACCES).',
    );
    expect(await fail(new Error('the disk said no'))).toContain('(the disk said no)');
  });
});

describe('what earlier runs left, from the journal', QUICK, () => {
  it('per batch: the last line’s redo, the pendings of every line, the first digest; the settled positions', () => {
    const { batches, settled } = earlierRuns([
      { batch: 1, outputEnd: 10, redo: [3, 4], pending: [1], digest: 'first' },
      { batch: 2, outputEnd: 20, redo: [], pending: [], digest: 'two' },
      { batch: 1, outputEnd: 30, redo: [4], pending: [3], digest: 'again' },
      {
        outputEnd: 35,
        redo: [],
        pending: [],
        settled: [
          [1, 1],
          [2, 0],
        ],
      },
    ]);
    expect([...batches]).toEqual([
      [1, { redo: [4], pending: [1, 3], digest: 'first' }],
      [2, { redo: [], pending: [], digest: 'two' }],
    ]);
    expect([...settled]).toEqual(['1:1', '2:0']);
    // A batch first recorded without a digest takes the one a later line has.
    expect(
      earlierRuns([
        { batch: 5, outputEnd: 1, redo: [0], pending: [] },
        { batch: 5, outputEnd: 2, redo: [], pending: [], digest: 'late' },
      ]).batches.get(5),
    ).toEqual({ redo: [], pending: [], digest: 'late' });
  });

  it('FILE’s valid part ends where the last line says, or after its header when no batch is done', () => {
    expect(outputEndOf([], 42)).toBe(42);
    expect(
      outputEndOf(
        [
          { batch: 1, outputEnd: 100, redo: [], pending: [] },
          { batch: 2, outputEnd: 180, redo: [], pending: [] },
        ],
        42,
      ),
    ).toBe(180);
  });

  it('a batch’s input digest: the same items give the same digest, other items another', () => {
    const d = digestOf([{ isbn: '9780306406157' }, 'b']);
    expect(d).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(digestOf([{ isbn: '9780306406157' }, 'b'])).toBe(d);
    expect(digestOf([{ isbn: '9780306406158' }, 'b'])).not.toBe(d);
    expect(digestOf(['b', { isbn: '9780306406157' }])).not.toBe(d);
  });
});
