// Help across the whole command tree (ISSUE 4, item 5): every command has a one-line summary and a
// description; every command that runs something has 2–3 examples in its help; every option is
// described; and `bookdist help <command...>` prints exactly what `bookdist <command...> --help` does.
import { PassThrough, Writable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { commandName, documentedCommands, examplesOf } from '../../src/docs/reference.js';
import { runCli } from '../helpers/cli.js';

const program = buildProgram();
const commands = documentedCommands(program);
const path = (c: Command) => commandName(c).split(' ').slice(1);
const isLeaf = (c: Command) => c.commands.length === 0;

async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const sink = (f: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (f(String(chunk)), cb()) });
  const code = await main(args, {
    io: {
      stdin: new PassThrough(),
      stdout: sink((s) => (stdout += s)),
      stderr: sink((s) => (stderr += s)),
      env: { NO_COLOR: '1' },
      cwd: process.cwd(),
    },
    signals: false,
  });
  return { code, stdout, stderr };
}

describe('every command', () => {
  it('the tree has the command groups', () => {
    const names = program.commands.map((c) => c.name());
    expect(names).toEqual(expect.arrayContaining(['book', 'profile', 'completion', 'help']));
  });

  it.each(commands.map((c) => [commandName(c), c] as const))(
    '%s has a one-line summary and a description',
    (_name, c) => {
      expect(c.summary(), 'summary()').toMatch(/\S/);
      expect(c.summary()).not.toContain('\n');
      expect(c.description(), 'description()').toMatch(/\S/);
      expect(c.description(), 'the description says more than the summary').not.toBe(c.summary());
      for (const o of c.options) expect(o.description, `${o.flags} has a description`).toMatch(/\S/);
    },
  );

  it.each(commands.filter(isLeaf).map((c) => [commandName(c), c] as const))(
    '%s has 2–3 examples in its help',
    (_name, c) => {
      const ex = examplesOf(c);
      expect(ex.length, `examples of ${commandName(c)}: ${JSON.stringify(ex)}`).toBeGreaterThanOrEqual(2);
      expect(ex.length).toBeLessThanOrEqual(3);
    },
  );

  it.each(commands.map((c) => [path(c).join(' '), c] as const))(
    '`bookdist help %s` equals its --help',
    async (_name, c) => {
      const [topic, flag] = await Promise.all([run(['help', ...path(c)]), run([...path(c), '--help'])]);
      expect(flag.code).toBe(0);
      expect(flag.stdout.startsWith(`Usage: ${commandName(c)}`), flag.stdout.split('\n')[0]).toBe(true);
      expect(topic.code).toBe(0);
      expect(topic.stdout).toBe(flag.stdout);
      expect(topic.stderr).toBe('');
    },
  );
});

describe('bookdist help', () => {
  it('`bookdist help book get` equals `bookdist book get --help` (the real CLI)', async () => {
    const [topic, flag] = await Promise.all([runCli(['help', 'book', 'get']), runCli(['book', 'get', '--help'])]);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toMatch(/^Usage: bookdist book get \[options\] \[hash_id\]/);
    expect(flag.stdout).toMatch(/--isbn <isbn>/);
    expect(flag.stdout).toMatch(/Examples:\n {2}\$ bookdist book get /);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toBe(flag.stdout);
  });

  it('`bookdist help` alone is the top-level help, which lists help and completion but no hidden command', async () => {
    const [topic, flag] = await Promise.all([run(['help']), run(['--help'])]);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toBe(flag.stdout);
    expect(flag.stdout).toMatch(/^ {2}help \[command\.\.\.\] +show the help of a command/m);
    expect(flag.stdout).toMatch(/^ {2}completion +shell completion scripts/m);
    expect(flag.stdout).not.toContain('__reference');
  });

  it.each(['80', '200'])(
    "the real CLI's root help (--help, -h, bare) at %s columns is the full tree's, byte for byte",
    async (cols) => {
      const env = { COLUMNS: cols };
      const [topic, ...roots] = await Promise.all([
        runCli(['help'], { env }),
        runCli(['--help'], { env }),
        runCli(['-h'], { env }),
        runCli([], { env }),
      ]);
      expect(topic.code).toBe(0);
      expect(topic.stdout).toMatch(/^Bulk jobs/m);
      for (const r of roots) {
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(topic.stdout);
      }
      expect(Math.max(...topic.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(Number(cols));
    },
  );

  it('an alias names the same command', async () => {
    const [alias, name] = await Promise.all([run(['help', 'profile', 'ls']), run(['profile', 'list', '--help'])]);
    expect(alias.stdout).toBe(name.stdout);
  });

  it('an unknown command is a usage error (exit 2) that says where to look', async () => {
    const r = await run(['help', 'book', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown command "book nope".*bookdist book --help/);
  });

  it('`bookdist help exit-codes` still lists the exit codes', async () => {
    const r = await run(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Exit codes:/);
  });
});
