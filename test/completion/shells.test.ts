// The completion scripts generated from the command tree load in real bash, zsh and fish and
// complete commands, subcommands, options and option values. The shells are installed from Debian
// packages when missing (see _support.ts), so the test runs the same on a bare CI machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../helpers/run.js';
import { buildProgram } from '../../src/program.js';
import { allCommands, buildModel } from '../../src/commands/completion/parts/model.js';
import { bashComplete, ensureShells, fishComplete, generatedScripts, zshCompleteAll } from './_support.js';

let scripts: ReturnType<typeof generatedScripts>;
beforeAll(() => {
  ensureShells();
  scripts = generatedScripts();
}, 900_000);
afterAll(() => scripts?.cleanup());

const OUTPUT_FORMATS = ['csv', 'json', 'ndjson', 'table', 'tsv'];
const sorted = (a: string[]) => [...a].sort();

describe('bash', () => {
  const complete = (...words: string[]) => bashComplete(scripts.path('bash'), ['bookdist', ...words]);

  it('completes `bookdist bo<TAB>` to book', () => {
    expect(complete('bo')).toEqual(['book']);
  });
  it('completes `bookdist book get --<TAB>` with its own and the global options', () => {
    const got = complete('book', 'get', '--');
    expect(got).toEqual(
      expect.arrayContaining([
        '--isbn',
        '--sku',
        '--isbn-file',
        '--no-check',
        '--help',
        '--output',
        '--json',
        '--profile',
      ]),
    );
    expect(got.every((w) => w.startsWith('--'))).toBe(true);
  });
  it('lists top-level commands and subcommands, and not hidden ones', () => {
    const top = complete('');
    expect(top).toEqual(expect.arrayContaining(['book', 'user', 'order', 'profile', 'completion', 'help']));
    expect(top).not.toContain('__reference');
    expect(complete('book', '')).toEqual(expect.arrayContaining(['get', 'search', 'pricing']));
  });
  it('completes the values of fixed-choice options, also after options that take values', () => {
    expect(sorted(complete('--output', ''))).toEqual(OUTPUT_FORMATS);
    expect(complete('book', 'get', '-o', 'n')).toEqual(['ndjson']);
    expect(complete('--color', '')).toEqual(['auto', 'always', 'never']);
    // --output=js split at '=' by COMP_WORDBREAKS, and as one word.
    expect(complete('book', 'get', '--output', '=', 'js')).toEqual(['json']);
    expect(complete('book', 'get', '--output=js')).toEqual(['--output=json']);
    // the value of --profile is skipped when finding the command
    expect(complete('--profile', 'prod', 'book', 'g')).toEqual(['get']);
  });
  it('resolves aliases and completes the words of `help`', () => {
    expect(complete('profile', 'ls', '--h')).toEqual(['--help']);
    expect(complete('help', 'bo')).toEqual(['book']);
    expect(complete('help', 'book', 'g')).toEqual(['get']);
    expect(complete('completion', '')).toEqual(['bash', 'zsh', 'fish', 'refresh', 'help']);
  });
});

describe('zsh', () => {
  // One interactive zsh completes every line of these tests, one after the other (_support.ts).
  const LINES = [
    'bookdist bo',
    'bookdist book get --',
    'bookdist book get --output ',
    'bookdist book get --output=j',
    'bookdist -o json book pr',
    'bookdist help book ge',
  ];
  let got: string[][];
  beforeAll(() => void (got = zshCompleteAll(scripts.dir, LINES)));
  const complete = (line: string) => got[LINES.indexOf(line)];

  it('completes `bookdist bo<TAB>` to book (autoloaded from $fpath)', () => {
    expect(complete('bookdist bo')).toEqual(['book']);
  });
  it('completes `bookdist book get --<TAB>` with its own and the global options', () => {
    const options = complete('bookdist book get --');
    expect(options).toEqual(expect.arrayContaining(['--isbn', '--sku', '--isbn-file', '--help', '--output', '--json']));
    expect(options.every((w) => w.startsWith('--'))).toBe(true);
  });
  it('works when sourced after compinit, as `source <(bookdist completion zsh)`', () => {
    const [bo, sku] = zshCompleteAll(scripts.dir, ['bookdist bo', 'bookdist book get --s'], 'source');
    expect(bo).toEqual(['book']);
    expect(sku).toEqual(['--sku']);
  });
  it('completes option values, subcommands and help words', () => {
    expect(complete('bookdist book get --output ')).toEqual(OUTPUT_FORMATS);
    expect(complete('bookdist book get --output=j')).toEqual(['json']);
    expect(complete('bookdist -o json book pr')).toEqual(expect.arrayContaining(['pricing']));
    expect(complete('bookdist help book ge')).toEqual(['get']);
  });
});

describe('fish', () => {
  const complete = (line: string) => fishComplete(scripts.path('fish'), line);

  it('completes `bookdist bo<TAB>` to book', () => {
    expect(complete('bookdist bo')).toEqual(['book']);
  });
  it('completes `bookdist book get --<TAB>` with its own and the global options', () => {
    const got = complete('bookdist book get --');
    expect(got).toEqual(expect.arrayContaining(['--isbn', '--sku', '--isbn-file', '--help', '--output', '--json']));
    expect(got.every((w) => w.startsWith('--'))).toBe(true);
  });
  it('completes option values, aliases and help words', () => {
    expect(sorted(complete('bookdist book get --output '))).toEqual(OUTPUT_FORMATS);
    expect(complete('bookdist book get --output=j')).toEqual(['--output=json']);
    expect(complete('bookdist profile ls --he')).toEqual(['--help']);
    expect(complete('bookdist help book ge')).toEqual(['get']);
  });
});

