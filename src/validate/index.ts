// Input validation shared by every command. Each function returns the normalised value or
// throws usageError() naming the flag, so bad input exits 2 before anything is sent.
import { usageError } from '../errors.js';

/** Strip hyphens/spaces, check length and check digit. Returns the normalised ISBN (10 or 13). */
export function isbn(value: string, flag = '--isbn', check = true): string {
  const v = String(value).replace(/[\s-]/g, '').toUpperCase();
  if (!check) {
    if (!v) throw usageError(`${flag} is empty.`);
    return v;
  }
  if (/^\d{13}$/.test(v)) {
    const sum = [...v.slice(0, 12)].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
    if ((10 - (sum % 10)) % 10 !== Number(v[12])) {
      throw usageError(`${flag} ${value}: wrong ISBN-13 check digit (use --no-check to send it anyway).`);
    }
    return v;
  }
  if (/^\d{9}[\dX]$/.test(v)) {
    const sum = [...v].reduce((s, d, i) => s + (d === 'X' ? 10 : Number(d)) * (10 - i), 0);
    if (sum % 11 !== 0) throw usageError(`${flag} ${value}: wrong ISBN-10 check digit (use --no-check to send it anyway).`);
    return v;
  }
  throw usageError(`${flag} ${value}: an ISBN has 10 or 13 digits (hyphens and spaces are ignored).`);
}

export function hashId(value: string, flag = '<hash_id>'): string {
  const v = String(value).trim().toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(v)) throw usageError(`${flag} ${value}: a book hash id is 40 hexadecimal characters.`);
  return v;
}

export function username(value: string, flag = '--username'): string {
  const v = String(value).trim().toLowerCase();
  if (!/^[0-9a-f]{30}$/.test(v)) throw usageError(`${flag} ${value}: a username is 30 hexadecimal characters (as returned by \`bookdist user create\`).`);
  return v;
}

export function email(value: string, flag = '--email'): string {
  const v = String(value).trim();
  if (v.length > 254 || !/^[^\s@"<>(),;:]+@[^\s@"<>(),;:]+\.[^\s@"<>(),;:]{2,}$/.test(v)) {
    throw usageError(`${flag} ${value}: not an e-mail address.`);
  }
  return v;
}

/** ISO 8601 or `YYYY-MM-DD [HH:MM[:SS]]`, returned as `YYYY-MM-DD HH:MM:SS` (UTC when a zone is given). */
export function dateTime(value: string, flag = '--expires'): string {
  const v = String(value).trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(v);
  if (!m) throw usageError(`${flag} ${value}: give a date as YYYY-MM-DD, YYYY-MM-DD HH:MM:SS or ISO 8601.`);
  const [, y, mo, d, h = '00', mi = '00', s = '00', zone] = m;
  const probe = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  if (probe.getUTCFullYear() !== +y || probe.getUTCMonth() !== +mo - 1 || probe.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) {
    throw usageError(`${flag} ${value}: not a real date or time.`);
  }
  if (zone) {
    const t = Date.parse(v.replace(' ', 'T'));
    if (Number.isNaN(t)) throw usageError(`${flag} ${value}: not a valid ISO 8601 date.`);
    return new Date(t).toISOString().slice(0, 19).replace('T', ' ');
  }
  return `${y}-${mo}-${d} ${h}:${mi}:${s}`;
}

/** A price as a decimal with at most two places: `12`, `12.5`, `12.01` → `12.00`, `12.50`, `12.01`. */
export function price(value: string, flag = '--price'): string {
  const v = String(value).trim();
  if (!/^\d+(\.\d{1,2})?$/.test(v)) throw usageError(`${flag} ${value}: a price is a non-negative decimal with at most two places, e.g. 12.01.`);
  const [whole, frac = ''] = v.split('.');
  return `${BigInt(whole)}.${frac.padEnd(2, '0')}`;
}

/** Cents as an integer → `12.01`-style string (as the Ruby client does). */
export function priceFromCents(value: string, flag = '--price-cents'): string {
  const v = String(value).trim();
  if (!/^\d+$/.test(v)) throw usageError(`${flag} ${value}: give a whole number of cents, e.g. 1201.`);
  const n = BigInt(v);
  return `${n / 100n}.${String(n % 100n).padStart(2, '0')}`;
}

export function positiveInt(value: string | number, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const v = String(value).trim();
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) {
    throw usageError(`${flag} ${value}: give a whole number from 1${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}.`);
  }
  return Number(v);
}

export function nonNegativeInt(value: string | number, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const v = String(value).trim();
  if (!/^\d+$/.test(v) || Number(v) > max) throw usageError(`${flag} ${value}: give a whole number from 0${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}.`);
  return Number(v);
}

export function orderNumber(value: string, flag = '--order-number'): string {
  const v = String(value);
  if (!v.trim()) throw usageError(`${flag} is empty.`);
  if (v.length > 20) throw usageError(`${flag} ${value}: an order number has at most 20 characters (this one has ${v.length}).`);
  return v;
}

/** Exactly one of the alternatives must be given. */
export function exactlyOne(given: Record<string, unknown>): string {
  const present = Object.entries(given).filter(([, v]) => v !== undefined && v !== false && v !== '');
  const names = Object.keys(given).join(', ');
  if (present.length === 0) throw usageError(`Give one of ${names}.`);
  if (present.length > 1) throw usageError(`Give only one of ${names} (got ${present.map(([k]) => k).join(' and ')}).`);
  return present[0][0];
}
