// The SQL of redemption codes, as typed rows. The rules (expiry, one redemption) live in ../domain/codes.ts.
import type { Store } from '../db/store.js';

/** A code as it is inserted: everything but its id and redemption. */
export interface NewCodeRow {
  code: string;
  account_id: number;
  book_id: number;
  org: string;
  label_id: number | null;
  limit_days: number;
  expiration_date: number | null;
  samples: number;
  created_at: number;
}

export interface CodeRow extends NewCodeRow {
  id: number;
  redeemed_by: number | null;
  redeemed_at: number | null;
}

export function codeExists(store: Store, code: string): boolean {
  return !!store.get('SELECT 1 FROM codes WHERE code = ?', code);
}

export function insertCode(store: Store, c: NewCodeRow): void {
  store.run(
    `INSERT INTO codes(code, account_id, book_id, org, label_id, limit_days, expiration_date, samples, created_at) VALUES (?,?,?,?,?,?,?,?,?)`,
    c.code,
    c.account_id,
    c.book_id,
    c.org,
    c.label_id,
    c.limit_days,
    c.expiration_date,
    c.samples,
    c.created_at,
  );
}

/** The code as written (already trimmed and upper case). */
export function codeByText(store: Store, code: string): CodeRow | undefined {
  return store.get<CodeRow>('SELECT * FROM codes WHERE code = ?', code);
}

export function markRedeemed(store: Store, id: number, userId: number, now: number): void {
  store.run('UPDATE codes SET redeemed_by = ?, redeemed_at = ? WHERE id = ?', userId, now, id);
}

/** How many codes the account generated and how many of them were redeemed. */
export function codeCounts(store: Store, accountId: number): { generated: number; redeemed: number } {
  const r = store.get<{ g: number; r: number }>(
    'SELECT count(*) AS g, count(redeemed_by) AS r FROM codes WHERE account_id = ?',
    accountId,
  )!;
  return { generated: r.g, redeemed: r.r };
}
