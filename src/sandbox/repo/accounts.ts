// The SQL of partner accounts and the operator's tokens, as typed rows.
import type { Store } from '../db/store.js';

export interface AccountRow {
  id: number;
  role: string;
  username: string;
  email: string;
  full_name: string;
  public_key: string;
  private_key: string;
  shared_key: string;
  scopes: string;
  address_1: string;
  address_2: string;
  city: string;
  country: string;
  nickname: string;
  state: string;
  zip: string;
}

export function accountByRole(store: Store, role: string): AccountRow | undefined {
  return store.get<AccountRow>('SELECT * FROM accounts WHERE role = ?', role);
}

/** The first operator token (the seed makes one). */
export function firstToken(store: Store): string | undefined {
  return store.get<{ token: string }>('SELECT token FROM tokens ORDER BY rowid LIMIT 1')?.token;
}

/** What a user view shows of the account that created the user. */
export function accountOwnerNames(store: Store, id: number): { username: string; full_name: string } | undefined {
  return store.get<{ username: string; full_name: string }>(
    'SELECT username, full_name FROM accounts WHERE id = ?',
    id,
  );
}

/** The seeded partner account (the sandbox pages act as it). */
export function partnerAccount(store: Store): AccountRow | undefined {
  return store.get<AccountRow>("SELECT * FROM accounts WHERE role = 'partner'");
}

/**
 * An account's columns as a caller needs them: everything but `private_key` (the seeded partner's
 * signing key, never needed to serve a request). Reading that ~1.7 KB PEM into every request's
 * account row was most of the account lookup's cost on a signed GET.
 */
export type CallerAccountRow = Omit<AccountRow, 'private_key'>;
const CALLER_COLUMNS = [
  'id',
  'role',
  'username',
  'email',
  'full_name',
  'public_key',
  'shared_key',
  'scopes',
  'address_1',
  'address_2',
  'city',
  'country',
  'nickname',
  'state',
  'zip',
];
const ACCOUNT_BY_TOKEN = `SELECT ${CALLER_COLUMNS.map((c) => `a.${c}`).join(', ')} FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.token = ?`;
const ACCOUNT_BY_USERNAME = `SELECT ${CALLER_COLUMNS.join(', ')} FROM accounts WHERE username = ?`;

/** The account an operator token belongs to. */
export function callerAccountByToken(store: Store, token: string): CallerAccountRow | undefined {
  return store.get<CallerAccountRow>(ACCOUNT_BY_TOKEN, token);
}

export function callerAccountByUsername(store: Store, username: string): CallerAccountRow | undefined {
  return store.get<CallerAccountRow>(ACCOUNT_BY_USERNAME, username);
}
