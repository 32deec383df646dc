// The control routes of a running sandbox (/_sandbox/...): the testing controls over HTTP, for
// `bookdist sandbox ... --url`, the test helper and partners' own test suites.
//
// They can move the clock, redeem codes and read the outbox, so they answer only a request that
//   1. is addressed to the sandbox itself: its Host is the address the server is bound to (or
//      a name allowed with --allow-host), which defeats DNS rebinding;
//   2. comes from no foreign web page: an Origin header, when present, is the sandbox's own,
//      and a POST body is JSON (a page can send text/plain or a form cross-origin without
//      asking; application/json needs a CORS preflight, which the sandbox never grants);
//   3. carries the control secret (header X-Sandbox-Secret) that `bookdist sandbox
//      credentials` prints.
// No private key is ever sent: the credentials route gives key file paths and public keys.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cancelLoad, endLoad, loadPart, startRemoteLoad } from './control-catalogue.js';
import {
  advanceClock,
  clockInfo,
  CONTROL_SECRET_HEADER,
  credentials,
  isControlSecret,
  listOutbox,
  recordUsage,
} from '../control.js';
import type { RequestInfo, SandboxCore } from './core.js';
import { hostName } from './hosts.js';
import { oracleRoute } from './oracle-routes.js';
import { redeemCode } from '../domain/codes.js';
import { runWorker } from '../domain/index.js';
import { readBody, sendError, sendJson, TEST_MODE, toHttpError } from './http.js';
import { bad, HttpError } from '../errors.js';
import { parseDuration } from '../util.js';
import { messageOf } from '../../errors.js';

/** A part of a catalogue load (control-catalogue.ts). */
const PART = /^\/_sandbox\/catalogue\/loads\/([0-9a-f]{1,64})\/part\/?$/;

/** A control route's JSON body: an object (empty when the body is). */
function jsonObject(buf: Buffer): Record<string, unknown> {
  if (!buf.length) return {};
  let body: unknown;
  try {
    body = JSON.parse(buf.toString('utf8'));
  } catch {
    throw bad('Control routes take a JSON body.');
  }
  if (!body || typeof body !== 'object') throw bad('Control routes take a JSON object.');
  return body as Record<string, unknown>;
}

/** Refuse a control request that is not addressed to us, comes from a foreign page, or lacks the secret. */
function guard(core: SandboxCore, r: RequestInfo): void {
  const { headers, method } = r;
  const host = headers['host'] ?? '';
  if (!/^[\w.\-:[\]]{1,255}$/.test(host) || !core.allowedHosts.has(hostName(host))) {
    const allowed = [...core.allowedHosts].join(', ');
    throw new HttpError(
      403,
      `Control routes answer only requests addressed to this sandbox (${allowed}), not "${host.slice(0, 100)}"; ` +
        'start it with --allow-host <name> to allow another name.',
    );
  }
  const origin = headers['origin'];
  if (origin !== undefined && origin.toLowerCase() !== `http://${host.toLowerCase()}`) {
    throw new HttpError(403, 'Control routes refuse cross-origin requests.');
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new HttpError(403, 'Control routes refuse cross-origin requests.');
  }
  if (!isControlSecret(core.store, headers[CONTROL_SECRET_HEADER])) {
    throw new HttpError(
      401,
      headers[CONTROL_SECRET_HEADER] === undefined
        ? 'Control routes need the control secret in the X-Sandbox-Secret header; `bookdist sandbox credentials` prints it.'
        : 'Wrong control secret; `bookdist sandbox credentials --db <the database this sandbox serves>` prints the right one.',
    );
  }
  if (method === 'POST') {
    const type = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    // A part of a catalogue file is bytes; application/octet-stream, like JSON, needs a preflight.
    const want = PART.test(r.url.pathname) ? 'application/octet-stream' : 'application/json';
    if (type !== want) throw new HttpError(415, `This control route takes a body of Content-Type: ${want}.`);
  } else if (method !== 'GET') {
    throw new HttpError(
      405,
      `Control routes take GET or POST, not ${method.slice(0, 10)}.`,
      {},
      { allow: 'GET, POST' },
    );
  }
}

export async function serveControl(
  core: SandboxCore,
  req: IncomingMessage,
  res: ServerResponse,
  r: RequestInfo,
): Promise<void> {
  const { store } = core;
  const { method, url } = r;
  try {
    try {
      guard(core, r);
    } catch (err) {
      req.resume();
      throw err;
    }
    const part = PART.exec(url.pathname);
    if (method === 'POST' && part)
      return sendJson(res, 200, {
        code: 200,
        success: true,
        ...TEST_MODE,
        ...(await loadPart(store, part[1], await readBody(req))),
      });
    const body = method === 'POST' ? jsonObject(await readBody(req)) : (req.resume(), {});
    if (r.note && method === 'POST') r.note.request = body;
    const route = `${method} ${url.pathname.replace(/\/+$/, '')}`;
    const end = /^POST \/_sandbox\/catalogue\/loads\/([0-9a-f]{1,64})\/(end|cancel)$/.exec(route);
    if (end)
      return sendJson(res, 200, {
        code: 200,
        success: true,
        ...TEST_MODE,
        ...(await (end[2] === 'end' ? endLoad : cancelLoad)(store, end[1])),
      });
    const str = (v: unknown, name: string) => {
      if (typeof v !== 'string' || !v) throw bad(`Field "${name}" is required.`);
      return v;
    };
    let out: unknown;
    switch (route) {
      case 'GET /_sandbox/credentials': {
        // Usernames, key file paths, public keys, shared keys and the operator token (what
        // `bookdist sandbox credentials` prints); never a private key, never the secret itself.
        const c = credentials(store);
        const acct = (a: typeof c.partner) => ({
          username: a.username,
          key_file: a.key_file,
          public_key: a.public_key,
          shared_key: a.shared_key,
        });
        out = { partner: acct(c.partner), limited: acct(c.limited), operator_token: c.operator_token };
        break;
      }
      case 'GET /_sandbox/clock':
        out = clockInfo(store);
        break;
      case 'POST /_sandbox/clock/advance': {
        let ms: number;
        try {
          ms = parseDuration((body.by ?? body.ms) as string | number);
        } catch (e) {
          throw bad(messageOf(e));
        }
        out = advanceClock(store, ms);
        setImmediate(core.tick);
        break;
      }
      case 'POST /_sandbox/usage':
        out = recordUsage(
          store,
          str(body.username, 'username'),
          str(body.hash_id, 'hash_id'),
          Number(body.viewed ?? 0),
          Number(body.printed ?? 0),
        );
        break;
      case 'POST /_sandbox/redeem':
        out = redeemCode(store, str(body.code, 'code'), str(body.username, 'username'));
        break;
      case 'GET /_sandbox/outbox':
        out = { emails: listOutbox(store, url.searchParams.get('to') ?? undefined) };
        break;
      case 'POST /_sandbox/catalogue/loads':
        out = await startRemoteLoad(store, body);
        break;
      case 'POST /_sandbox/worker/run':
        out = { processed: runWorker(store, typeof body.delay_ms === 'number' ? body.delay_ms : core.delayMs) };
        break;
      default:
        // The test-oracle routes: request journal, fixtures, book controls, snapshots.
        out = await oracleRoute(core, route, body, url.searchParams);
        if (!out) throw new HttpError(404, `No such control route: ${route.slice(0, 200)}`);
    }
    if (r.note) r.note.response = out;
    sendJson(res, 200, { code: 200, success: true, ...TEST_MODE, ...(out as object) });
  } catch (err) {
    sendError(res, toHttpError(err), false);
  }
}
