// Confirmation before a destructive request (order refund, access revoke, book process --force).
// On a terminal it asks (inquirer, loaded only here); in scripts it requires --yes and fails at
// once naming the flag. --dry-run sends nothing, so it never needs confirming.
import type { Context } from '../context.js';
import { CliError, ExitCode, usageError } from '../errors.js';

/**
 * Did the user agree? True at once with --yes or --dry-run; on a terminal, the answer; off a
 * terminal, exit 2 naming --yes (nothing can ask).
 */
export async function confirmed(ctx: Context, question: string): Promise<boolean> {
  if (ctx.globals.yes || ctx.globals.dryRun) return true;
  if (!ctx.interactive) {
    const what = question.split('?')[0].trim();
    throw usageError(`${what}: confirmation needed; pass --yes (-y) to confirm when not on a terminal.`);
  }
  const { confirm: ask } = await import('@inquirer/prompts');
  // Prompts go to stderr: stdout carries only data.
  return ask({ message: question, default: false }, { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal });
}

/**
 * Resolve when the user agreed (or --yes / --dry-run was given); otherwise throw:
 * exit 2 naming --yes when no terminal can ask, exit 1 when the user answered no (a request to
 * the service that was not sent).
 */
export async function confirm(ctx: Context, question: string): Promise<void> {
  if (!(await confirmed(ctx, question))) throw new CliError('Cancelled; nothing was sent.', ExitCode.ERROR);
}
