// One style for a missing option (issue 17): what is missing and the flag that gives it, whether
// commander's required option or a verb's own check says it; options required only in one mode
// say so in help ("required unless --from-csv").
import { describe, expect, it } from 'vitest';
import { run, stubEnv } from '../helpers/run.js';

const U = '70172cfe97283c430dcd57f8358d7a';
const H = 'cee313141a0ce9a22774b32f87855d677d864cfb';

describe('a missing option', () => {
  it.each([
    [['book', 'viewer', '--username', U], 'Give the book (40 hex characters) with --hash-id.'],
    [['book', 'viewer', '--hash-id', H], 'Give the reader (30 hex characters) with --username.'],
    [['offers', 'get'], 'Give ISBN-10 or ISBN-13 with --isbn.'],
    [['order', 'free', '--username', U], 'Give the book with --hash-id (or many free orders with --from-csv FILE).'],
    [['codes', 'generate', '--org', 'x', '--count', '1'], 'Give the book with --hash-id.'],
  ])('%j: "Give ... with --flag."', async (args, message) => {
    const r = await run(args, { env: stubEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`bookdist: ${message}`);
    expect(r.stderr).not.toMatch(/required option|not specified/);
  });
});

describe('help of a command with a file mode', () => {
  it.each([
    [
      ['order', 'free'],
      ['--username', '--hash-id'],
    ],
    [
      ['access', 'allow'],
      ['--username', '--hash-id'],
    ],
    [
      ['order', 'create'],
      ['--username', '--org'],
    ],
  ])('%j: required unless the file mode', async (words, flags) => {
    const r = await run([...words, '--help'], { env: stubEnv({ COLUMNS: '200' }) });
    for (const f of flags) {
      const line = r.stdout.split('\n').find((l) => l.trimStart().startsWith(f + ' '));
      expect(line, f).toMatch(/required unless --from-csv/);
      expect(line).not.toMatch(/\(required\)/);
    }
  });
});
