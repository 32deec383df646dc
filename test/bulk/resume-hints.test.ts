// The command a bulk job prints to continue it is the one the user gave (src/commands/given.ts:
// made from the parsed declaration, global flags included): for every bulk verb, a job cut short
// by a full disk prints it, and running that line as printed (split as a shell splits it) resumes
// the same job, which ends with one result per input. In-process against one test sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../helpers/run.js';
import { SEED_USERS, startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { fullDisk } from './_fs.js';

const B1 = WELL_KNOWN.readme.hash_id;
const B2 = WELL_KNOWN.limitedPricing.hash_id;
const B3 = WELL_KNOWN.otherPublisher.hash_id;
const U1 = SEED_USERS[0].username;
const U2 = SEED_USERS[1].username;

/** Words of a shell command line as `sh` splits them: blanks, single quotes and `'\''` (what shellQuote writes). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed quote in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      word = (word ?? '') + line[++i];
    } else if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (/[\s"$`*?;&|<>()]/.test(c)) {
      throw new Error(`the hint needs a shell for ${JSON.stringify(c)}: ${line}`);
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** One line per final result (NDJSON) or per CSV row, header aside. */
function resultLines(path: string): string[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  return path.endsWith('.csv') ? lines.slice(1) : lines;
}

interface Case {
  name: string;
  /** The job's command line (without `bookdist`) and the file its results go to. */
  job: (dir: string) => { argv: string[]; results: string };
  /** How many results the finished job holds. */
  results: number;
  /** The job asks for a confirmation (so a --yes given comes back). */
  confirms?: boolean;
  /** Global flags of this job besides those every case gives. */
  globals?: string[];
}

// Each job gives some global flags (they must come back in the hint), a file name with a blank
// (it must be quoted), and its own flags; the disk fills up in the middle of its first batch.
const CASES: Case[] = [
  {
    name: 'codes generate',
    job: (dir) => {
      const out = join(dir, 'the codes.ndjson');
      return {
        argv: ['codes', 'generate', '--hash-id', B1, '--org', 'acme', '--count', '30', '--batch-size', '10'],
        results: out,
      };
    },
    results: 30,
    // The format of the file is checked on --resume: it must come back.
    globals: ['-o', 'ndjson'],
  },
  {
    name: 'book process',
    job: (dir) => {
      const ids = file(dir, 'hash ids.txt', [B1, B2, B3].join('\n'));
      return { argv: ['book', 'process', '--from-file', ids], results: join(dir, 'processed.ndjson') };
    },
    results: 3,
  },
  {
    name: 'order create --from-csv',
    job: (dir) => {
      const p = WELL_KNOWN.readme.pricing[0].id;
      const head =
        'order_number,username,pricing_id,order_type,org,billing_full_name,billing_postal_code,billing_country';
      const rows = [1, 2, 3].map((i) => `RH-${process.pid}-${i},${U1},${p},TestPlan,harborlane,Ann Lee,10115,DE`);
      return {
        argv: ['order', 'create', '--from-csv', file(dir, 'orders in.csv', [head, ...rows].join('\n'))],
        results: join(dir, 'orders.ndjson'),
      };
    },
    results: 3,
  },
  {
    name: 'order create --from-ndjson',
    job: (dir) => {
      const p = WELL_KNOWN.readme.pricing[0].id;
      const billing = { full_name: 'Ann Lee', postal_code: '10115', country: 'DE' };
      const rows = [1, 2].map((i) =>
        JSON.stringify({
          order_number: `RJ-${process.pid}-${i}`,
          username: U2,
          digital_pricing: [p],
          order_type: 'TestPlan',
          org: 'harborlane',
          billing_address: billing,
        }),
      );
      return {
        argv: ['order', 'create', '--from-ndjson', file(dir, 'orders in.ndjson', rows.join('\n'))],
        results: join(dir, 'orders-nd.ndjson'),
      };
    },
    results: 2,
  },
  {
    name: 'order free --from-csv',
    job: (dir) => ({
      argv: ['order', 'free', '--from-csv', file(dir, 'gifts in.csv', `username,hash_id\n${U1},${B3}\n${U2},${B3}`)],
      results: join(dir, 'gifts.ndjson'),
    }),
    results: 2,
  },
  {
    name: 'user create --from-csv',
    job: (dir) => {
      const rows = [1, 2, 3].map((i) => `hint.${process.pid}.${i}@example.com,Member ${i}`);
      return {
        argv: ['user', 'create', '--from-csv', file(dir, 'roster in.csv', ['email,first_name', ...rows].join('\n'))],
        results: join(dir, 'users.ndjson'),
      };
    },
    results: 3,
  },
  {
    name: 'access allow --from-csv',
    job: (dir) => ({
      argv: [
        'access',
        'allow',
        '--from-csv',
        file(dir, 'grants in.csv', `hash_id,username,price\n${B2},${U1},1.00\n${B2},${U2},2.00`),
      ],
      results: join(dir, 'grants.ndjson'),
    }),
    results: 2,
  },
  {
    name: 'access revoke --from-csv',
    job: (dir) => ({
      argv: [
        'access',
        'revoke',
        '--from-csv',
        file(dir, 'revokes in.csv', `hash_id,username\n${B2},${U1}\n${B2},${U2}`),
      ],
      results: join(dir, 'revokes.ndjson'),
    }),
    results: 2,
    confirms: true,
  },
  {
    name: 'access sync',
    job: (dir) => ({
      argv: [
        'access',
        'sync',
        file(dir, 'roster of B3.csv', `username\n${U1}\n${U2}`),
        '--hash-id',
        B3,
        '--price',
        '0',
      ],
      results: join(dir, 'sync.ndjson'),
    }),
    results: 2,
    confirms: true,
  },
];

let dir: string;
function file(d: string, name: string, text: string): string {
  const path = join(d, name);
  writeFileSync(path, text + '\n');
  return path;
}

describe('the resume command of every bulk verb', () => {
  let sb: TestSandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    sb = await startTestSandbox();
    dir = mkdtempSync(join(tmpdir(), 'bookdist-resume-hints-'));
    env = { ...sb.env, XDG_STATE_HOME: join(dir, 'state'), BOOKDIST_IDEMPOTENCY_KEYS: '1' };
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shellWords splits as sh does', () => {
    expect(shellWords(`bookdist a --x 'b c' 'O'\\''Brien' d`)).toEqual(['bookdist', 'a', '--x', 'b c', "O'Brien", 'd']);
  });

  it.each(CASES)('$name: the printed command resumes the job', async (c) => {
    const { argv, results } = c.job(dir);
    const flag = argv[0] === 'codes' ? '--out' : '--results';
    const globals = ['--timeout', '20s', '--retries', '2', '--yes', ...(c.globals ?? [])];
    // The disk fills up after a few bytes of the results: the first batch is torn.
    const first = await run([...argv, flag, results, '--concurrency', '2', ...globals], {
      env,
      fs: fullDisk(results, 40),
    });
    expect(first.code, first.stderr).toBe(1);
    // Under -o ndjson the error is JSON on stderr.
    const said: string = first.stderr.startsWith('{') ? JSON.parse(first.stderr).error.message : first.stderr;
    expect(said).toContain('ENOSPC');
    const hint = /\n {2}(bookdist .*)$/m.exec(said.slice(said.indexOf('ENOSPC')))?.[1];
    expect(hint, first.stderr).toBeDefined();
    const words = shellWords(hint!);
    expect(words.slice(-1)).toEqual(['--resume']);
    // What was given comes back, and only that: no default restated.
    for (const [a, b] of [
      [flag, results],
      ['--concurrency', '2'],
      ['--timeout', '20s'],
      ['--retries', '2'],
    ])
      expect(words[words.indexOf(a) + 1], `${a} in ${hint}`).toBe(b);
    if (c.globals) expect(hint).toContain(c.globals.join(' ').replace(/^-o /, '--output '));
    // --yes comes back only to a job that asks for a confirmation.
    expect(words.includes('--yes'), hint).toBe(Boolean(c.confirms));
    // No default is restated: every flag of the hint was given.
    const given = new Set([...argv, flag, '--concurrency', ...globals, '--output', '--resume']);
    expect(words.filter((w) => w.startsWith('-') && !given.has(w))).toEqual([]);
    const again = await run(words.slice(1), { env });
    expect(again.code, again.stderr).toBe(0);
    // The same job, taken up where it stopped (not started over): the torn batch is cut off.
    expect(again.stderr).toMatch(/cut \d+ byte\(s\) after the last complete batch/);
    expect(resultLines(results)).toHaveLength(c.results);
  });
});
