// How output looks to people: the format of a run, colour, the terminal's width and character
// set, and responses made ready for a card.
import type { Context, OutputFormat } from '../context.js';
import { asciiOnly, colorWanted, escapeDeep, loadTextFor } from './text.js';

export interface Style {
  color: boolean;
  width: number;
  /** An ASCII-only terminal (non-UTF-8 locale or BOOKDIST_ASCII=1): no `…`, no block characters. */
  ascii: boolean;
  bold: (s: string) => string;
  dim: (s: string) => string;
  green: (s: string) => string;
  red: (s: string) => string;
  yellow: (s: string) => string;
  cyan: (s: string) => string;
}

/** The format of this run: -o, else --json, else the command's default, else table on a terminal and TSV piped. */
export function outputFormat(ctx: Context): OutputFormat {
  if (ctx.globals.output) return ctx.globals.output;
  if (ctx.globals.json) return 'json';
  if (ctx.output?.defaultFormat) return ctx.output.defaultFormat;
  return ctx.io.stdout.isTTY ? 'table' : 'tsv';
}

/** True when the output is for people (table, tsv, csv), false for json/ndjson. */
export function humanOutput(ctx: Context): boolean {
  const f = outputFormat(ctx);
  return f !== 'json' && f !== 'ndjson';
}

export function useColor(ctx: Context, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  return colorWanted(ctx.globals.color, ctx.io.env, ctx.io[stream].isTTY);
}

export function style(ctx: Context, stream: 'stdout' | 'stderr' = 'stdout'): Style {
  const color = useColor(ctx, stream);
  const wrap = (open: number, close: number) => (s: string) => (color ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    color,
    // A terminal's own width; $COLUMNS; otherwise (a table written to a pipe or file on request)
    // wide enough that nothing is cut.
    width: ctx.io[stream].columns || Number(ctx.io.env.COLUMNS) || (ctx.io[stream].isTTY ? 80 : 400),
    ascii: asciiOnly(ctx.io.env),
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/**
 * A response ready for a card or table drawn by a command itself: the width library loaded
 * when the data is not plain ASCII, and every string with its control characters escaped.
 */
export async function forPeople<T>(body: T): Promise<T> {
  await loadTextFor([JSON.stringify(body) ?? '']);
  return escapeDeep(body);
}