describe('every option with a fixed set of values', () => {
  // Each option of the tree whose values are choices, at the first command that has it, its last name.
  const cases = allCommands(buildModel(buildProgram())).flatMap((c) =>
    c.ownFlags
      .filter((f) => f.value.kind === 'choices')
      .map((f) => ({ path: c.path, flag: f.names.at(-1)!, choices: (f.value as { choices: string[] }).choices })),
  );
  it('the tree has them (--output, --color, sandbox serve --fault, ...)', () => {
    const flags = cases.map((c) => [...c.path, c.flag].join(' '));
    expect(flags).toEqual(expect.arrayContaining(['--output', '--color', 'sandbox serve --fault']));
  });
  it('completes its values in bash, zsh and fish', () => {
    const zsh = zshCompleteAll(
      scripts.dir,
      cases.map((c) => ['bookdist', ...c.path, c.flag].join(' ') + ' '),
    );
    for (const [i, c] of cases.entries()) {
      const words = ['bookdist', ...c.path, c.flag];
      const want = sorted(c.choices);
      expect(sorted(bashComplete(scripts.path('bash'), [...words, ''])), words.join(' ')).toEqual(want);
      expect(sorted(zsh[i]), words.join(' ')).toEqual(want);
      expect(sorted(fishComplete(scripts.path('fish'), words.join(' ') + ' ')), words.join(' ')).toEqual(want);
    }
  });
});

describe('profile names (read from the config file, without running bookdist)', () => {
  let home: string;
  let cfg: Record<string, string>;
  const empty = () => ({ BOOKDIST_CONFIG_DIR: join(home, 'nothing-here') });
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'bookdist-complete-profiles-'));
    cfg = { BOOKDIST_CONFIG_DIR: join(home, 'bookdist') };
    // Stored the way users store them; a token-only profile needs no service to verify against.
    for (const name of ['ops-1', 'b_2']) {
      const r = await run(
        ['profile', 'add', '--name', name, '--base-url', 'https://api.example.com', '--token-stdin'],
        { env: cfg, input: 'tok' },
      );
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const ALL = ['b_2', 'ops-1', 'sandbox'];

  const STORED = ['b_2', 'ops-1'];

  it('profile remove offers the stored profiles only: the built-in sandbox cannot be removed', () => {
    expect(sorted(bashComplete(scripts.path('bash'), ['bookdist', 'profile', 'remove', ''], cfg))).toEqual(STORED);
    expect(sorted(zshCompleteAll(scripts.dir, ['bookdist profile remove '], 'fpath', cfg)[0])).toEqual(STORED);
    expect(sorted(fishComplete(scripts.path('fish'), 'bookdist profile remove ', cfg))).toEqual(STORED);
    expect(bashComplete(scripts.path('bash'), ['bookdist', 'profile', 'rm', 's'], cfg)).toEqual([]);
  });

  it('bash: --profile and profile use|show|check offer the stored profiles and sandbox', () => {
    const complete = (...words: string[]) => sorted(bashComplete(scripts.path('bash'), ['bookdist', ...words], cfg));
    expect(complete('--profile', '')).toEqual(ALL);
    expect(complete('book', 'get', '--profile', 'o')).toEqual(['ops-1']);
    expect(complete('--profile=b')).toEqual(['--profile=b_2']);
    expect(complete('profile', 'use', '')).toEqual(ALL);
    expect(complete('profile', 'rm', 'o')).toEqual(['ops-1']);
    expect(complete('profile', 'show', 'b')).toEqual(['b_2']);
    expect(complete('profile', 'check', 's')).toEqual(['sandbox']);
    // a new name is not completed from the stored ones; no config file: only the built-in profile
    expect(complete('profile', 'add', '--name', '')).toEqual([]);
    expect(sorted(bashComplete(scripts.path('bash'), ['bookdist', '--profile', ''], empty()))).toEqual(['sandbox']);
    // XDG_CONFIG_HOME/bookdist is where profiles live without BOOKDIST_CONFIG_DIR
    expect(
      sorted(bashComplete(scripts.path('bash'), ['bookdist', 'profile', 'use', ''], { XDG_CONFIG_HOME: home })),
    ).toEqual(ALL);
  });
  it('zsh: the same names', () => {
    const got = zshCompleteAll(
      scripts.dir,
      ['bookdist --profile ', 'bookdist profile remove op', 'bookdist profile check b'],
      'fpath',
      cfg,
    );
    expect(sorted(got[0])).toEqual(ALL);
    expect(got[1]).toEqual(['ops-1']);
    expect(got[2]).toEqual(['b_2']);
  });
  it('fish: the same names', () => {
    expect(sorted(fishComplete(scripts.path('fish'), 'bookdist --profile ', cfg))).toEqual(ALL);
    expect(fishComplete(scripts.path('fish'), 'bookdist profile use op', cfg)).toEqual(['ops-1']);
    expect(sorted(fishComplete(scripts.path('fish'), 'bookdist profile show ', empty()))).toEqual(['sandbox']);
  });
});
