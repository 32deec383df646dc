// The SQL of white labels (an account's branded storefronts), as typed rows.
import type { Store } from '../db/store.js';

export interface LabelRow {
  id: number;
  account_id: number;
  subdomain: string;
  member_email: string;
}

/** The account's label with this subdomain (already lower case). */
export function labelOfAccount(store: Store, subdomain: string, accountId: number): LabelRow | undefined {
  return store.get<LabelRow>('SELECT * FROM labels WHERE subdomain = ? AND account_id = ?', subdomain, accountId);
}
