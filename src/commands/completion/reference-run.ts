import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import { renderReference } from '../../docs/reference.js';
import { rootOf } from './run.js';

export function parse(input: VerbInput) {
  return { program: rootOf(input.command) };
}

export async function run(options: ReturnType<typeof parse>, ctx: Context): Promise<void> {
  ctx.io.stdout.write(renderReference(options.program));
}
