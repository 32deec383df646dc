// Durations as people type them: `500ms`, `30s`, `5m`, `2h`, `15d`, or bare seconds.
import { quoteValue } from './quote.js';
import { isDigitCode } from './scan.js';
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parse a duration into milliseconds; undefined when it is not one. */
function parseDuration(text: string): number | undefined {
  const m = plainDuration(text) ?? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]) * UNITS[(m[2] ?? 's').toLowerCase()];
  return Number.isFinite(value) ? Math.round(value) : undefined;
}

/**
 * What the expression above takes of a duration written without white space or any character
 * beyond ASCII (`30s`, the default --timeout every command checks; `1.5h`, `500MS`): [text,
 * number, unit], by character codes, so that a run compiles no expression for it; null for any
 * other text (the expression decides). test/foundation/scan.test.ts holds the two to the same answers.
 */
export function plainDuration(text: string): [string, string, string | undefined] | null {
  let i = 0;
  while (i < text.length && isDigitCode(text.charCodeAt(i))) i++;
  if (i === 0) return null;
  if (text.charCodeAt(i) === 0x2e) {
    let j = i + 1;
    while (j < text.length && isDigitCode(text.charCodeAt(j))) j++;
    if (j === i + 1) return null;
    i = j;
  }
  const unit = text.slice(i);
  if (unit === '') return [text, text, undefined];
  for (let k = 0; k < unit.length; k++) if (unit.charCodeAt(k) > 0x7f) return null;
  return Object.hasOwn(UNITS, unit.toLowerCase()) ? [text, text.slice(0, i), unit] : null;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
  return `${Math.floor(ms / 3_600_000)}h${String(Math.round((ms % 3_600_000) / 60_000)).padStart(2, '0')}m`;
}

/** Node's timers hold at most 2^31-1 ms (24.8 days); longer ones fire after 1 ms with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DurationLimits {
  /** The least value (default: more than 0). */
  minMs?: number;
  /** The most, and how help and errors say it (`24h`). */
  maxMs: number;
  max: string;
  /** What a good value looks like, for the message (`30s or 2m`). */
  like?: string;
}

/**
 * A duration flag checked at once (issue 22): a number with a unit within its documented
 * bounds, else the message of a usage error (at most about 200 characters of the value quoted).
 */
export function checkDuration(
  flag: string,
  value: unknown,
  limits: DurationLimits,
): { ms: number } | { problem: string } {
  const text = String(value);
  const ms = parseDuration(text);
  const like = limits.like ?? '30s or 2m';
  if (ms === undefined) return { problem: `${flag} ${quoteValue(text)}: give a duration like ${like}.` };
  if (ms > limits.maxMs) return { problem: `${flag} ${quoteValue(text)}: at most ${limits.max}.` };
  const min = limits.minMs ?? 1;
  if (ms < min) return { problem: `${flag} ${quoteValue(text)}: at least ${min === 1 ? '1ms' : formatDuration(min)}.` };
  return { ms };
}
