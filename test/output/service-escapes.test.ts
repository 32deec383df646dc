// Escapes (issue 28, item 9): text from the service shown on a terminal never drives it, errors
// included and whatever the colour setting: SGR (hidden text `ESC[8m`) is escaped like OSC and
// screen clears. bookdist's own colour stays where colour is on.
import { describe, expect, it } from 'vitest';
import { answer, hostileEnv, hostileForFile } from '../helpers/hostile-server.js';
import { run } from '../helpers/run.js';

const server = hostileForFile();

const HIDDEN = '\u001b[8mrm -rf ~\u001b[0m';
const HASH = 'fb02181f26270f72e261de20f8aadb9096f40802';
// Any ESC, CSI or BEL: nothing of the service's may reach the terminal raw.
// eslint-disable-next-line no-control-regex
const RAW = /\u001b|\u009b|\u0007/;

const SETTINGS: Array<[string, Record<string, string | undefined>, string[]]> = [
  ['NO_COLOR=1 --color never', { NO_COLOR: '1' }, ['--color', 'never']],
  ['--color auto on a terminal', { NO_COLOR: undefined }, []],
  ['--color always', { NO_COLOR: undefined }, ['--color', 'always']],
];

describe.each(SETTINGS)('an SGR sequence in a service message, %s', (_name, env, flags) => {
  const cli = (args: string[]) => run([...args, ...flags], { env: hostileEnv(server.url, env), tty: { columns: 100 } });

  it('an error (book get, 404) shows it escaped', async () => {
    server.on('GET', `/v1/book/${HASH}/`, answer.error(404, `No such book ${HIDDEN}`));
    const r = await cli(['book', 'get', HASH]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('\\x1b[8mrm -rf ~\\x1b[0m');
    expect(r.stderr).not.toMatch(RAW);
  });

  it('an error of the access API (403) shows it escaped', async () => {
    server.on('POST', '/v1/access/revoke/', answer.error(403, `Authentication failed ${HIDDEN}`));
    const r = await cli([
      'access',
      'revoke',
      '--hash-id',
      HASH,
      '--username',
      '0d72df20f23558620646fb3ea030f5',
      '--yes',
    ]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('\\x1b[8m');
    expect(r.stderr).not.toMatch(RAW);
  });

  it("a notice with the service's message (book process) shows it escaped; only bookdist's own colour may stay", async () => {
    server.on('POST', `/v1/book/${HASH}/process/`, answer.error(401, `Not Authorized for Book ${HIDDEN}`));
    const r = await cli(['book', 'process', HASH]);
    expect(r.code).not.toBe(0);
    // On a terminal the book's result line (stdout) says it, once; the progress line is on stderr.
    expect(r.output).toContain('\\x1b[8m');
    // bookdist's own: the progress line's redraw (`CR ESC[2K`) and its colours.
    // eslint-disable-next-line no-control-regex
    const own = r.output.replace(/\r\u001b\[2K/g, '');
    // eslint-disable-next-line no-control-regex
    expect(own.replace(/\u001b\[(1|2|22|31|32|33|36|39)m/g, '')).not.toMatch(RAW);
    // eslint-disable-next-line no-control-regex
    if (flags.includes('never')) expect(own).not.toMatch(/\u001b/);
  });
});
