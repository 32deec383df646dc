import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { completionScript, type Shell } from './scripts.js';

export interface CompletionOptions {
  shell: Shell;
  program: Command;
}

export function rootOf(cmd: Command): Command {
  let c = cmd;
  while (c.parent) c = c.parent;
  return c;
}

export function parse(input: VerbInput): CompletionOptions {
  return { shell: input.args[0] as Shell, program: rootOf(input.command) };
}

export async function run(options: CompletionOptions, ctx: Context): Promise<void> {
  ctx.io.stdout.write(completionScript(options.shell, options.program));
}
