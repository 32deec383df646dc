// One of the repository's own tools (Biome, ESLint, knip) run as the foundation tests run it: in
// a directory, with a clean environment (PATH, HOME, TMPDIR and what the tool is told), under a
// time limit; and a scratch project for a test's control, removed after it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run `command` (its program and arguments) in `cwd`; `env` adds to the clean environment. */
export function runTool(
  command: string[],
  cwd: string,
  opts: { timeout: number; env?: Record<string, string>; maxBuffer?: number },
): ToolRun {
  const [program, ...args] = command;
  const r = spawnSync(program!, args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ...opts.env },
    timeout: opts.timeout,
    maxBuffer: opts.maxBuffer,
  });
  // Killed (the timeout's SIGTERM): say so, or a failure shows only `null` and an empty stderr.
  const killed = r.signal ? `\n[${program} killed by ${r.signal}; timeout ${opts.timeout / 1000} s]` : '';
  return { status: r.status, stdout: r.stdout, stderr: (r.stderr ?? '') + killed };
}

/** A scratch directory holding `files` (by relative path), given to `fn` and removed after. */
export function inScratch<T>(name: string, files: Record<string, string>, fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), `bookdist-${name}-`));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
