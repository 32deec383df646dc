// The command tree a run needs, from its argv: the root alone (--version), the root with stub
// commands (the root help), the root and the one group its command word names — of a group of
// verbs, only the verb the next word names (`book get`: one command, not book's dozen) — or the
// whole tree (help, completion, anything the router cannot place). The whole tree is imported
// only then.
import type { Command } from 'commander';
import { GROUPS, rootCommand, route } from '../root.js';
import { addCommandStubs } from '../commands/help/parts/layout.js';
import { ROOT_LISTING } from '../commands/manifest.js';
import { mount, type CommandDecl } from '../commands/define.js';

export async function programFor(argv: string[], opts: { wholeGroup?: boolean } = {}): Promise<Command> {
  const root = rootCommand();
  const where = route(argv, root);
  if (where.kind === 'version') return root;
  if (where.kind === 'root-help') return addCommandStubs(root, ROOT_LISTING.commands, ROOT_LISTING.bulk);
  if (where.kind === 'group') {
    const decls = await GROUPS[where.name]();
    mount(root, opts.wholeGroup ? decls : verbOnly(decls, argv, where.name));
    return root;
  }
  const { buildProgram } = await import('../program.js');
  return buildProgram();
}

/**
 * The group's declarations with the group `word` cut down to the verb that follows it in argv
 * (`book get ...`: `get` alone), when the word right after it names one of its commands (by name
 * or alias). Anything else (`book --help`, `book help get`, a misspelt verb, options first) keeps
 * the whole group, so that commander's help and suggestions see every verb.
 */
function verbOnly(decls: readonly CommandDecl[], argv: string[], word: string): readonly CommandDecl[] {
  const next = argv[argv.indexOf(word) + 1];
  if (next === undefined || next.startsWith('-')) return decls;
  return decls.map((d) => {
    if (d.name !== word || !('commands' in d)) return d;
    const verb = d.commands.find((c) => c.name === next || c.alias === next);
    return verb ? { ...d, commands: [verb] } : d;
  });
}

/**
 * The command at `cmd`'s place in a tree of the whole group: an unknown option's hint names the
 * sibling verbs that take it (src/cli/hints.ts), which a run of one verb did not build.
 */
export async function withSiblings(argv: string[], cmd: Command): Promise<Command> {
  const path: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
  let twin: Command | undefined = await programFor(argv, { wholeGroup: true });
  for (const name of path) twin = twin?.commands.find((c) => c.name() === name);
  return twin ?? cmd;
}
