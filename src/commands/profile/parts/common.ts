// Shared by the profile verbs: the public view of a stored profile (no secrets) and checks.
import type { ProfileData } from '../../../config/store.js';
import { PROFILE_NAME } from '../../../config/store.js';
import { EMBEDDED_PROFILE } from '../../../config/resolve.js';
import { usageError } from '../../../errors.js';
import { checkBaseUrl } from '../../../config/check.js';

export type AuthMode = 'crypto' | 'shared' | 'token' | 'none';

function authModes(p: ProfileData): AuthMode[] {
  const modes: AuthMode[] = [];
  if (p.keyFile) modes.push('crypto');
  if (p.sharedKey) modes.push('shared');
  if (p.token) modes.push('token');
  return modes.length ? modes : ['none'];
}

/** What `profile list`/`add` print about a profile: never a secret, only whether one is set. */
export function publicView(name: string, p: ProfileData, current: boolean) {
  return {
    name,
    current,
    base_url: p.baseUrl ?? null,
    store_url: p.storeUrl ?? null,
    username: p.username ?? null,
    auth: authModes(p).join('+'),
    key_file: p.keyFile ?? null,
    shared_key: p.sharedKey ? 'set' : null,
    token: p.token ? 'set' : null,
    builtin: false,
  };
}

export function checkName(name: string, flag = '--name'): string {
  if (name === EMBEDDED_PROFILE) {
    throw usageError(`"${EMBEDDED_PROFILE}" is the built-in sandbox profile; choose another ${flag}.`);
  }
  if (!PROFILE_NAME.test(name)) {
    throw usageError(`${flag} ${JSON.stringify(name)}: a profile name has letters, digits, - and _ (at most 64).`);
  }
  return name;
}

export function checkUrl(value: string, flag: string): string {
  // The same rule as every command's (src/config/check.ts): http(s) with a host, no user
  // information, query or fragment; refused before anything is stored.
  return checkBaseUrl(value, flag);
}
