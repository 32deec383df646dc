// A typed client of the book distribution service for partners: types generated from the
// service's OpenAPI document with openapi-typescript, requests made with openapi-fetch, and a
// middleware that authenticates every request as the service requires (CryptoAuth or
// SharedKeyAuth). Copy this file beside the generated schema.d.ts (see README.md here).
//
// The signing rules, as the document's Authentication section states them:
// - CryptoAuth: RSASSA-PKCS1-v1_5 with SHA-256 (your RSA private key, PEM), over the UTF-8 bytes of
//   the exact text of the `request` form field for a request with a body (every POST), or of your
//   username for a request without one (every GET); sent in `signature` as standard base64 with
//   padding, with `authorization: CryptoAuth`.
// - SharedKeyAuth: your shared key in plain text in `api-key`, with `authorization: SharedKeyAuth`.
// - Both: your username in `api-user` and `user`, and `version: v1`.
// - A POST carries its payload as one form field, `request`, holding the payload as JSON text
//   (application/x-www-form-urlencoded). The signature covers that text byte for byte, so it is
//   signed here exactly as it is sent; nothing on the way may re-serialise it.
// - A signature binds neither method, path nor time: a captured request can be replayed. Use
//   HTTPS, never log signatures or keys, and send an Idempotency-Key or order_number with writes.
import { createSign } from 'node:crypto';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type Credentials = { kind: 'crypto'; username: string; keyPem: string } | { kind: 'shared'; username: string; sharedKey: string };

/** The decoded payload of an operation, as the document names it: `Payload<'book.search.request'>`. */
export type Payload<Name extends keyof components['schemas'] & `${string}.request`> = components['schemas'][Name];

/** A payload as the service takes it: JSON text in the form field `request`. */
export function form<T>(payload: T): { request: string } {
  return { request: JSON.stringify(payload) };
}

/** RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 bytes of `message`, standard base64. */
export function sign(message: string, keyPem: string): string {
  return createSign('RSA-SHA256').update(message, 'utf8').sign(keyPem, 'base64');
}

/** Sends POST bodies form-encoded and authenticates every request. */
export function authMiddleware(creds: Credentials): Middleware {
  return {
    async onRequest({ request }) {
      const h = request.headers;
      h.set('api-user', creds.username);
      h.set('user', creds.username);
      h.set('version', 'v1');
      h.set('accept', 'application/json');
      let message = creds.username;
      if (request.method === 'POST') {
        h.set('content-type', 'application/x-www-form-urlencoded');
        // The very text that goes on the wire in the `request` field: what the signature covers.
        const text = new URLSearchParams(await request.clone().text()).get('request');
        if (text === null) throw new Error('a POST body must be form({...})');
        message = text;
      }
      if (creds.kind === 'crypto') {
        h.set('authorization', 'CryptoAuth');
        h.set('signature', sign(message, creds.keyPem));
      } else {
        h.set('authorization', 'SharedKeyAuth');
        h.set('api-key', creds.sharedKey);
      }
      return request;
    },
  };
}

export type BookdistClient = Client<paths>;

/** A client of the service at `baseUrl` (the sandbox, or the base URL your operator gave you). */
export function bookdistClient(baseUrl: string, creds: Credentials): BookdistClient {
  const client = createClient<paths>({
    baseUrl,
    // form({...}) bodies become `request=<JSON text, percent-encoded>`.
    bodySerializer: (body: unknown) => new URLSearchParams(body as Record<string, string>).toString(),
  });
  client.use(authMiddleware(creds));
  return client;
}
