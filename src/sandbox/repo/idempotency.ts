// The SQL of stored answers to requests sent with an Idempotency-Key.
import type { Store } from '../db/store.js';

export interface IdempotencyRow {
  endpoint: string;
  request_hash: string;
  response: string;
}

export function storedAnswer(store: Store, accountId: number, key: string): IdempotencyRow | undefined {
  return store.get<IdempotencyRow>(
    'SELECT endpoint, request_hash, response FROM idempotency WHERE account_id = ? AND key = ?',
    accountId,
    key,
  );
}

export function storeAnswer(store: Store, accountId: number, key: string, a: IdempotencyRow, now: number): void {
  store.run(
    'INSERT INTO idempotency(account_id, key, endpoint, request_hash, response, created_at) VALUES (?,?,?,?,?,?)',
    accountId,
    key,
    a.endpoint,
    a.request_hash,
    a.response,
    now,
  );
}
