// Checks of settings before anything is sent or stored: base URLs, values that become header
// values, and file permissions as ssh checks them. Each failure names the setting and where it
// came from (flag, environment variable, profile).
import { statSync } from 'node:fs';
import { CliError, ExitCode } from '../errors.js';
import type { Setting } from './resolve.js';
import { hasControlOrSpace, trimTrailingSlashes } from '../util/scan.js';

/** "--base-url", "BOOKDIST_BASE_URL", "profile prod" */
export function sourceOf(s: Pick<Setting, 'source' | 'from'>, flag: string): string {
  if (s.source === 'flag') return flag;
  if (s.source === 'env') return `environment variable ${s.from}`;
  if (s.source === 'profile') return `profile "${s.from}"`;
  return s.from ? `the default (${s.from})` : 'the default';
}

/** At most `n` characters of a value in a message. */
function quote(value: string, n = 120): string {
  const v = JSON.stringify(value.length > n ? value.slice(0, n) + '…' : value);
  return v;
}

/**
 * A base URL is http:// or https:// with a host, and no user information, query or fragment:
 * anything else is refused (exit 2) before anything is sent or stored. Returns it without
 * trailing slashes. `what` names the setting ("--base-url", "--store-url").
 */
export function checkBaseUrl(value: string, where: string): string {
  const bad = (why: string) => new CliError(`The base URL from ${where} ${why}`, ExitCode.USAGE, { setting: where });
  if (value !== value.trim() || hasControlOrSpace(value))
    throw bad('holds spaces or control characters; give it as http(s)://host[:port][/path].');
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw bad(`${quote(value)} is not a URL; give it as https://host[:port][/path].`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw bad(`uses ${u.protocol}; give an http:// or https:// URL.`);
  if (!u.hostname) throw bad('has no host; give it as https://host[:port][/path].');
  // WHATWG URL reads `https://host:` as the default port; curl refuses it, and so do we: a port
  // was meant and is missing.
  if (emptyPort(value)) {
    throw bad(
      `(${quote(value)}) has an empty port (a ":" with no number after it); give the port (${u.protocol}//${u.host}:8443) or leave out the ":".`,
    );
  }
  if (u.username || u.password) {
    throw bad(
      `(${u.protocol}//${u.host}) holds a user name or password; remove it: credentials go in the profile (--username, --key-file) or BOOKDIST_USERNAME and BOOKDIST_KEY_FILE, never in the URL.`,
    );
  }
  if (u.search || value.includes('?')) throw bad(`(${u.protocol}//${u.host}) has a query (?…); a base URL has none.`);
  if (u.hash || value.includes('#')) throw bad(`(${u.protocol}//${u.host}) has a fragment (#…); a base URL has none.`);
  return trimTrailingSlashes(value);
}

/**
 * Does the authority of `value` (an http(s) URL the WHATWG parser took, without spaces or
 * control characters) end with a ":"? What `/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(?=[/?#]|$)/i` tells
 * of such a value: its scheme is http or https, so the authority follows the first "://".
 */
function emptyPort(value: string): boolean {
  const colon = value.indexOf(':');
  if (!value.startsWith('//', colon + 1)) return false;
  const from = colon + 3;
  let end = value.length;
  for (const c of ['/', '?', '#']) {
    const at = value.indexOf(c, from);
    if (at >= 0 && at < end) end = at;
  }
  return end > from && value[end - 1] === ':';
}

/** A value sent as a header (username, keys, tokens) with a control character is refused before sending. */
export function checkHeaderValue(s: Setting | undefined, name: string, flag: string, secret: boolean): void {
  if (!s) return;
  if (/[\u0000-\u001f\u007f]/.test(s.value)) {
    throw new CliError(
      `The ${name} from ${sourceOf(s, flag)} holds a control character (a line break or tab?)` +
        (secret ? '' : ` (${quote(s.value, 60)})`) +
        '; it would be sent as a header. Remove it.',
      ExitCode.USAGE,
      { setting: sourceOf(s, flag) },
    );
  }
}

export interface PermissionFinding {
  path: string;
  /** A warning to print on every use (group or others may read or write). */
  warning?: string;
  /** Refused: others may write a private key. */
  refused?: string;
}

/**
 * Permissions as ssh checks them: a private file (key, config) or directory (keys) that group or
 * others may read or write gets a warning naming the chmod that fixes it; a private key that
 * others may write is refused. Nothing on platforms without Unix modes.
 */
export function checkPermissions(path: string, kind: 'key' | 'config' | 'keys-dir'): PermissionFinding | undefined {
  if (process.platform === 'win32') return undefined;
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
  const fix = kind === 'keys-dir' ? `chmod 700 ${path}` : `chmod 600 ${path}`;
  const what = kind === 'key' ? 'private key' : kind === 'config' ? 'config file' : 'keys directory';
  if (kind === 'key' && mode & 0o002) {
    return {
      path,
      refused: `The ${what} ${path} can be changed by other users (mode ${mode.toString(8).padStart(4, '0')}): refused, as ssh does. Fix it with \`${fix}\`.`,
    };
  }
  if (mode & 0o077) {
    const who = mode & 0o007 ? 'other users' : 'the group';
    return {
      path,
      warning: `the ${what} ${path} can be read or changed by ${who} (mode ${mode.toString(8).padStart(4, '0')}); fix it with \`${fix}\`.`,
    };
  }
  return undefined;
}
