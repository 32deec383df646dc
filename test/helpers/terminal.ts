// Run main() in-process on a scripted terminal: stdin, stdout and stderr are TTYs; each time the
// prompt text (on stderr) matches the next pattern, its answer is typed. For prompts and
// confirmations (@inquirer/prompts), which only ever appear on a terminal.
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/main.js';
import type { IO } from '../../src/context.js';

export interface TerminalRun {
  code: number;
  stdout: string;
  /** Everything the prompts showed. */
  stderr: string;
  /** Answers that were never asked for. */
  unanswered: number;
}

export async function onTerminal(args: string[], opts: { env: Record<string, string | undefined>; answers?: Array<[RegExp, string]>; cwd?: string }): Promise<TerminalRun> {
  const script = [...(opts.answers ?? [])];
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let shown = '';
  let pending = '';
  const stderr = Object.assign(
    new Writable({
      write(chunk, _e, cb) {
        shown += chunk.toString();
        pending += chunk.toString();
        const next = script[0];
        if (next && next[0].test(pending)) {
          script.shift();
          pending = '';
          setTimeout(() => stdin.write(next[1]), 5);
        }
        cb();
      },
    }),
    // Like process.stderr, a terminal is not ended when a prompt's stream piped into it ends.
    { isTTY: true, columns: 80, end() { return this; } },
  );
  let out = '';
  const stdout = Object.assign(new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }), { isTTY: true, columns: 80 });
  const io: IO = { stdin, stdout, stderr, env: { ...opts.env }, cwd: opts.cwd ?? process.cwd() };
  const code = await main(args, { io, signals: false });
  return { code, stdout: out, stderr: shown, unanswered: script.length };
}
