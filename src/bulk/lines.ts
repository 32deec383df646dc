// Reading the line-oriented inputs of bulk commands: one value per line, `#` comments and blank
// lines ignored, from a file or from stdin (`-`). Streams, so a large file is never held twice.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Context } from '../context.js';
import { CliError, errorCode, ExitCode, usageError } from '../errors.js';
import { resolve } from 'node:path';

export interface Line {
  /** 1-based line number in the input. */
  line: number;
  value: string;
}

export function openInput(file: string, ctx: Context, flag: string): Readable {
  if (file === '-') {
    if (ctx.io.stdin.isTTY)
      throw usageError(`${flag} -: reading from stdin, but stdin is a terminal. Pipe the list in, or give a file.`);
    return ctx.io.stdin;
  }
  const stream = createReadStream(resolve(ctx.io.cwd, file));
  return stream;
}

/** Values of a list file: trimmed lines, without blank lines and `#` comments (whole-line or trailing). */
export async function* readList(file: string, ctx: Context, flag: string): AsyncGenerator<Line> {
  const input = openInput(file, ctx, flag);
  const rl = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const raw of rl) {
      n++;
      const value = (n === 1 ? raw.replace(/^\uFEFF/, '') : raw).replace(/(^|\s)#.*$/, '').trim();
      if (value) yield { line: n, value };
    }
  } catch (e) {
    throw inputError(e, file, flag);
  }
}

export function inputError(e: unknown, file: string, flag: string): unknown {
  const code = errorCode(e);
  if (code === 'ENOENT') return new CliError(`${flag} ${file}: no such file.`, ExitCode.USAGE);
  if (code === 'EISDIR') return new CliError(`${flag} ${file}: is a directory, not a file.`, ExitCode.USAGE);
  if (code === 'EACCES') return new CliError(`${flag} ${file}: permission denied.`, ExitCode.USAGE);
  return e;
}
