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
  return store.get('SELECT * FROM accounts WHERE role = ?', role) as AccountRow | undefined;
}

/** The first operator token (the seed makes one). */
export function firstToken(store: Store): string | undefined {
  return store.get('SELECT token FROM tokens ORDER BY rowid LIMIT 1')?.token as string | undefined;
}

/** What a user view shows of the account that created the user. */
export function accountOwnerNames(store: Store, id: number): { username: string; full_name: string } | undefined {
  return store.get('SELECT username, full_name FROM accounts WHERE id = ?', id) as { username: string; full_name: string } | undefined;
}

/** The seeded partner account (the sandbox pages act as it). */
export function partnerAccount(store: Store): AccountRow | undefined {
  return store.get("SELECT * FROM accounts WHERE role = 'partner'") as AccountRow | undefined;
}
