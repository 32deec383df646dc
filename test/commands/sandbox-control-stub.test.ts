// The sandbox's control verbs with --url, in-process through the stub registry: they talk to the
// running sandbox's /_sandbox/ routes through the command's HTTP handler, like every other request
// of the CLI. `sandbox clock advance`: the route, the control secret and the body it sends, its
// output; the sandbox refusing the secret (exit 4) and a sandbox that is not there (exit 7).
import { describe, expect, it } from 'vitest';
import { json, netError } from '../helpers/stub-http.js';
import { ok, sentOnce, stdoutJson, stubCli, StubRegistry } from './_stubs.js';

const cli = stubCli();
const URL = 'http://sandbox.stub:8710';
const SECRET = 'stub-control-secret-0123456789';
const env = { BOOKDIST_SANDBOX_SECRET: SECRET };
const advance = ['sandbox', 'clock', 'advance', '36h', '--url', URL];

describe('sandbox clock advance --url', () => {
  it('posts the duration to /_sandbox/clock/advance with the control secret, and prints the new time', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/_sandbox/clock/advance',
      ok({ now: '2026-11-27T00:00:00.000Z', offset_ms: 129_600_000 }),
    );
    const r = await cli(http, [...advance, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const sent = sentOnce(http, 'POST', '/_sandbox/clock/advance');
    expect(sent.url).toBe(`${URL}/_sandbox/clock/advance`);
    expect(sent.headers['x-sandbox-secret']).toBe(SECRET);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.payload).toEqual({ ms: 36 * 3_600_000 });
    // The envelope's members are dropped.
    expect(stdoutJson(r)).toEqual({ now: '2026-11-27T00:00:00.000Z', offset_ms: 129_600_000 });

    const card = await cli(
      new StubRegistry().on(
        'POST',
        '/_sandbox/clock/advance',
        ok({ now: '2026-11-27T00:00:00.000Z', offset_ms: 129_600_000 }),
      ),
      advance,
      { env, tty: { columns: 80 } },
    );
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toContain('2026-11-27T00:00:00.000Z');
    expect(card.stdout).toContain('129600s ahead of real time');
  });

  it('a secret the sandbox refuses: exit 4, naming how to give the right one, never the secret sent', async () => {
    const http = new StubRegistry().on(
      'POST',
      '/_sandbox/clock/advance',
      json(401, { code: 401, error: true, message: 'Wrong control secret.' }),
    );
    const r = await cli(http, advance, { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Wrong control secret.');
    expect(r.stderr).toContain('BOOKDIST_SANDBOX_SECRET');
    expect(r.stderr).not.toContain(SECRET);
    expect(r.stdout).toBe('');
  });

  it('no sandbox at --url: exit 7, asking whether `sandbox serve` runs', async () => {
    const http = new StubRegistry().on('POST', '/_sandbox/clock/advance', netError('ECONNREFUSED'));
    const r = await cli(http, advance, { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`Could not reach the sandbox at ${URL} (ECONNREFUSED)`);
    expect(r.stderr).toContain('bookdist sandbox serve');
  });
});
