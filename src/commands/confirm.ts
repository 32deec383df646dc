// Confirmation before a destructive request (order refund, access revoke, book process --force).
// On a terminal it asks (inquirer, loaded only here); in scripts it requires --yes and fails at
// once naming the flag. --dry-run sends nothing, so it never needs confirming.
import type { Context } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';

/**
 * Resolve when the user agreed (or --yes / --dry-run was given); otherwise throw:
 * exit 2 naming --yes when no terminal can ask, exit 1 when the user answered no.
 */
export async function confirm(ctx: Context, question: string): Promise<void> {
  if (ctx.globals.yes || ctx.globals.dryRun) return;
  if (!ctx.interactive) {
    const what = question.split('?')[0].trim();
    throw usageError(`${what}: confirmation needed; pass --yes (-y) to confirm when not on a terminal.`);
  }
  const { confirm: ask } = await import('@inquirer/prompts');
  // Prompts go to stderr: stdout carries only data.
  const yes = await ask(
    { message: question, default: false },
    { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal },
  );
  if (!yes) throw new CliError('Cancelled; nothing was sent.', ExitCode.ERROR);
}
