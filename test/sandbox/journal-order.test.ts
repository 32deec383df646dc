// The journal lists requests in the order they came, not the order their rows were written:
// two processes serving one database each keep the rows of lookups in memory for up to FLUSH_MS
// (src/sandbox/journal/journal.ts), so the later request's row can be written first. CI once
// listed a second server's request before the first's (journal.e2e "a second `sandbox serve`").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/sandbox/db/store.js';
import { Journal } from '../../src/sandbox/journal/journal.js';
import { listRequests } from '../../src/sandbox/journal/query.js';

const dir = mkdtempSync(join(tmpdir(), 'bookdist-journal-order-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('journal order', () => {
  it('two journals on one file: the request that came first is listed first, whichever row was written first', async () => {
    const store = new Store(join(dir, 'order.db'));
    store.tx(() => store.createSchema());
    try {
      const first = new Journal(store);
      const second = new Journal(store);
      const a = first.start('GET', '/v1/book/index/?tag=a', { host: 'one' });
      const b = second.start('GET', '/v1/book/index/?tag=b', { host: 'two' });
      // In the same millisecond as often as not; the second answered and written first.
      second.write(b, 200);
      second.flush();
      first.write(a, 200);
      first.flush();
      const listed = listRequests(store, {}).requests;
      expect(listed.map((e) => e.query)).toEqual(['tag=a', 'tag=b']);
      expect(listed[0].id).toBeGreaterThan(listed[1].id);
      // `--limit 1` keeps the newest request, by the time it came.
      expect(listRequests(store, {}, 1).requests.map((e) => e.query)).toEqual(['tag=b']);
    } finally {
      await store.close();
    }
  });
});
