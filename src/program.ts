// The full command tree: the root and every command group, in the order help lists them. Built
// for help, completion and docs; a command run builds only its own group (src/root.ts).
import type { Command } from 'commander';
import { rootCommand } from './root.js';
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

export function buildProgram(): Command {
  const program = rootCommand();
  registerGeneral(program);
  registerProfile(program);
  registerSandbox(program);
  registerBook(program);
  registerUser(program);
  registerOrder(program);
  registerCodes(program);
  registerImport(program);
  registerAccess(program);
  registerOffers(program);
  registerCompletion(program);
  // Keep last: `help` closes the list of commands, as commander's own help command does.
  registerHelp(program);
  return program;
}
