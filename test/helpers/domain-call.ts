// The domain's handlers asked in-process, as the service asks them once a request is authenticated
// and validated (test/sandbox/rules.test.ts, handlers.test.ts): an endpoint's status and body, or
// the refusal it throws.
import type { Caller } from '../../src/sandbox/auth.js';
import type { Store } from '../../src/sandbox/db/store.js';
import { beforeAll } from 'vitest';
import { handlerCtx, loadHandlers, runHandler } from '../../src/sandbox/domain/index.js';
import { HttpError } from '../../src/sandbox/errors.js';
import type { CallerAccountRow } from '../../src/sandbox/repo/accounts.js';

export const ORIGIN = 'http://sandbox.test:8080';

export interface Call {
  payload?: Record<string, unknown>;
  params?: Record<string, string>;
  query?: Record<string, string>;
  caller?: Caller;
  key?: string;
  now?: number;
}

/** The seeded account of `role` as an authenticated caller (`token`: the operator's token). */
export function callerOf(store: Store, role: string, kind: Caller['kind'] = 'partner'): Caller {
  const account = store.get<CallerAccountRow>('SELECT * FROM accounts WHERE role = ?', role)!;
  return { kind, account, scopes: new Set(JSON.parse(account.scopes) as string[]), logName: account.username };
}

/**
 * `call` and `refusal` of endpoints on `store()`, by `caller()` unless a call names another (getters:
 * a test file makes these at its top, its store in beforeAll; every handler is loaded before its tests).
 */
export function handlerCalls(store: () => Store, caller: () => Caller, queued: () => void = () => {}) {
  // Handlers other than the book lookups are loaded with their first request (domain/index.ts).
  beforeAll(loadHandlers);
  /** The handler of endpoint `name` for one request: its status and body. */
  function call(name: string, c: Call = {}): { status: number; body: any; headers?: Record<string, string> } {
    const r = runHandler(
      name,
      `/${name}`,
      handlerCtx(
        store(),
        {
          caller: c.caller ?? caller(),
          payload: c.payload ?? {},
          params: c.params ?? {},
          query: new URLSearchParams(c.query ?? {}),
          origin: ORIGIN,
          queued,
          idempotencyKey: c.key,
        },
        c.now ?? store().now(),
      ),
    );
    return { status: r.status ?? 200, body: r.body, headers: r.headers };
  }

  /** The refusal a request gets: its status and message (and the extra members of its error answer). */
  function refusal(name: string, c: Call = {}): { status: number; message: string; extra: Record<string, unknown> } {
    try {
      call(name, c);
    } catch (e) {
      if (e instanceof HttpError) return { status: e.status, message: e.message, extra: e.extra };
      throw e;
    }
    throw new Error(`${name} was not refused`);
  }
  return { call, refusal };
}
