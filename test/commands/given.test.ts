// The command that repeats a job is the one the user gave (src/commands/given.ts): made from the
// declaration as commander parsed it, repeating only what was given on the command line.
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { givenCommand, jobCommand } from '../../src/commands/given.js';
import { rootCommand } from '../../src/root.js';

function parsed(argv: string[], env: Record<string, string> = {}): Command {
  const program = new Command('bookdist').exitOverride();
  const verb = program.command('codes').command('generate').argument('[ids...]');
  verb.option('--org <org>').option('--count <n>').option('--samples').option('--no-check');
  verb.addOption(new Option('--batch-size <n>').default('1000'));
  verb.addOption(new Option('--label <l>').env('LABEL_FOR_TEST'));
  verb.option('--isbn <i>', 'repeatable', (v: string, prev: string[] = []) => [...prev, v]);
  verb.option('--resume');
  verb.action(() => {});
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    program.parse(argv, { from: 'user' });
  } finally {
    for (const k of Object.keys(env)) if (!(k in saved)) delete process.env[k];
  }
  return verb;
}

describe('givenCommand', () => {
  it('repeats what was given, in declared order, quoted; never a default or a value from the environment', () => {
    const cmd = parsed(
      [
        'codes',
        'generate',
        '--count',
        '5',
        '--org',
        "O'Brien & co",
        '--samples',
        '--no-check',
        '--isbn',
        'a',
        '--isbn',
        'b',
        'x1',
      ],
      { LABEL_FOR_TEST: 'env-label' },
    );
    expect(givenCommand(cmd)).toBe(
      `bookdist codes generate --org 'O'\\''Brien & co' --count 5 --samples --no-check --isbn a --isbn b x1`,
    );
  });
  it('keeps a value given equal to its default', () => {
    expect(givenCommand(parsed(['codes', 'generate', '--batch-size', '1000']))).toBe(
      'bookdist codes generate --batch-size 1000',
    );
  });
  it('sets, drops and replaces the arguments as asked', () => {
    const cmd = parsed(['codes', 'generate', '--count', '5', '--resume', 'x1', 'x2']);
    expect(givenCommand(cmd, { set: { count: 2, org: 'acme' }, drop: ['resume'], args: ['x2'] })).toBe(
      'bookdist codes generate --org acme --count 2 x2',
    );
  });
  it('repeats the global options given that a job needs, --yes only for a job that confirms', () => {
    const program = rootCommand().exitOverride();
    const verb = program.command('access').command('revoke').option('--from-csv <f>').option('--resume');
    verb.action(() => {});
    program.parse(
      [
        '--retries',
        '3',
        '-q',
        'access',
        'revoke',
        '--from-csv',
        'a b.csv',
        '--resume',
        '-o',
        'csv',
        '--yes',
        '--debug',
      ],
      { from: 'user' },
    );
    // --retries is repeated as given even at its default; -q and --debug change no job.
    expect(jobCommand(verb)).toBe(`bookdist access revoke --from-csv 'a b.csv' --output csv --retries 3`);
    expect(jobCommand(verb, { confirms: true })).toBe(
      `bookdist access revoke --from-csv 'a b.csv' --output csv --retries 3 --yes`,
    );
  });
});
