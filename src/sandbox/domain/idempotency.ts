// Writes that honour the request's Idempotency-Key.
import { createHash } from 'node:crypto';
import { bad } from '../errors.js';
import { storeAnswer, storedAnswer } from '../repo/idempotency.js';
import { ok, type HandlerCtx, type HandlerResult } from './context.js';

/**
 * Run a write in one transaction, honouring the request's Idempotency-Key: a repeat of a
 * request whose answer was lost (a dropped connection, a killed client, a resumed bulk job) is
 * answered with what the first one made, from the same transaction that made it; the same key
 * with another request is a 400. Without a key the write just runs.
 */
export function idempotent<B>(c: HandlerCtx, endpoint: string, write: () => HandlerResult<B>): HandlerResult<B> {
  const { store, now } = c;
  const account = c.caller!.account.id;
  const key = c.idempotencyKey;
  // Stryker disable next-line ConditionalExpression: without a key the stored answer's key is NULL, which no later lookup finds (SQL NULL equals nothing): the same answers, a row kept for nothing
  if (key === undefined) return store.tx(write);
  const requestHash = createHash('sha256').update(JSON.stringify(c.payload)).digest('hex');
  return store.tx(() => {
    const seen = storedAnswer(store, account, key);
    if (seen) {
      if (seen.endpoint !== endpoint || seen.request_hash !== requestHash)
        throw bad('This Idempotency-Key was already used for a different request.');
      // The answer this endpoint stored for the key (below), so of the endpoint's type.
      return ok(JSON.parse(seen.response) as B);
    }
    const result = write();
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: every write given here answers with ok() (status 200); a refusal is thrown, and rolls the transaction back
    if ((result.status ?? 200) < 400) {
      storeAnswer(
        store,
        account,
        key,
        { endpoint, request_hash: requestHash, response: JSON.stringify(result.body) },
        now,
      );
    }
    return result;
  });
}
