// The answers that need neither commander nor any command group: the exit-codes help topic,
// --version, and the root help (a bare `bookdist`, -h, --help) rendered from the root's own
// table. Each returns the exit code, or undefined when argv asks for something else.
import type { IO } from '../context.js';

/** `bookdist help exit-codes` (and `bookdist exit-codes`): a help topic rather than a command. */
export async function helpTopic(argv: string[], io: IO): Promise<number | undefined> {
  if ((argv[0] === 'help' && argv[1] === 'exit-codes') || argv[0] === 'exit-codes') {
    const { exitCodesText } = await import('../root.js');
    io.stdout.write(exitCodesText());
    return 0;
  }
  return undefined;
}

/** A bare `bookdist`, `-h` or `--help`: the root help, from the root's own table. */
export function isRootHelp(argv: readonly string[]): boolean {
  return argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'));
}

/** --version alone, or the root help. */
export async function fastPath(argv: string[], io: IO): Promise<number | undefined> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    const { VERSION } = await import('../version.js');
    io.stdout.write(VERSION + '\n');
    return 0;
  }
  // The root help (a bare `bookdist`, -h, --help) from the root's own table: no commander, no
  // command group. Anything else with the root help (global options before -h) goes through
  // commander with the same table as stub commands (src/cli/tree.ts programFor).
  if (isRootHelp(argv)) {
    // One import: root-help.ts is imported by nothing else, so it is a chunk of its own (not a
    // re-export of a shared one), and it brings the page layout with it.
    const { rootHelpFor } = await import('../root-help.js');
    io.stdout.write(rootHelpFor(io.stdout, io.env));
    return 0;
  }
  return undefined;
}
