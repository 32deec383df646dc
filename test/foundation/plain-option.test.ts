// plainOption() (src/commands/plain-option.ts) makes commander's Option without the regular expressions
// of its constructor, and name()/attributeName() are string operations: every option of the tree,
// and every other form of flags, must come out exactly as commander's own would.
import { type Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { plainOption } from '../../src/commands/plain-option.js';
import { buildProgram } from '../../src/program.js';

function allOptions(cmd: Command, out: Option[] = []): Option[] {
  out.push(...cmd.options);
  for (const sub of cmd.commands) allOptions(sub, out);
  return out;
}

/** The same Option as commander's constructor makes, or the same error. */
function expectSame(flags: string, description?: string): void {
  let expected: Option | Error;
  try {
    expected = new Option(flags, description);
  } catch (e) {
    expected = e as Error;
  }
  if (expected instanceof Error) {
    expect(() => plainOption(flags, description), flags).toThrow(expected.message);
    return;
  }
  const got = plainOption(flags, description);
  expect(Object.getPrototypeOf(got), flags).toBe(Option.prototype);
  expect(Object.keys(got), flags).toEqual(Object.keys(expected));
  expect(got, flags).toStrictEqual(expected);
}

/** commander's own name() and attributeName(), as its option.js writes them. */
function commanderNames(o: Option): [string, string] {
  const name = o.long ? o.long.replace(/^--/, '') : (o.short as string).replace(/^-/, '');
  const camel = (s: string) => s.split('-').reduce((str, word) => str + word[0].toUpperCase() + word.slice(1));
  return [name, camel(o.negate ? name.replace(/^no-/, '') : name)];
}

describe('plainOption', () => {
  const tree = allOptions(buildProgram());

  it('every option of the command tree is the Option commander would make', () => {
    expect(tree.length).toBeGreaterThan(100);
    for (const o of tree) expectSame(o.flags, o.description);
  });

  it('other forms of flags: the same Option, or the same error, as commander gives', () => {
    for (const flags of [
      '-V, --version',
      '-h, --help',
      '--json',
      '--no-check',
      '--isbn <isbn>',
      '--color [when]',
      '-o, --output <format>',
      '--resolve <host:port:addr>',
      '--ws, --workspace',
      '-s|--sym <v>',
      '-s --sym',
      '-o,--output <f>',
      '--out <file...>',
      '--out [file...]',
      '--two  spaces',
      '--a <b> extra',
      '--a,b',
      '--a <b>,',
      '-x',
      '-x <v>',
      '--x',
      '---bad',
      '-ab, --abc',
      '--no-',
      '-',
      '',
      ' --lead',
      '--trail ',
    ]) {
      expectSame(flags, 'a description');
      expectSame(flags);
    }
  });

  it("name() and attributeName() give commander's names for every option", () => {
    const others = ['-x', '-x, --no-thing-here', '--ws, --workspace', '-V, --version', '--no-check'].map(
      (f) => new Option(f),
    );
    for (const o of [...tree, ...others]) expect([o.name(), o.attributeName()], o.flags).toEqual(commanderNames(o));
  });
});
