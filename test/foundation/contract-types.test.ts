// The typed contract, checked by the compiler: a card that misspells an endpoint's name, a member
// of its answer or a field of its payload, leaves out a path parameter, reads a member as the
// wrong type or relies on a member the answer check (src/api/verify.ts) does not look at, or a
// sandbox handler that answers the wrong shape, does not compile (test/fixtures/contract/misspelt.ts
// marks each such line).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = join(ROOT, 'test/fixtures/contract/misspelt.ts');

function diagnostics(file: string): Array<{ line: number; text: string }> {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([file], { ...options, noEmit: true });
  // The fixture's own diagnostics: the compiler checks of the rest only what the fixture uses.
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ({
    line: d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1,
    text: ts.flattenDiagnosticMessageText(d.messageText, ' '),
  }));
}

describe('the typed contract', () => {
  it('refuses a misspelt endpoint, answer member and payload field, a missing path parameter, a wrong member type, an unchecked member read as typed and a handler of the wrong shape; accepts the rest', () => {
    const lines = readFileSync(FIXTURE, 'utf8').split('\n');
    const marked = lines.flatMap((l, i) => (l.trimEnd().endsWith('// ✗') ? [i + 1] : []));
    expect(marked.length).toBe(8);
    const found = diagnostics(FIXTURE);
    expect(
      [...new Set(found.map((d) => d.line))].sort((a, b) => a - b),
      JSON.stringify(found, null, 1),
    ).toEqual(marked);
    const text = found.map((d) => d.text).join('\n');
    expect(text).toMatch(/"book\.gett"/);
    expect(text).toMatch(/titel/);
    expect(text).toMatch(/expiration_dat/);
    expect(text).toMatch(/is_hled/);
    // A member the answer check does not look at is not promised to a card (unknown, not number).
    expect(text).toMatch(/Type 'unknown' is not assignable to type 'number'/);
    // A sandbox handler answering the wrong shape (a number for book.viewer's viewer_url).
    expect(text).toMatch(/Type 'number' is not assignable to type 'string'/);
  }, 60_000);
});
