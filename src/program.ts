// The full command tree: the root and every command group, in the command manifest's order.
// Built for help, completion and docs; a command run builds only its own group (src/root.ts,
// src/cli/tree.ts).
import type { Command } from 'commander';
import { rootCommand } from './root.js';
import { MANIFEST, type GroupId } from './commands/manifest.js';
import { registerGeneral } from './commands/general/index.js';
import { registerProfile } from './commands/profile/index.js';
import { registerSandbox } from './commands/sandbox/index.js';
import { registerBook } from './commands/book/index.js';
import { registerUser } from './commands/user/index.js';
import { registerOrder } from './commands/order/index.js';
import { registerCodes } from './commands/codes/index.js';
import { registerImport } from './commands/import/index.js';
import { registerAccess } from './commands/access/index.js';
import { registerOffers } from './commands/offers/index.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerHelp } from './commands/help/index.js';

export { VERSION, OUTPUT_FORMATS, exitCodesText } from './root.js';

/** Each manifest group's definitions (the type makes a new group fail to compile until it is here). */
const REGISTER: Record<GroupId, (program: Command) => void> = {
  general: registerGeneral,
  profile: registerProfile,
  sandbox: registerSandbox,
  book: registerBook,
  user: registerUser,
  order: registerOrder,
  codes: registerCodes,
  import: registerImport,
  access: registerAccess,
  offers: registerOffers,
  completion: registerCompletion,
  help: registerHelp,
};

export function buildProgram(): Command {
  const program = rootCommand();
  for (const group of MANIFEST) REGISTER[group.id](program);
  return program;
}
