// The launcher's one module (built as dist/version.js, CommonJS like the rest of dist/): what runs
// before anything else is loaded — the version (all that `bookdist --version` loads) and its
// writer to stdout (./cli/direct-out.ts), the oldest Node bookdist runs on (checked first), and
// the code cache (turned on before dist/main.js is loaded: ./cache/code-cache.ts). bin/bookdist's
// shell part execs Node on this file, whose last line (scripts/build.mjs) then calls launch();
// `node bin/bookdist` (the same file as JS) requires it and calls start() itself.
import { openCodeCache } from './cache/compile-cache.js';
import { startCodeCache } from './cache/code-cache.js';
import { stdoutIsPlain, writeStdout } from './cli/direct-out.js';
import { BUILD, NODE_MIN, VERSION } from './version.js';

export { NODE_MIN, VERSION } from './version.js';
export { stdoutIsPlain, writeStdout } from './cli/direct-out.js';
/** What the code cache is kept for: this version of bookdist, this build of it (src/version.ts). */
export const CACHE_VERSION = `${VERSION}+${BUILD}`;

/** dist/main.js's one export the launcher calls. */
type Main = { main(argv: string[]): Promise<number> };

/** Is Node `have` (major.minor.patch) at least `min`? */
export function atLeast(have: string, min: string): boolean {
  const a = have.split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

/** The one message for a Node older than engines.node: what to do instead. */
export function tooOld(args: string[]): string {
  const quoted = args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`));
  return (
    `bookdist: Node ${process.versions.node} is too old: bookdist ${VERSION} needs Node ${NODE_MIN} or newer ` +
    `(engines.node in its package.json). Install a newer Node, or run bookdist with Node 24 from npm: ` +
    `${['npx -p node@24 bookdist', ...quoted].join(' ')}\n`
  );
}

/** A line of the code cache's account on stderr, with NODE_DEBUG=bookdist (as Node's own debug lines). */
function debugLine(env: NodeJS.ProcessEnv): ((line: string) => void) | undefined {
  if (!/(^|,)\s*bookdist\s*(,|$)/i.test(env.NODE_DEBUG ?? '')) return undefined;
  return (line) => process.stderr.write(`BOOKDIST ${process.pid}: code cache: ${line}\n`);
}

/** The command a run's arguments name, for the code cache: its first words (`book get`), up to an option or an argument. */
export function commandOf(argv: string[]): string {
  const words: string[] = [];
  for (const a of argv) {
    if (words.length === 3 || !/^[a-z][a-z0-9-]*$/.test(a)) break;
    words.push(a);
  }
  return words.join(' ');
}

/**
 * Run bookdist with `argv`: --version from here, anything else through dist/main.js (`load`), whose
 * directory `dist` holds the chunks the code cache serves. Not for the root help (a bare bookdist,
 * -h, --help): its few small modules compile faster than the cache is checked and read.
 */
export async function start(argv: string[], dist: string, load: () => Main): Promise<void> {
  exitWhenIdle(process);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    // Nothing else to load: the version is stamped into this small file at build time. To a file
    // or a pipe it is written straight to fd 1 (no stream: src/cli/direct-out.ts). As main() does
    // for every other command: a reader that went away ends quietly; any other write error (a full
    // disk, /dev/full) is one clear line and exit 1, not Node's stack trace.
    process.exitCode = writeStdout(VERSION + '\n', stdoutIsPlain());
    return;
  }
  if (argv.length > 1 || (argv.length === 1 && argv[0] !== '--help' && argv[0] !== '-h')) {
    const debug = debugLine(process.env);
    const cache = openCodeCache(process.env, CACHE_VERSION);
    if (cache.used) startCodeCache(cache.dir, dist, commandOf(argv), debug);
    else debug?.(`off: ${cache.reason}`);
  }
  process.exitCode = await load().main(argv);
}

/** What exitWhenIdle() needs of the process (a stand-in in tests). */
type Exiting = Pick<NodeJS.Process, 'once' | 'listenerCount' | 'exit'>;

/**
 * End the process with process.exit() once its event loop has nothing left to do ('beforeExit':
 * every write, socket, timer and worker done, as when Node would end it by itself), and not by
 * Node's own end: that frees the whole environment first (the heap, every handle's object, Node's
 * roots), about 3M instructions a run that the process, ending, does not need (issue 31; exit
 * listeners run either way: the code cache's entries are written). When anything else listens for
 * 'beforeExit', it may give the loop more work: the process then ends as Node ends it.
 */
export function exitWhenIdle(proc: Exiting): void {
  proc.once('beforeExit', () => {
    if (proc.listenerCount('beforeExit') === 0) proc.exit();
  });
}

/** As the shell launcher runs bookdist: Node's version checked (exit 2, and what to do, when too old), then start(). */
export function launch(argv: string[], dist: string, load: () => Main): void {
  if (!atLeast(process.versions.node, NODE_MIN)) {
    process.stderr.write(tooOld(argv));
    process.exitCode = 2;
    return;
  }
  void start(argv, dist, load);
}
