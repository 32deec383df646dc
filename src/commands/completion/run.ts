import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { completion } from './index.js';
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

export function parse(input: VerbInput<typeof completion>): CompletionOptions {
  return { shell: input.args.shell, program: rootOf(input.command) };
}

export async function run(options: CompletionOptions, ctx: Context): Promise<void> {
  ctx.io.stdout.write(completionScript(options.shell, options.program));
}
