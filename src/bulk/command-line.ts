// The command line that repeats or resumes a job, for its hint: a word quoted for the shell, and
// the global flags of this run the repeated job needs. Imports nothing of the job engine, so the
// job's summary (job/summary.ts) reads it without going through the bulk flags and the engine.
import type { Context } from '../context.js';

/** `s` as one shell word: as it is when it needs no quoting, else in single quotes. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The global flags of this run that a repeated or resumed job needs to run as it did: the profile,
 * the base URL, the CA file, an explicit --timeout, --retries other than the default, the output format (a
 * resumed file is checked against it), and --yes where the job asked for a confirmation.
 */
export function globalArgv(ctx: Context, confirms: boolean): string[] {
  // A verb's own flags never name a global one (the verbs' commands hold only their own flags).
  const g = ctx.globals;
  const a: string[] = [];
  if (g.profile !== undefined) a.push('--profile', shellQuote(g.profile));
  if (g.baseUrl !== undefined) a.push('--base-url', shellQuote(g.baseUrl));
  if (g.caFile !== undefined) a.push('--ca-file', shellQuote(g.caFile));
  for (const pin of g.resolve ?? []) a.push('--resolve', shellQuote(pin));
  // As the user wrote it (`12s`, not `12000ms`).
  if (g.timeoutExplicit) a.push('--timeout', shellQuote(g.timeoutText ?? `${g.timeout}ms`));
  if (g.retries !== 3) a.push('--retries', String(g.retries));
  if (g.output !== undefined) a.push('-o', g.output);
  else if (g.json) a.push('--json');
  if (confirms && g.yes) a.push('--yes');
  return a;
}
