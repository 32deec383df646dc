// The control routes of a running sandbox (/_sandbox/...): the testing controls over HTTP, for
// `bookdist sandbox ... --url`, the test helper and partners' own test suites.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { advanceClock, clockInfo, credentials, listOutbox, recordUsage } from './control.js';
import type { RequestInfo, SandboxCore } from './core.js';
import { redeemCode, runWorker } from './domain.js';
import { bad, HttpError, readBody, sendError, sendJson, TEST_MODE, toHttpError } from './http.js';
import { parseDuration } from './util.js';

/** Does this path belong to the control surface? */
export function isControlPath(pathname: string): boolean {
  return pathname === '/_sandbox' || pathname.startsWith('/_sandbox/');
}

export async function serveControl(core: SandboxCore, req: IncomingMessage, res: ServerResponse, r: RequestInfo): Promise<void> {
  const { store } = core;
  const { method, url } = r;
  try {
    let body: any = {};
    if (method === 'POST') {
      const buf = await readBody(req);
      if (buf.length) {
        try {
          body = JSON.parse(buf.toString('utf8'));
        } catch {
          throw bad('Control routes take a JSON body.');
        }
      }
      if (!body || typeof body !== 'object') throw bad('Control routes take a JSON object.');
    } else req.resume();
    const route = `${method} ${url.pathname.replace(/\/+$/, '')}`;
    const str = (v: unknown, name: string) => {
      if (typeof v !== 'string' || !v) throw bad(`Field "${name}" is required.`);
      return v;
    };
    let out: unknown;
    switch (route) {
      case 'GET /_sandbox/credentials':
        out = credentials(store);
        break;
      case 'GET /_sandbox/clock':
        out = clockInfo(store);
        break;
      case 'POST /_sandbox/clock/advance': {
        let ms: number;
        try {
          ms = parseDuration(body.by ?? body.ms);
        } catch (e: any) {
          throw bad(e.message);
        }
        out = advanceClock(store, ms);
        setImmediate(core.tick);
        break;
      }
      case 'POST /_sandbox/usage':
        out = recordUsage(store, str(body.username, 'username'), str(body.hash_id, 'hash_id'), Number(body.viewed ?? 0), Number(body.printed ?? 0));
        break;
      case 'POST /_sandbox/redeem':
        out = redeemCode(store, str(body.code, 'code'), str(body.username, 'username'));
        break;
      case 'GET /_sandbox/outbox':
        out = { emails: listOutbox(store, url.searchParams.get('to') ?? undefined) };
        break;
      case 'POST /_sandbox/worker/run':
        out = { processed: runWorker(store, typeof body.delay_ms === 'number' ? body.delay_ms : core.delayMs) };
        break;
      default:
        throw new HttpError(404, `No such control route: ${route.slice(0, 200)}`);
    }
    sendJson(res, 200, { code: 200, success: true, ...TEST_MODE, ...(out as object) });
  } catch (err) {
    sendError(res, toHttpError(err), false);
  }
}
