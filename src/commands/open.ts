// `--open` of book viewer and offers checkout: the URL is always printed; on a terminal it is
// also handed to the desktop's opener ($BROWSER, open, xdg-open, start). A missing opener is a
// warning, never a failure.
import { spawn } from 'node:child_process';
import type { Context } from '../context.js';

function opener(ctx: Context, url: string): [string, string[]] {
  const browser = ctx.io.env.BROWSER;
  if (browser) return [browser, [url]];
  if (process.platform === 'darwin') return ['open', [url]];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/** Open `url` in a browser when stdout is a terminal. Resolves once the opener started (or failed). */
export async function openUrl(ctx: Context, url: string): Promise<boolean> {
  if (!ctx.io.stdout.isTTY) return false;
  const [cmd, args] = opener(ctx, url);
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(cmd, args, { stdio: 'ignore', detached: true, env: ctx.io.env });
    } catch {
      ctx.warn(`could not start ${cmd}; open the URL yourself.`);
      return resolve(false);
    }
    child.once('error', () => {
      ctx.warn(`could not start ${cmd}; open the URL yourself.`);
      resolve(false);
    });
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/**
 * The built-in sandbox profile runs the service inside this process only, on no port: a URL it
 * hands out (reader, cart) names no address (sandbox.invalid). Say so, and how to get one that answers.
 */
export async function noteEphemeralUrl(ctx: Context): Promise<void> {
  if (!(await ctx.config()).embedded) return;
  ctx.info(
    'note: the built-in sandbox runs inside this command only, on no port, so this URL does not answer. ' +
      'To open it, run `bookdist sandbox serve` and add a profile for it (`bookdist sandbox credentials` gives the username and key file).',
  );
}
