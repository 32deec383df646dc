// The lazy command tree: a run registers only the group its argv names, and what it registers
// is the same as the full tree's (same help, same options), so help, completion and docs —
// generated from the full tree — describe exactly what runs.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { GROUPS, ROOT_LISTING, rootHelpProgram, route } from '../../src/root.js';
import { programFor } from '../../src/cli/tree.js';
import { bulkEntries } from '../../src/commands/help/parts/layout.js';
import { rootHelpText } from '../../src/root-help.js';

const FULL_TREE_ONLY = ['completion', '__reference', 'help'];

function walk(cmd: Command, path: string[] = []): Array<[string[], Command]> {
  return [[path, cmd], ...cmd.commands.flatMap((c) => walk(c, [...path, c.name()]))];
}

describe('lazy command tree', () => {
  it('the groups table names every top-level command except the tree walkers', () => {
    const top = buildProgram().commands.map((c) => c.name());
    expect(Object.keys(GROUPS).sort()).toEqual(top.filter((n) => !FULL_TREE_ONLY.includes(n)).sort());
    expect(top.filter((n) => FULL_TREE_ONLY.includes(n)).sort()).toEqual([...FULL_TREE_ONLY].sort());
  });

  it('routes argv to one group, skipping global options and their values', () => {
    expect(route(['book', 'get', '--isbn', '1'])).toEqual({ kind: 'group', name: 'book' });
    expect(route(['--profile', 'book', 'status'])).toEqual({ kind: 'group', name: 'status' });
    expect(route(['-o', 'json', '--timeout=5s', '-q', 'codes', 'summary'])).toEqual({ kind: 'group', name: 'codes' });
    expect(route(['book', 'get', '--help'])).toEqual({ kind: 'group', name: 'book' });
    expect(route(['--version'])).toEqual({ kind: 'version' });
    expect(route(['-q', '-V'])).toEqual({ kind: 'version' });
    for (const argv of [
      ['-h', 'book'],
      ['--help', 'bok'],
      ['-V', '--help'],
      ['--help', '-V'],
      ['help', 'book'],
      ['completion', 'bash'],
      ['bok'],
      ['--', 'book'],
    ]) {
      expect(route(argv), argv.join(' ')).toEqual({ kind: 'full' });
    }
    for (const argv of [[], ['--help'], ['-h'], ['--json'], ['-o', 'json', '--help'], ['--profile', 'book', '-h']]) {
      expect(route(argv), argv.join(' ')).toEqual({ kind: 'root-help' });
    }
  });

  it('a verb run registers that verb alone, as the full tree has it; any other word after the group keeps the whole group', async () => {
    const full = new Map(walk(buildProgram()).map(([p, c]) => [p.join(' '), c]));
    for (const argv of [
      ['book', 'get', '--isbn', '1'],
      ['codes', 'summary'],
      ['sandbox', 'clock', 'advance', '1d'],
      ['-q', 'user', 'get', '--help'],
    ]) {
      const i = argv.findIndex((a) => Object.hasOwn(GROUPS, a));
      const group = (await programFor(argv)).commands.find((c) => c.name() === argv[i])!;
      expect(
        group.commands.map((c) => c.name()),
        argv.join(' '),
      ).toEqual([argv[i + 1]]);
      const verb = group.commands[0];
      const twin = full.get(`${argv[i]} ${argv[i + 1]}`)!;
      expect(verb.helpInformation()).toBe(twin.helpInformation());
      expect(verb.options.map((o) => o.flags)).toEqual(twin.options.map((o) => o.flags));
    }
    const whole = full.get('book')!.commands.map((c) => c.name());
    for (const argv of [
      ['book'],
      ['book', '--help'],
      ['book', 'gte'],
      ['book', 'help', 'get'],
      ['book', '-q', 'get'],
    ]) {
      const group = (await programFor(argv)).commands.find((c) => c.name() === 'book')!;
      expect(
        group.commands.map((c) => c.name()),
        argv.join(' '),
      ).toEqual(whole);
    }
  });

  it('--version builds the root alone (no command group)', async () => {
    expect((await programFor(['-q', '--version'])).commands).toEqual([]);
  });

  it('each group built alone has the same commands, options and help as in the full tree', async () => {
    const full = new Map(walk(buildProgram()).map(([p, c]) => [p.join(' '), c]));
    const compared = new Set<string>();
    for (const name of Object.keys(GROUPS)) {
      const lazy = await programFor([name]);
      const names = lazy.commands.map((c) => c.name());
      expect(names).toContain(name);
      for (const [path, cmd] of walk(lazy).slice(1)) {
        const twin = full.get(path.join(' '));
        expect(twin, path.join(' ')).toBeDefined();
        expect(cmd.helpInformation(), path.join(' ')).toBe(twin!.helpInformation());
        expect(cmd.options.map((o) => o.flags)).toEqual(twin!.options.map((o) => o.flags));
        compared.add(path.join(' '));
      }
    }
    // every command of the full tree but the tree walkers was compared
    const expected = [...full.keys()].filter((k) => k && !FULL_TREE_ONLY.includes(k.split(' ')[0])).length;
    expect(compared.size).toBe(expected);
  });

  it('the root help lists from ROOT_LISTING exactly what the full tree lists (so it cannot drift)', () => {
    const full = buildProgram();
    const helper = full.createHelp();
    const commands = helper
      .visibleCommands(full)
      .map((c) => [helper.subcommandTerm(c), helper.subcommandDescription(c)]);
    const bulk = bulkEntries(full).map((b) => [b.term, b.description]);
    // A new top-level command, a changed summary or a new bulk flag: copy these into ROOT_LISTING.
    const fix = (name: string, rows: string[][]) =>
      `update ${name === 'bulk' ? 'BULK_LISTING' : 'MANIFEST'} in src/commands/manifest.ts to list:\n${rows.map((r) => `    ${JSON.stringify(r)},`).join('\n')}`;
    expect(ROOT_LISTING.commands, fix('commands', commands)).toEqual(commands);
    expect(ROOT_LISTING.bulk, fix('bulk', bulk)).toEqual(bulk);
  });

  it.each([80, 200, 40])(
    "the root help without the groups is byte-identical to the full tree's at %i columns",
    async (width) => {
      const at = (cmd: Command) =>
        cmd.configureOutput({ getOutHelpWidth: () => width, getErrHelpWidth: () => width }).helpInformation();
      const full = at(buildProgram());
      expect(full).toMatch(/Bulk jobs .*\n {2}book get --isbn-file/);
      expect(at(rootHelpProgram())).toBe(full);
      // the commander-free page `bookdist --help` prints: the full tree's help and its after-text
      let printed = '';
      buildProgram()
        .configureOutput({ getOutHelpWidth: () => width, writeOut: (s) => void (printed += s) })
        .outputHelp();
      expect(printed.startsWith(full)).toBe(true);
      expect(rootHelpText(width)).toBe(printed);
      for (const argv of [['--help'], [], ['-q', '-h']]) {
        const root = await programFor(argv);
        expect(at(root), argv.join(' ')).toBe(full);
        // nothing but stubs: no group's commands were loaded
        expect(root.commands.every((c) => c.commands.length === 0 && c.options.length === 0)).toBe(true);
      }
    },
  );
});
