import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { completionScript, SHELLS, type Shell } from './parts/scripts.js';

export interface CompletionOptions {
  shell: Shell;
  program: Command;
}

export function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

/** `bookdist completion <shell>`: the shell is the verb's own name. */
export function parse(input: { command: Command }): CompletionOptions {
  const shell = input.command.name() as Shell;
  if (!SHELLS.includes(shell)) throw new Error(`no completion script for ${shell}`);
  return { shell, program: rootOf(input.command) };
}

export async function run(options: CompletionOptions, ctx: Context): Promise<void> {
  ctx.io.stdout.write(completionScript(options.shell, options.program));
}
