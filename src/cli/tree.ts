// The command tree a run needs, from its argv: the root alone (--version), the root with stub
// commands (the root help), the root and the one group its command word names, or the whole tree
// (help, completion, anything the router cannot place). The whole tree is imported only then.
import type { Command } from 'commander';
import { GROUPS, rootCommand, route } from '../root.js';
import { addCommandStubs } from '../commands/help/layout.js';
import { ROOT_LISTING } from '../commands/manifest.js';
import { mount } from '../commands/define.js';

export async function programFor(argv: string[]): Promise<Command> {
  const root = rootCommand();
  const where = route(argv, root);
  if (where.kind === 'version') return root;
  if (where.kind === 'root-help') return addCommandStubs(root, ROOT_LISTING.commands, ROOT_LISTING.bulk);
  if (where.kind === 'group') {
    mount(root, await GROUPS[where.name]());
    return root;
  }
  const { buildProgram } = await import('../program.js');
  return buildProgram();
}
