// Every example runs. The example lines of the README (its ```sh blocks, except the set-up block
// of npm commands) and of every command's help (walked from the full command tree, so commands
// added later are covered) run as a newcomer would type them: `bookdist` on the PATH, an empty
// HOME, a config directory of its own for each block (no profile stored), and the built-in
// sandbox profile on one freshly seeded database.
// The README's first block (the tour a newcomer types first) runs in bash through bin/bookdist on
// the PATH, as typed. Elsewhere an example that is one plain `bookdist` command (words, quotes,
// known $VARIABLES: nothing the shell would do more with) runs in-process through the real main()
// (test/helpers/run.ts) with the same environment and working directory, which is what the
// process would do minus starting Node; a line with a pipe, a redirection or a substitution runs
// in bash, and so does a whole block that sets shell variables.
// Each line must exit with the code the example implies: 0, unless the line says otherwise in a
// trailing comment (`# exits 3`). The lines of one block run in order in one shell, so a block can
// create what its later lines use (a variable, a profile, an order).
//
// What the test provides, as a reader would have it: the files the examples name (partner.pem,
// hash_ids.txt, billing.json, grants.csv, roster.csv, gifts.csv, team.csv, ...) and the secrets they read
// from the environment
// ($SHARED_KEY, $ACCESS_TOKEN, $PW, and $BOOKDIST_SANDBOX_SECRET when the sandbox has a control
// secret). The service the examples call https://api.example.com (and
// a sandbox at http://127.0.0.1:8710) is a sandbox serving the same database, and `sandbox serve`
// listens on --port 0; it is started, must print its URL, and is stopped with SIGTERM (exit 0).
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { commandName, documentedCommands, examplesOf } from '../../src/docs/reference.js';
import { startSandbox } from '../../src/sandbox/http/server.js';
import { WELL_KNOWN } from '../../src/sandbox/seed.js';
import { BIN } from '../helpers/cli.js';
import { run } from '../helpers/run.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Block {
  where: string;
  lines: string[];
  /** Run every line in bash through bin/bookdist, even a plain one. */
  shell?: boolean;
}

/** The README's ```sh blocks, one example per line (comments kept: they may say `# exits N`). */
export function readmeBlocks(markdown: string, file = 'README.md'): Block[] {
  const blocks: Block[] = [];
  const re = /^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(markdown))) {
    const lines = m[1].split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
    // The set-up block (npm ci / npm test) is what this very suite is run by.
    if (lines.every((l) => /^npm /.test(l))) continue;
    blocks.push({ where: `${file} block ${blocks.length + 1}`, lines, shell: file === 'README.md' && !blocks.length });
  }
  return blocks;
}

/** The exit code an example implies: 0, or what its trailing comment says (`# exits 3`). */
export function expectedExit(line: string): number {
  const m = /#.*\bexits? (\d+)\b/.exec(line);
  return m ? Number(m[1]) : 0;
}

/**
 * The arguments of a line that is one plain `bookdist` command, as bash would pass them; undefined
 * when bash would do anything more (a pipe, a redirection, `;`/`&&`, a substitution, a glob, a
 * backslash, a tilde, an unknown or unset variable) or the line is not a bookdist command.
 * Variables expand from `vars` (the block's environment) only whole-word or inside double quotes.
 */
function plainArgs(line: string, vars: Record<string, string | undefined>): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const add = (text: string) => (word = (word ?? '') + text);
  // $NAME or ${NAME} at i, expanded; false when unset, or (unquoted) when bash would drop, split or glob it.
  const variable = (quoted: boolean): boolean => {
    const m = /^\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})/.exec(line.slice(i));
    const value = m ? vars[m[1] ?? m[2]] : undefined;
    if (value === undefined || (!quoted && (value === '' || /[\s*?[\]]/.test(value)))) return false;
    add(value);
    i += m![0].length;
    return true;
  };
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === '#' && word === undefined) {
      break; // a comment (`# exits 3`)
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      add(line.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      i++;
      add('');
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '$') {
          if (!variable(true)) return undefined;
        } else if (line[i] === '`' || line[i] === '\\' || line[i] === '!') return undefined;
        else add(line[i++]);
      }
      if (line[i] !== '"') return undefined;
      i++;
    } else if (c === '$') {
      if (!variable(false)) return undefined;
    } else if (/[\w./:@=,+%-]/.test(c)) {
      add(c);
      i++;
    } else {
      return undefined; // | > < ; & ( ) ` * ? [ ] { } ~ ! \ and the like: the shell's business
    }
  }
  if (word !== undefined) words.push(word);
  return words[0] === 'bookdist' ? words.slice(1) : undefined;
}

