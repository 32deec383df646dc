// Five calls with the typed client (client.ts): the service index, the calling account, a book by
// ISBN, a search, and code generation with an Idempotency-Key (sent twice: the same codes come
// back). Run with Node 22.18+ or 24 (`node example.ts`), after generating schema.d.ts:
//   BOOKDIST_BASE_URL=http://127.0.0.1:8710 BOOKDIST_USERNAME=... BOOKDIST_KEY_FILE=key.pem node example.ts
// (or BOOKDIST_SHARED_KEY=... instead of BOOKDIST_KEY_FILE). Prints one JSON line per call.
import { readFileSync } from 'node:fs';
import { bookdistClient, form, type Credentials, type Payload } from './client.ts';

const env = process.env;
const baseUrl = env.BOOKDIST_BASE_URL ?? 'http://127.0.0.1:8710';
const username = env.BOOKDIST_USERNAME ?? '';
const creds: Credentials = env.BOOKDIST_KEY_FILE
  ? { kind: 'crypto', username, keyPem: readFileSync(env.BOOKDIST_KEY_FILE, 'utf8') }
  : { kind: 'shared', username, sharedKey: env.BOOKDIST_SHARED_KEY ?? '' };
const isbn = env.EXAMPLE_ISBN ?? '9781614001379';

const api = bookdistClient(baseUrl, creds);
const print = (call: string, value: unknown) => console.log(JSON.stringify({ call, ...(value as object) }));

function fail(call: string, status: number, error: unknown): never {
  throw new Error(`${call}: HTTP ${status} ${JSON.stringify(error)}`);
}

// 1. The index: no credentials needed (the middleware sends them anyway; they are ignored).
const index = await api.GET('/');
if (!index.data) fail('index', index.response.status, index.error);
print('index', { current_version: index.data.api.current_version });

// 2. The calling account.
const profile = await api.GET('/profile/');
if (!profile.data) fail('profile', profile.response.status, profile.error);
print('profile', { scopes: profile.data.scopes });

// 3. A book by ISBN: the path parameter is typed.
const book = await api.GET('/v1/book/isbn/{isbn}/', { params: { path: { isbn } } });
if (!book.data) fail('book', book.response.status, book.error);
const hashId: string = book.data.book.hash_id;
print('book', { hash_id: hashId, title: book.data.book.title });

// 4. A search: the payload is typed by the operation's schema, sent as form field `request`.
const criteria: Payload<'book.search.request'> = { title: 'Lighthouse', limit: 5 };
const search = await api.POST('/v1/book/search/', { body: form(criteria) });
if (!search.data) fail('search', search.response.status, search.error);
print('search', { count: search.data.count, titles: search.data.results.map((b) => b.title) });

// 5. Code generation with an Idempotency-Key: a retry with the same key returns the same codes.
const order: Payload<'codes.generate.request'> = { hash_id: hashId, org: 'acme', count: 2 };
const key = `example-${Date.now()}`;
const generate = () => api.POST('/v1/codes/generate/', { params: { header: { 'Idempotency-Key': key } }, body: form(order) });
const first = await generate();
if (!first.data) fail('codes', first.response.status, first.error);
const retry = await generate();
if (!retry.data) fail('codes retry', retry.response.status, retry.error);
print('codes', { codes: first.data.codes.map((c) => c.code), retried: retry.data.codes.map((c) => c.code) });
