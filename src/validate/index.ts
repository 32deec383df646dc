// Input validation shared by every command. Each function returns the normalised value or
// throws usageError() naming the flag, so bad input exits 2 before anything is sent.
import { usageError } from '../errors.js';
import { compactIsbn, isIsbn10Digits, isIsbn13Digits } from '../util/scan.js';

/** Strip hyphens/spaces, check length and check digit. Returns the normalised ISBN (10 or 13). */
export function isbn(value: string, flag = '--isbn', check = true): string {
  const v = compactIsbn(String(value));
  if (!check) {
    if (!v) throw usageError(`${flag} is empty.`);
    return v;
  }
  if (isIsbn13Digits(v)) {
    const sum = [...v.slice(0, 12)].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
    if ((10 - (sum % 10)) % 10 !== Number(v[12])) {
      throw usageError(`${flag} ${value}: wrong ISBN-13 check digit (use --no-check to send it anyway).`);
    }
    return v;
  }
  if (isIsbn10Digits(v)) {
    const sum = [...v].reduce((s, d, i) => s + (d === 'X' ? 10 : Number(d)) * (10 - i), 0);
    if (sum % 11 !== 0)
      throw usageError(`${flag} ${value}: wrong ISBN-10 check digit (use --no-check to send it anyway).`);
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
  if (!/^[0-9a-f]{30}$/.test(v))
    throw usageError(
      `${flag} ${value}: a username is 30 hexadecimal characters (as returned by \`bookdist user create\`).`,
    );
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
  if (
    probe.getUTCFullYear() !== +y ||
    probe.getUTCMonth() !== +mo - 1 ||
    probe.getUTCDate() !== +d ||
    +h > 23 ||
    +mi > 59 ||
    +s > 59
  ) {
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
  if (!/^\d+(\.\d{1,2})?$/.test(v))
    throw usageError(`${flag} ${value}: a price is a non-negative decimal with at most two places, e.g. 12.01.`);
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
    throw usageError(
      `${flag} ${value}: give a whole number from 1${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}.`,
    );
  }
  return Number(v);
}

export function nonNegativeInt(value: string | number, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const v = String(value).trim();
  if (!/^\d+$/.test(v) || Number(v) > max)
    throw usageError(
      `${flag} ${value}: give a whole number from 0${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}.`,
    );
  return Number(v);
}

export function orderNumber(value: string, flag = '--order-number'): string {
  const v = String(value);
  if (!v.trim()) throw usageError(`${flag} is empty.`);
  if (v.length > 20)
    throw usageError(`${flag} ${value}: an order number has at most 20 characters (this one has ${v.length}).`);
  return v;
}

/** Exactly one of the alternatives must be given: which one, and its value. */
export function exactlyOne<K extends string>(given: Record<K, string | undefined>): [K, string] {
  const present = (Object.entries(given) as Array<[K, string | undefined]>).filter(
    (e): e is [K, string] => e[1] !== undefined && e[1] !== '',
  );
  const names = Object.keys(given).join(', ');
  if (present.length === 0) throw usageError(`Give one of ${names}.`);
  if (present.length > 1) throw usageError(`Give only one of ${names} (got ${present.map(([k]) => k).join(' and ')}).`);
  return present[0];
}

/** A non-empty string (trimmed), at most `max` characters. */
export function nonEmpty(value: string, flag: string, max = 1000): string {
  const v = String(value ?? '').trim();
  if (!v) throw usageError(`${flag} is empty.`);
  if (v.length > max) throw usageError(`${flag}: at most ${max} characters (got ${v.length}).`);
  return v;
}

/** A SKU: a non-empty identifier without spaces. */
export function sku(value: string, flag = '--sku'): string {
  const v = String(value ?? '').trim();
  if (!v || /\s/.test(v) || v.length > 64)
    throw usageError(`${flag} ${value}: a SKU is 1 to 64 characters without spaces, e.g. HLP-0001.`);
  return v;
}

/** A white-label sub-domain: letters, digits and inner hyphens, at most 63 characters. */
export function label(value: string, flag = '--label'): string {
  const v = String(value ?? '')
    .trim()
    .toLowerCase();
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(v)) {
    throw usageError(`${flag} ${value}: a label is a sub-domain name (letters, digits and hyphens), e.g. harborlane.`);
  }
  return v;
}

/** A password from stdin: one line, not empty, trailing newline removed. */
export function password(value: string, flag = '--password-stdin'): string {
  const v = String(value ?? '').replace(/\r?\n$/, '');
  if (!v)
    throw usageError(
      `${flag}: stdin was empty; pipe the password in, e.g. \`printf %s "$PW" | bookdist user create ... --password-stdin\`.`,
    );
  if (/[\r\n]/.test(v)) throw usageError(`${flag}: the password must be a single line.`);
  if (v.length > 128) throw usageError(`${flag}: the password has more than 128 characters.`);
  return v;
}

const ADDRESS_FIELDS = [
  'first_name',
  'last_name',
  'full_name',
  'company_name',
  'line_1',
  'line_2',
  'city',
  'state',
  'postal_code',
  'country',
] as const;
export type Address = Partial<Record<(typeof ADDRESS_FIELDS)[number], string>>;

/**
 * Check an address object (interface.md 2.10): only known string fields. With `billing`, it needs
 * a name (full_name, or first_name and last_name), postal_code and country; `full_name` is filled
 * in from first + last when absent, as the service's order reporting expects.
 */
export function address(
  value: unknown,
  what: string,
  opts: { billing?: boolean; flags?: Partial<Record<string, string>> } = {},
): Address {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw usageError(`${what} must be a JSON object of address fields.`);
  const flagOf = (k: string) => opts.flags?.[k] ?? `${what} field "${k}"`;
  const out: Address = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (!(ADDRESS_FIELDS as readonly string[]).includes(k)) {
      throw usageError(`${what}: unknown address field "${k}" (known: ${ADDRESS_FIELDS.join(', ')}).`);
    }
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string' && typeof v !== 'number') throw usageError(`${flagOf(k)} must be text.`);
    const s = String(v).trim();
    if (s.length > 200) throw usageError(`${flagOf(k)}: at most 200 characters.`);
    if (s) out[k as keyof Address] = s;
  }
  if (opts.billing) {
    if (!out.full_name) {
      if (out.first_name && out.last_name) out.full_name = `${out.first_name} ${out.last_name}`;
      else if (out.first_name || out.last_name) {
        throw usageError(
          `${what} needs both ${flagOf('first_name')} and ${flagOf('last_name')}, or ${flagOf('full_name')}.`,
        );
      } else {
        throw usageError(
          `${what} needs a name: ${flagOf('full_name')}, or ${flagOf('first_name')} and ${flagOf('last_name')}.`,
        );
      }
    }
    if (!out.postal_code) throw usageError(`${what} needs ${flagOf('postal_code')}.`);
    if (!out.country) throw usageError(`${what} needs ${flagOf('country')}.`);
  }
  return out;
}