/** A line that changes the shell's own state (a variable, the directory, a function): its block runs in one bash. */
const SETS_SHELL_STATE =
  /^\s*(?:export\s+|readonly\s+|local\s+)?[A-Za-z_]\w*=|^\s*(?:cd|source|\.|alias|set|unset|read|eval)\b|\(\)\s*\{/;

const program = buildProgram();
const treeBlocks: Block[] = documentedCommands(program)
  .map((c) => ({ where: `${commandName(c)} --help`, lines: examplesOf(c) }))
  .filter((b) => b.lines.length);
// The README and the guide it points to (docs/guide.md): the examples a reader types.
const readme = [
  ...readmeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')),
  ...readmeBlocks(readFileSync(join(ROOT, 'docs', 'guide.md'), 'utf8'), 'docs/guide.md'),
];

let work: string;
let env: Record<string, string>;
let server: Awaited<ReturnType<typeof startSandbox>>;
let fixtures: string[] = [];
let blockDirs = 0;

/** A working directory of its own for one block (files one block writes do not meet another's), with the fixtures. */
function blockDir(): string {
  const d = join(work, 'blocks', String(++blockDirs));
  mkdirSync(d, { recursive: true });
  for (const f of fixtures) {
    mkdirSync(dirname(join(d, f)), { recursive: true });
    copyFileSync(join(work, f), join(d, f));
  }
  return d;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'bookdist-examples-'));
  const home = join(work, 'home');
  for (const d of ['.zfunc', '.config/fish/completions', '.local/share/bash-completion/completions'])
    mkdirSync(join(home, d), { recursive: true });
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'bookdist'), `#!/bin/sh\nexec "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'bookdist'), 0o755);
  const base = {
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    BOOKDIST_CONFIG_DIR: join(work, 'config'),
    BOOKDIST_DATA_DIR: join(work, 'data'),
    NO_COLOR: '1',
  };
  mkdirSync(base.BOOKDIST_DATA_DIR, { recursive: true, mode: 0o700 });
  // The database the built-in profile uses, also served over HTTP for the examples that name a URL.
  server = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    dbPath: join(base.BOOKDIST_DATA_DIR, 'sandbox.db'),
    processDelayMs: 200,
  });
  const creds = JSON.parse((await run(['sandbox', 'credentials', '--json'], { env: base })).stdout);
  copyFileSync(creds.partner.key_file, join(work, 'partner.pem'));
  const files: Record<string, string> = {
    'token.txt': creds.operator_token,
    'hash_ids.txt': `# books to process\n${WELL_KNOWN.unprocessed.hash_id}\n${WELL_KNOWN.readme.hash_id}\n`,
    'isbns.txt': `${WELL_KNOWN.readme.isbn13}\n${WELL_KNOWN.limitedPricing.isbn13}\n`,
    'billing.json': JSON.stringify({ full_name: 'Ada Byron', postal_code: '04101', country: 'US' }),
    'grants.csv': `hash_id,username,price\n${WELL_KNOWN.readme.hash_id},${WELL_KNOWN.user2.username},12.00\n${WELL_KNOWN.otherPublisher.hash_id},${WELL_KNOWN.user2.username},30.00\n`,
    'revoke.csv': `hash_id,username\n${WELL_KNOWN.readme.hash_id},${WELL_KNOWN.user2.username}\n`,
    'roster.csv': 'email,first_name,last_name\nkatherine@example.com,Katherine,Johnson\n',
    'gifts.csv': `username,hash_id\n${WELL_KNOWN.user2.username},${WELL_KNOWN.otherPublisher.hash_id}\n`,
    // access sync: the roster now, and the one before it (--assume-current).
    'team.csv': `username\n${WELL_KNOWN.user.username}\n`,
    'team.before.csv': `username\n${WELL_KNOWN.user.username}\n${WELL_KNOWN.user2.username}\n`,
  };
  // The catalogue samples the README loads from a clone (docs/samples/), and the names other examples give them.
  for (const [name, sample] of [
    ['docs/samples/catalogue.onix.xml', 'catalogue.onix.xml'],
    ['docs/samples/catalogue.csv', 'catalogue.csv'],
    ['feed.xml', 'catalogue.onix.xml'],
  ]) {
    files[name] = readFileSync(join(ROOT, 'docs/samples', sample), 'utf8');
  }
  // The fixture samples (docs/samples/*fixture*), as a clone has them.
  for (const sample of readdirSync(join(ROOT, 'docs/samples')).filter((f) => f.includes('fixture'))) {
    files[`docs/samples/${sample}`] = readFileSync(join(ROOT, 'docs/samples', sample), 'utf8');
  }
  files['titles.csv'] = 'isbn13,title,price\n9781770100077,A Title of Your Own,5.00\n';
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(work, name)), { recursive: true });
    writeFileSync(join(work, name), text);
  }
  fixtures = ['partner.pem', ...Object.keys(files)];
  env = {
    ...base,
    PATH: `${bin}:${process.env.PATH}`,
    SHARED_KEY: creds.partner.shared_key,
    ACCESS_TOKEN: creds.operator_token,
    PW: 'correct-horse-battery-1',
    BROWSER: 'true',
    // A sandbox whose control routes want a secret: the reader exported it from `sandbox credentials`.
    ...(creds.control_secret ? { BOOKDIST_SANDBOX_SECRET: String(creds.control_secret) } : {}),
  };
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Each block is a reader with no stored profile yet; the sandbox's database is the one shared by all. */
function envFor(cwd: string): Record<string, string> {
  return { ...env, BOOKDIST_CONFIG_DIR: join(cwd, '.config-bookdist') };
}

