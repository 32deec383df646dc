// The journal's control routes (behind the control routes' guard, control-routes.ts):
//   GET  /_sandbox/requests?method=&path=&status=&account=&since=&after_id=&body=&limit=
//   GET  /_sandbox/requests/<id>
//   POST /_sandbox/requests/clear
// They are not journaled themselves (a `tail` polling them would fill the journal).
import type { Store } from '../db/store.js';
import { bad, HttpError } from '../errors.js';
import {
  checkFilter,
  clearRequests,
  FilterError,
  getRequest,
  lastRequestId,
  listRequests,
  type JournalFilter,
} from './query.js';

export const isJournalPath = (path: string): boolean => path.startsWith('/_sandbox/requests');

/** The answer of a journal route, or undefined when `route` is not one. */
export function journalRoute(store: Store, route: string, query: URLSearchParams): Record<string, unknown> | undefined {
  if (route === 'GET /_sandbox/requests') {
    const num = (name: string) => {
      const v = query.get(name);
      if (v === null || v === '') return undefined;
      if (!/^\d{1,16}$/.test(v)) throw bad(`Query parameter "${name}" must be a whole number.`);
      return Number(v);
    };
    const f: JournalFilter = {
      method: query.get('method') || undefined,
      path: query.get('path') || undefined,
      status: query.get('status') || undefined,
      account: query.get('account') || undefined,
      since: num('since'),
      afterId: num('after_id'),
      body: query.getAll('body'),
    };
    try {
      checkFilter(f);
    } catch (e) {
      if (e instanceof FilterError) throw bad(e.message);
      throw e;
    }
    const { total, requests } = listRequests(store, f, num('limit'));
    return { total, last_id: lastRequestId(store), requests };
  }
  if (route === 'POST /_sandbox/requests/clear') return { cleared: clearRequests(store) };
  const one = /^GET \/_sandbox\/requests\/(\d{1,15})$/.exec(route);
  if (one) {
    const request = getRequest(store, Number(one[1]));
    if (!request)
      throw new HttpError(
        404,
        `No request ${one[1]} in the journal (it may have been dropped as the oldest, or cleared).`,
      );
    return { request };
  }
  return undefined;
}
