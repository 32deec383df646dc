// What a request changed, as the journal says it (its `changes` column): read from the writes the
// request's handler made (RequestNote.wrote, journal.ts).
import type { Store } from '../db/store.js';

/** What a request changed, as its writes show it. */
export interface Writes {
  inserted: Map<string, number[]>;
  updated: Map<string, number>;
}

/**
 * What a request changed, from its writes: orders, purchases (order items; access grants apart),
 * users (their usernames), codes (a count), outbox e-mails apart (the `emails` column), refunds
 * (from the answer) and other rows updated, by table.
 */
export function changesOf(
  store: Store,
  w: Writes,
  endpoint: string | undefined,
  response: unknown,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const orders = w.inserted.get('orders');
  if (orders) out.orders = orders;
  const items = w.inserted.get('order_items');
  if (items) out[endpoint === 'access.allow' || endpoint === 'redeem' ? 'grants' : 'purchases'] = items;
  const users = w.inserted.get('users');
  if (users) {
    out.users = users.map((id) => store.get('SELECT username FROM users WHERE id = ?', id)?.username ?? id);
  }
  const codes = w.inserted.get('codes');
  if (codes) out.codes = codes.length;
  if (endpoint === 'order.refund') {
    const refunds = (response as { refunds?: Array<{ purchase_id: number; success: boolean }> } | undefined)?.refunds;
    const done = refunds?.filter((r) => r.success).map((r) => r.purchase_id);
    if (done?.length) out.refunds = done;
  }
  const updated: Record<string, number> = {};
  for (const [table, n] of w.updated) updated[table] = n;
  for (const [table, ids] of w.inserted) {
    if (!['orders', 'order_items', 'users', 'codes', 'outbox'].includes(table))
      updated[table] = (updated[table] ?? 0) + ids.length;
  }
  if (Object.keys(updated).length) out.rows = updated;
  return Object.keys(out).length ? out : undefined;
}