/** What the example line becomes here: the example service URLs point at the served sandbox. */
function localise(line: string): string {
  let l = line.replaceAll('https://api.example.com', server.url).replaceAll('http://127.0.0.1:8710', server.url);
  if (/\bbookdist sandbox serve\b/.test(l))
    l = /--port \d+/.test(l)
      ? l.replace(/--port \d+/, '--port 0')
      : l.replace(/\bsandbox serve\b/, 'sandbox serve --port 0');
  return l;
}

interface Ran {
  line: string;
  code: number | null;
  output: string;
}

/** Run the lines of one block in one bash, in order; report each line's exit status. */
function runBlock(lines: string[], cwd: string): Promise<Ran[]> {
  const marker = `__example_${process.pid}_exit__`;
  const script = ['set -o pipefail', ...lines.map((l, i) => `${localise(l)}\necho "${marker} ${i} $?"`)].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', script], {
      cwd,
      env: envFor(cwd),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      const results: Ran[] = [];
      let rest = out;
      for (let i = 0; i < lines.length; i++) {
        const m = new RegExp(`^${marker} ${i} (\\d+)$`, 'm').exec(rest);
        if (!m) {
          results.push({ line: lines[i], code: null, output: rest.slice(-3000) });
          break;
        }
        results.push({ line: lines[i], code: Number(m[1]), output: rest.slice(0, m.index).slice(-3000) });
        rest = rest.slice(m.index + m[0].length);
      }
      resolve(results);
    });
  });
}

/**
 * Run the lines of one block in order: plain `bookdist` commands in-process (see plainArgs), the
 * rest in bash, in the same directory and environment. A block that sets shell state, and the
 * README's blocks, run wholly in bash.
 */
async function runLines(block: Block, lines: string[], cwd: string): Promise<Ran[]> {
  const env = envFor(cwd);
  const plain = lines.map((l) => plainArgs(localise(l), env));
  if (block.shell || lines.some((l) => SETS_SHELL_STATE.test(l)) || plain.every((a) => !a)) return runBlock(lines, cwd);
  const results: Ran[] = [];
  for (let i = 0; i < lines.length; ) {
    const args = plain[i];
    if (args) {
      results.push({ line: lines[i], ...(await runInProcess(args, cwd, env)) });
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && !plain[j]) j++;
    const ran = await runBlock(lines.slice(i, j), cwd);
    results.push(...ran);
    if (ran.length < j - i || ran.some((r) => r.code === null)) break;
    i = j;
  }
  return results;
}

/**
 * The real main() with the line's environment, in its directory: the process's working directory
 * too, for the file arguments that are read relative to it (--key-file, --from-file, --db).
 */
async function runInProcess(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const r = await run(args, { env, cwd });
    return { code: r.code, output: (r.stdout + r.stderr).slice(-3000) };
  } finally {
    process.chdir(before);
  }
}

/** GET over HTTPS trusting the sandbox's CA file (the TLS message may reach stderr after the URL). */
function httpsGet(url: string, caFile: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const ca = caFile ? readFileSync(caFile, 'utf8') : undefined;
    httpsRequest(url, { ca }, (res) => (res.resume(), resolve(res.statusCode ?? 0)))
      .on('error', reject)
      .end();
  });
}

