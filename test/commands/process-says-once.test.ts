// book process says each book's failure once (issue 28): an unverified answer's whole failure
// (the URL, the status, the first bytes, what to check, the ledger's write) was printed by the
// job's line for the book and again by the bulk engine's line for a failed item, and on a
// terminal once more as the book's result line. The summary and the retry hint stay.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answer, hostileEnv, hostileForFile } from '../helpers/hostile-server.js';
import { run } from '../helpers/run.js';

const server = hostileForFile();
const HASH = 'fb02181f26270f72e261de20f8aadb9096f40802';
const PATH = `/v1/book/${HASH}/process/`;
const count = (text: string, part: string) => text.split(part).length - 1;

describe('book process, a book whose answer is not verified', () => {
  it('on a terminal: its result line only, then the summary', async () => {
    server.on('POST', PATH, answer.html());
    const r = await run(['book', 'process', HASH], { env: hostileEnv(server.url), tty: { columns: 100 } });
    expect(r.code).toBe(1);
    expect(count(r.output, 'the outcome is')).toBe(1);
    expect(count(r.output, 'Guest Wi-Fi')).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^x ${HASH} failed — POST\\s+http://`, 'm'));
    expect(r.stderr).toContain('book process: 1 book: 1 failed');
  });

  it('stdout piped, stderr a terminal: one line on stderr, the row on stdout', async () => {
    server.on('POST', PATH, answer.html());
    let out = '';
    const stdout = new PassThrough().on('data', (d) => (out += d));
    const r = await run(['book', 'process', HASH], { env: hostileEnv(server.url), tty: { columns: 100 }, stdout });
    expect(r.code).toBe(1);
    expect(count(r.stderr, 'the outcome is')).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`${HASH} +failed +POST\\s+http://`));
    expect(r.stderr).not.toContain(`${HASH}: POST`);
    expect(count(out, 'the outcome is')).toBe(1);
    expect(r.stderr).toContain('book process: 1 book: 1 failed');
  });

  it('a failure a retry may mend (503): said once, and the retry hint is kept', async () => {
    server.on('POST', PATH, answer.error(503, 'Down for maintenance.'));
    const r = await run(['book', 'process', HASH, '--retries', '0'], {
      env: hostileEnv(server.url),
      tty: { columns: 100 },
    });
    expect(r.code).toBe(7);
    expect(count(r.output, 'Down for maintenance')).toBe(1);
    expect(r.stderr).toContain('book process: 1 book: 1 failed');
    expect(r.stderr).toContain(`To retry what failed, run:\n  bookdist book process ${HASH} --retries 0\n`);
  });
});
