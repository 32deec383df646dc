// Small helpers shared by the sandbox modules.
import { formatAmount } from '../spec/currency.js';
import { createHash, randomBytes, randomInt } from 'node:crypto';

/** A salted password hash (the sandbox never stores or logs passwords in clear). */
export function hashPassword(passwd: string): string {
  const salt = randomBytes(8).toString('hex');
  return `sha256$${salt}$${createHash('sha256')
    .update(salt + passwd)
    .digest('hex')}`;
}

export function randomHex(chars: number): string {
  return randomBytes(Math.ceil(chars / 2))
    .toString('hex')
    .slice(0, chars);
}

export function randomPassword(): string {
  return randomBytes(12).toString('base64url');
}

const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/** `XXXX-XXXX-XXXX` from CODE_ALPHABET. */
export function randomCode(): string {
  let s = '';
  for (let i = 0; i < 12; i++) {
    if (i && i % 4 === 0) s += '-';
    s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  }
  return s;
}

/** The second isoTime formatted last, and its text (most calls in a row fall in one second: every date of an answer). */
let lastSecond = NaN;
let lastText = '';

/**
 * ISO 8601 datetime without milliseconds, UTC: `2025-01-10T12:00:00Z`. The text of a second is
 * made once (Date#toISOString goes through printf, some 7,000 instructions a call).
 */
export function isoTime(ms: number): string;
export function isoTime(ms: number | null | undefined): string | null;
export function isoTime(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  // A date holds whole milliseconds, its fraction cut toward zero (-0.5 is 0, not -1).
  const second = Math.floor(Math.trunc(ms) / 1000);
  if (second === lastSecond) return lastText;
  const s = new Date(ms).toISOString();
  // YYYY-MM-DDTHH:MM:SS.mmmZ (24 characters) for years 0-9999; others keep their longer form.
  lastText = s.length === 24 ? s.slice(0, 19) + 'Z' : s.replace(/\.\d{3}Z$/, 'Z');
  lastSecond = second;
  return lastText;
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export const DAY = 86_400_000;

/** `15d`, `36h`, `90m`, `30s`, `500ms`, or a bare number of milliseconds. */
export function parseDuration(s: string | number): number {
  if (typeof s === 'number') {
    if (!Number.isFinite(s) || s < 0) throw new Error(`invalid duration ${s}`);
    return Math.round(s);
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(s);
  if (!m) throw new Error(`invalid duration "${s}" (use e.g. 15d, 36h, 90m, 30s, 500ms)`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 'ms').toLowerCase();
  const mult: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: DAY, w: 7 * DAY };
  return Math.round(n * mult[unit]);
}

/**
 * Parse a date field: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]`, ISO 8601 with `T` and an optional
 * zone. Times without a zone are UTC. Returns ms or undefined when invalid.
 */
export function parseDate(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(
    s.trim(),
  );
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', zone] = m;
  const base = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec);
  const check = new Date(base);
  if (
    check.getUTCFullYear() !== +y ||
    check.getUTCMonth() !== +mo - 1 ||
    check.getUTCDate() !== +d ||
    +h > 23 ||
    +mi > 59 ||
    +sec > 59
  ) {
    return undefined;
  }
  if (!zone || zone === 'Z') return base;
  const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  const off = (Number(zm[2]) * 60 + Number(zm[3])) * 60_000 * (zm[1] === '+' ? 1 : -1);
  return base - off;
}

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export function isEmail(s: string): boolean {
  return s.length <= 254 && EMAIL.test(s);
}

/** Decimal string with two places, from cents. */
export function money(cents: number, currency?: string): string {
  return formatAmount(cents / 100, currency);
}

/** Cents of a decimal string like `12.01`. */
export function cents(price: string): number {
  return Math.round(Number(price) * 100);
}
