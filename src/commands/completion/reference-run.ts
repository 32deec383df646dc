import type { Context } from '../../context.js';
import type { VerbInput } from '../define.js';
import type { reference } from './reference-run.cmd.js';
import { VERSION } from '../../version.js';
import { renderReference } from '../../docs/reference.js';
import { renderMan } from '../../docs/man.js';
import { rootOf } from './run.js';

export function parse(input: VerbInput<typeof reference>) {
  return { program: rootOf(input.command), man: Boolean(input.opts.man) };
}

export async function run(options: ReturnType<typeof parse>, ctx: Context): Promise<void> {
  ctx.io.stdout.write(options.man ? renderMan(options.program, VERSION) : renderReference(options.program));
}
