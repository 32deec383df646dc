// The completion scripts generated from the command tree load in real bash, zsh and fish and
// complete commands, subcommands, options and option values. The shells are installed from Debian
// packages when missing (see _support.ts), so the test runs the same on a bare CI machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashComplete, ensureShells, fishComplete, generatedScripts, zshComplete } from './_support.js';

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
    expect(got).toEqual(expect.arrayContaining(['--isbn', '--sku', '--isbn-file', '--no-check', '--help', '--output', '--json', '--profile']));
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
    expect(complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });
});

describe('zsh', () => {
  it('completes `bookdist bo<TAB>` to book (autoloaded from $fpath)', () => {
    expect(zshComplete(scripts.dir, 'bookdist bo')).toEqual(['book']);
  });
  it('completes `bookdist book get --<TAB>` with its own and the global options', () => {
    const got = zshComplete(scripts.dir, 'bookdist book get --');
    expect(got).toEqual(expect.arrayContaining(['--isbn', '--sku', '--isbn-file', '--help', '--output', '--json']));
    expect(got.every((w) => w.startsWith('--'))).toBe(true);
  });
  it('works when sourced after compinit, as `source <(bookdist completion zsh)`', () => {
    expect(zshComplete(scripts.dir, 'bookdist bo', 'source')).toEqual(['book']);
    expect(zshComplete(scripts.dir, 'bookdist book get --s', 'source')).toEqual(['--sku']);
  });
  it('completes option values, subcommands and help words', () => {
    expect(zshComplete(scripts.dir, 'bookdist book get --output ')).toEqual(OUTPUT_FORMATS);
    expect(zshComplete(scripts.dir, 'bookdist book get --output=j')).toEqual(['json']);
    expect(zshComplete(scripts.dir, 'bookdist -o json book pr')).toEqual(expect.arrayContaining(['pricing']));
    expect(zshComplete(scripts.dir, 'bookdist help book ge')).toEqual(['get']);
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
