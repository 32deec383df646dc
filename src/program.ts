// The full command tree: the root and every command group, in the command manifest's order.
// Built for help, completion and docs; a command run builds only its own group (src/root.ts,
// src/cli/tree.ts).
import type { Command } from 'commander';
import { rootCommand } from './root.js';
import { MANIFEST, type GroupId } from './commands/manifest.js';
import { mount, type CommandDecl, type ModuleMismatches } from './commands/define.js';
import { commands as general } from './commands/general/index.js';
import { commands as profile } from './commands/profile/index.js';
import { commands as sandbox } from './commands/sandbox/index.js';
import { commands as book } from './commands/book/index.js';
import { commands as user } from './commands/user/index.js';
import { commands as order } from './commands/order/index.js';
import { commands as codes } from './commands/codes/index.js';
import { commands as imports } from './commands/import/index.js';
import { commands as access } from './commands/access/index.js';
import { commands as offers } from './commands/offers/index.js';
import { commands as ledger } from './commands/ledger/index.js';
import { commands as completion } from './commands/completion/index.js';
import { commands as help } from './commands/help/index.js';

/** Each manifest group's declarations (the type makes a new group fail to compile until it is here). */
const DECLARATIONS = {
  general,
  profile,
  sandbox,
  book,
  user,
  order,
  codes,
  import: imports,
  access,
  offers,
  ledger,
  completion,
  help,
} as const satisfies Record<GroupId, readonly CommandDecl[]>;

/** Each verb's module takes what its declaration gives: a verb named here loads the wrong module, or its parse() takes other options. */
const modulesMatch: [Mismatched] extends [never] ? true : Mismatched = true;
type Mismatched = { [G in GroupId]: ModuleMismatches<(typeof DECLARATIONS)[G]> }[GroupId];
void modulesMatch;

export function buildProgram(): Command {
  const program = rootCommand();
  for (const group of MANIFEST) mount(program, DECLARATIONS[group.id]);
  return program;
}