/** `sandbox serve`: it must print its URL on stdout, answer, and stop with exit 0 on SIGTERM. */
function runServe(
  line: string,
  cwd: string,
): Promise<{ code: number | null; url: string; answers: number[]; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', `exec ${localise(line)}`], {
      cwd,
      env: envFor(cwd),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let url = '';
    const answers: number[] = [];
    // Once the URL is printed (and, with --tls, the CA file to trust, which goes to stderr):
    // a GET as the example's reader would send it, then SIGTERM. An example that injects faults
    // (--fault-rate) may answer it with one: it is asked again, up to 20 times, every answer kept.
    const check = () => {
      const m = /^(https?:\/\/\S+)$/m.exec(out);
      const ca = /clients trust (\S+\.pem)/.exec(err)?.[1];
      if (!m || url || (m[1].startsWith('https:') && !ca)) return;
      url = m[1];
      const ask = () => (url.startsWith('https:') ? httpsGet(url + '/', ca) : fetch(url + '/').then((r) => r.status));
      void (async () => {
        for (let i = 0; i < 20 && answers.at(-1) !== 200; i++) answers.push(await ask());
      })()
        .catch(() => {})
        .finally(() => child.kill('SIGTERM'));
    };
    child.stderr.setEncoding('utf8').on('data', (d) => ((err += d), check()));
    child.stdout.setEncoding('utf8').on('data', (d) => ((out += d), check()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, url, answers, output: out + err });
    });
  });
}

describe('examples', () => {
  it('are collected from the README and the whole command tree', () => {
    expect(readme.length).toBeGreaterThanOrEqual(4);
    expect(treeBlocks.length).toBeGreaterThanOrEqual(40);
    expect(expectedExit('bookdist book get --isbn 9780000000000   # exits 3')).toBe(3);
    expect(expectedExit('bookdist status')).toBe(0);
    // No placeholders: every id is a real seeded one.
    for (const b of [...readme, ...treeBlocks])
      for (const l of b.lines) expect(l, b.where).not.toMatch(/…|\.\.\.|<[a-z_]+>|XXXX/);
  });

  it('run in-process only when bash would pass the words as they are', () => {
    const vars = { KEY: 'k e y', ID: 'abc', EMPTY: '' };
    expect(plainArgs('bookdist book get --isbn 978-1   # exits 3', vars)).toEqual(['book', 'get', '--isbn', '978-1']);
    expect(
      plainArgs(`bookdist book search --title "winter atlas" --fields 'a,b' --id $ID --key "$KEY" --x=\${ID}y`, vars),
    ).toEqual([
      'book',
      'search',
      '--title',
      'winter atlas',
      '--fields',
      'a,b',
      '--id',
      'abc',
      '--key',
      'k e y',
      '--x=abcy',
    ]);
    for (const l of [
      'bookdist sandbox openapi > openapi.json',
      'bookdist sandbox credentials --json | jq -r .partner.key_file',
      'bookdist whoami && bookdist status',
      'bookdist book get $(cat id.txt)',
      'bookdist book get "$(cat id.txt)"',
      'bookdist book get `cat id.txt`',
      'bookdist book get --key $KEY', // split by bash
      'bookdist book get --key $UNSET',
      'bookdist book get $EMPTY --x', // dropped by bash
      'bookdist book get *.txt',
      'bookdist book get ~/x',
      'bookdist book get a\\ b',
      'bookdist book get "unterminated',
      'source <(bookdist completion bash)',
      'jq . x.json',
    ])
      expect(plainArgs(l, vars), l).toBeUndefined();
    expect(SETS_SHELL_STATE.test('ORDER=$(bookdist order free --json)')).toBe(true);
    expect(SETS_SHELL_STATE.test('export BOOKDIST_PROFILE=prod')).toBe(true);
    expect(SETS_SHELL_STATE.test('bookdist book get --isbn 1')).toBe(false);
  });

  it.each([...readme, ...treeBlocks].map((b) => [b.where, b] as const))(
    '%s',
    async (_where, block) => {
      const cwd = blockDir();
      const serve = block.lines.filter((l) => /\bbookdist sandbox serve\b/.test(l));
      const rest = block.lines.filter((l) => !serve.includes(l));
      for (const line of serve) {
        const r = await runServe(line, cwd);
        expect(r.url, `${line}\n${r.output}`).toMatch(/^https?:\/\/127\.0\.0\.1:\d+$/);
        expect(r.answers.at(-1), `${line}: GET / over ${r.url}\n${r.output}`).toBe(200);
        // Before the 200, only the faults the line asks for (none without --fault-rate).
        const faults = /--fault-rate/.test(line) ? [...line.matchAll(/--fault (\d{3})/g)].map((m) => Number(m[1])) : [];
        expect(
          r.answers.slice(0, -1).filter((s) => !faults.includes(s)),
          `${line}: answers ${r.answers.join(', ')}`,
        ).toEqual([]);
        expect(r.code, `${line}\n${r.output}`).toBe(0);
      }
      if (!rest.length) return;
      const results = await runLines(block, rest, cwd);
      for (const [i, line] of rest.entries()) {
        const r = results[i];
        expect(r, `${line}: did not finish`).toBeDefined();
        expect(r.code, `\`${line}\` exited ${r.code}, the example implies ${expectedExit(line)}:\n${r.output}`).toBe(
          expectedExit(line),
        );
      }
    },
    300_000,
  );
});
