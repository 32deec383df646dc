// The flags every row-driven bulk job shares: the input file, --results FILE, --resume,
// --restart and --concurrency, and the command that repeats the job (for the resume hint).
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { usageError } from '../errors.js';
import * as v from '../validate/index.js';
import type { JobSpec } from './engine.js';

export interface BulkFlags {
  /** The input file (`-` for stdin). */
  file: string;
  /** The flag that gave it (`--from-csv`, `--from-ndjson`). */
  flag: string;
  results?: string;
  resume: boolean;
  restart: boolean;
  concurrency: number;
  /** The command that repeats the job, as the verb was given (the resume hint adds --resume). */
  command: string;
}

/**
 * What a job spec takes from these flags: the job file of `--results FILE` (CSV under `-o csv` or
 * for a `.csv` name, else NDJSON), `--resume`, `--restart` and `--concurrency`.
 */
export function jobFlags(
  o: Pick<BulkFlags, 'results' | 'resume' | 'restart' | 'concurrency'>,
  ctx: Context,
): Pick<JobSpec<unknown, Record<string, unknown>>, 'file' | 'resume' | 'restart' | 'concurrency'> {
  const format = ctx.globals.output === 'csv' || /\.csv$/i.test(o.results ?? '') ? 'csv' : 'ndjson';
  const file = o.results
    ? ({ path: resolve(ctx.io.cwd, o.results), flag: '--results', display: o.results, format } as const)
    : undefined;
  return { file, resume: o.resume, restart: o.restart, concurrency: o.concurrency };
}

/**
 * The bulk form of a verb, read from commander's options: `inputs` maps option keys to flags
 * (e.g. { fromCsv: '--from-csv' }); exactly one may be given. `singleFlags` are the options of the
 * one-item form, which the bulk form refuses. `command` repeats the job (src/commands/given.ts,
 * jobCommand). Undefined when no input flag is given. Defaults are commander's, from the declaration.
 */
export function parseBulkFlags(
  options: object,
  inputs: Record<string, string>,
  singleFlags: readonly string[],
  command: string,
): BulkFlags | undefined {
  const opts = options as Record<string, unknown>;
  const given = Object.keys(inputs).filter((k) => opts[k] !== undefined);
  if (!given.length) {
    const stray = ['results', 'resume', 'restart'].filter((k) => opts[k] !== undefined && opts[k] !== false);
    if (stray.length) throw usageError(`--${stray[0]} goes with ${Object.values(inputs).join(' or ')} FILE.`);
    return undefined;
  }
  if (given.length > 1) throw usageError(`Give one of ${given.map((k) => inputs[k]).join(', ')}.`);
  const key = given[0];
  const flag = inputs[key];
  const clash = singleFlags.filter((k) => opts[k] !== undefined);
  if (clash.length)
    throw usageError(
      `${flag} takes the values from the file; drop ${clash.map((k) => '--' + k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())).join(', ')}.`,
    );
  const file = String(opts[key]);
  const concurrency = v.positiveInt(opts.concurrency as string, '--concurrency', 64);
  if ((opts.resume || opts.restart) && opts.results === undefined)
    throw usageError(`--${opts.resume ? 'resume' : 'restart'} needs the --results FILE of the job.`);
  return {
    file,
    flag,
    results: typeof opts.results === 'string' ? opts.results : undefined,
    resume: Boolean(opts.resume),
    restart: Boolean(opts.restart),
    concurrency,
    command,
  };
}
