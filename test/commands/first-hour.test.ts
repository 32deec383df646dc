// The first hour of a new user (issue 29): a single answer is a single line when piped, and hints
// that lead somewhere (a verb that names what the user wants, an option of a sibling verb, the
// catalogue CSV format in its help, a viewer 404 that says how to give the user the book, the root
// help's commands before its options, absolute paths from `sandbox credentials`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/run.js';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { cliFor, json, type Cli } from './_support.js';

let sb: TestSandbox;
let cli: Cli;
beforeAll(async () => {
  sb = await startTestSandbox();
  cli = cliFor(sb);
});
afterAll(async () => {
  await sb?.close();
});

const HASH = WELL_KNOWN.readme.hash_id;

async function newUser(): Promise<string> {
  const r = await cli([
    'user',
    'create',
    '--email',
    `first-hour.${process.pid}.${Math.random().toString(36).slice(2)}@example.com`,
    '--json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  return json(r).username;
}

describe('a single answer is a single line when piped', () => {
  it('book viewer: the reader URL alone; -o tsv and --json keep the record', async () => {
    const user = await newUser();
    expect((await cli(['order', 'free', '--username', user, '--hash-id', HASH])).code).toBe(0);
    const piped = await cli(['book', 'viewer', '--username', user, '--hash-id', HASH]);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/reader\/\S+\n$/);
    const tsv = await cli(['book', 'viewer', '--username', user, '--hash-id', HASH, '-o', 'tsv']);
    expect(tsv.stdout.split('\n')[0]).toBe('viewer_url');
    expect(json(await cli(['book', 'viewer', '--username', user, '--hash-id', HASH, '--json'])).viewer_url).toMatch(
      /\/reader\//,
    );
    const field = await cli(['book', 'viewer', '--username', user, '--hash-id', HASH, '--fields', 'viewer_url']);
    expect(field.stdout.split('\n')[0]).toBe('viewer_url');
  });

  it('offers checkout: the cart URL alone; -o tsv keeps the four columns', async () => {
    const piped = await cli(['offers', 'checkout', '--id', '1']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cart\/\?t=\S+\n$/);
    const tsv = await cli(['offers', 'checkout', '--id', '1', '-o', 'tsv']);
    expect(tsv.stdout.split('\n')[0]).toBe('url\tstatus\tids\trejoiner_ids');
  });
});

describe('hints that lead somewhere', () => {
  it('an unknown verb that names what the user wants: order get → user orders, user purchase', async () => {
    const r = await cli(['order', 'get', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'get'");
    expect(r.stderr).toContain('`bookdist user orders USERNAME`');
    expect(r.stderr).toContain('`bookdist user purchase USERNAME PURCHASE_ID`');
  });

  it('an option of a sibling verb: offers checkout --isbn names offers get and its price ids', async () => {
    const r = await cli(['offers', 'checkout', '--isbn', '9781614001379']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/Did you mean --json/);
    expect(r.stderr).toContain('--isbn is an option of `bookdist offers get`, not of `bookdist offers checkout`.');
    expect(r.stderr).toMatch(/`bookdist offers get --isbn ISBN` and pass their ids as --id/);
  });

  it('sandbox catalogue load --help: the CSV columns, the date format and the actions', async () => {
    const r = await run(['sandbox', 'catalogue', 'load', '--help'], { env: { COLUMNS: '200' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/isbn13 \(required; an ISBN-10 is converted\), title \(required for a new book\)/);
    expect(r.stdout).toContain('publish_date (YYYY or YYYY-MM-DD)');
    expect(r.stdout).toMatch(/action: add \(the default: adds the book, or updates it\), update, or withdraw/);
    expect(r.stdout).toMatch(/\n {2}isbn13,title,author,publish_date,price,currency,action\n/);
  });

  it('book viewer for a user without the book: exit 3, and the two ways to give it', async () => {
    const user = await newUser();
    const r = await cli(['book', 'viewer', '--username', user, '--hash-id', HASH]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Purchase for user not found.');
    expect(r.stderr).toContain(`bookdist order free --username ${user} --hash-id ${HASH}`);
    expect(r.stderr).toContain(`bookdist access allow --username ${user} --hash-id ${HASH}`);
    // The way out works: after the free order the viewer answers.
    expect((await cli(['order', 'free', '--username', user, '--hash-id', HASH])).code).toBe(0);
    expect((await cli(['book', 'viewer', '--username', user, '--hash-id', HASH])).code).toBe(0);
  });

  it('the root help lists the commands before the options, and the global options as a short block', async () => {
    const r = await run([], { env: { COLUMNS: '80' } });
    expect(r.code).toBe(0);
    const text = r.stdout;
    expect(text.indexOf('Service commands:')).toBeGreaterThan(0);
    expect(text.indexOf('Service commands:')).toBeLessThan(text.indexOf('Options:'));
    expect(text).toMatch(
      /Global options \(`bookdist help options` describes them\):\n {2}--profile, --base-url, --ca-file, -o\/--output/,
    );
    // The options are named, not described, on the root page.
    expect(text).not.toContain('CA certificates (PEM)');
    expect(text.split('\n').length).toBeLessThan(70);
  });

  it('sandbox credentials --db ./ci.db: absolute key paths', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-cred-'));
    try {
      const r = await run(['sandbox', 'credentials', '--db', './ci.db', '--json'], {
        cwd: dir,
        env: { BOOKDIST_DATA_DIR: join(dir, 'data'), BOOKDIST_CONFIG_DIR: join(dir, 'config') },
      });
      expect(r.code, r.stderr).toBe(0);
      const c = JSON.parse(r.stdout);
      for (const f of [c.partner.key_file, c.limited.key_file]) {
        expect(isAbsolute(f), f).toBe(true);
        expect(f.startsWith(dir)).toBe(true);
        // The files are where the paths say: --db is relative to the command's directory.
        expect(existsSync(f), f).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('80 columns and wording', () => {
  const at80 = (args: string[]) => run(args, { env: { ...sb.env, NO_COLOR: '1' }, tty: { columns: 80 } });

  it('book list at 80 columns: the status a user must see (held, inactive, unpublished) is shown, the author gives way', async () => {
    const r = await at80(['book', 'list', '--all']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^HASH ID {2,}TITLE {2,}STATUS$/);
    expect(lines.find((l) => l.startsWith(WELL_KNOWN.queued.hash_id))).toMatch(/ held$/);
    expect(lines.find((l) => l.startsWith(WELL_KNOWN.inactive.hash_id))).toMatch(/ inactive$/);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    // A page with nothing out of the ordinary has no STATUS column, and keeps its authors.
    const plain = await at80(['book', 'search', '--title', 'lighthouse']);
    expect(plain.stdout.split('\n')[0]).toMatch(/^HASH ID {2,}TITLE {2,}AUTHOR$/);
  });

  it('a card wraps its long fields: the whole About at 80 columns', async () => {
    const r = await at80(['book', 'get', HASH]);
    expect(r.code, r.stderr).toBe(0);
    const about = /About +([\s\S]*?)\n\n/.exec(r.stdout)![1].replace(/\s+/g, ' ');
    expect(about).toBe(WELL_KNOWN.readme.description);
    for (const l of r.stdout.split('\n')) expect(l.length, l).toBeLessThanOrEqual(80);
  });

  it('labels are words: codes summary and sandbox usage show percentages, no raw keys', async () => {
    const codes = await at80(['codes', 'summary']);
    expect(codes.stdout).toMatch(/Redemption rate +0% of the codes generated\n/);
    expect(codes.stdout).not.toMatch(/redemption_percentage|fraction/);
    const user = await newUser();
    expect((await cli(['order', 'free', '--username', user, '--hash-id', HASH])).code).toBe(0);
    const usage = await at80([
      'sandbox',
      'usage',
      '--db',
      sb.dbPath,
      '--username',
      user,
      '--hash-id',
      HASH,
      '--viewed',
      '40',
    ]);
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.stdout).toMatch(/Pages viewed +40 of 312 pages \(12\.8% of the book\)\n/);
    expect(usage.stdout).not.toMatch(/viewed_share|pages_viewed|num_pages/);
  });

  it('plurals: one record, one book', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bookdist-plural-'));
    try {
      const file = join(dir, 'one.csv');
      (await import('node:fs')).writeFileSync(
        file,
        'isbn13,title,author,price,currency\n9780000000125,One Record,A B,1.99,USD\n',
      );
      const r = await cli([
        'sandbox',
        'catalogue',
        'load',
        file,
        '--db',
        sb.dbPath,
        '--publisher',
        'Harbor Lane Press',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('(CSV, 1 record): 1 added');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
