// Shared by the completion tests: the scripts generated from the current tree, written to a temp dir
// the way they are installed, and the shells to load them in (installed from Debian if missing).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../../src/program.js';
import { completionScript } from '../../src/commands/completion/parts/scripts.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ZSH_CAPTURE = fileURLToPath(new URL('./zsh-capture.zsh', import.meta.url));

/** The file names under completions/ for each shell. */
export const FILES = { bash: 'bookdist.bash', zsh: '_bookdist', fish: 'bookdist.fish' } as const;

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/**
 * Make sure bash, zsh and fish are there: install the missing ones from Debian packages (the test
 * machines are Debian and tests run as root). Throws, naming the packages, when that is impossible.
 */
export function ensureShells(): void {
  const missing = ['bash', 'zsh', 'fish'].filter((s) => !has(s));
  if (!missing.length) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe', env, timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
      stdio: 'pipe',
      env,
      timeout: 600_000,
    });
  } catch (err) {
    throw new Error(
      `the completion tests need ${missing.join(', ')}; installing with apt-get failed (run as root: apt-get install -y ${missing.join(' ')}): ${(err as Error).message}`,
    );
  }
  const still = missing.filter((s) => !has(s));
  if (still.length) throw new Error(`after apt-get install, still missing: ${still.join(', ')}`);
}

/** Scripts generated from the current tree, in a temp dir laid out like completions/. */
export function generatedScripts(): { dir: string; path: (shell: keyof typeof FILES) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-completion-'));
  const program = buildProgram();
  for (const shell of ['bash', 'zsh', 'fish'] as const)
    writeFileSync(join(dir, FILES[shell]), completionScript(shell, program));
  return {
    dir,
    path: (shell) => join(dir, FILES[shell]),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function run(cmd: string, args: string[], input?: string, env: Record<string, string> = {}): string {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    input,
    timeout: 120_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, TERM: 'dumb', ...env },
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Candidates bash offers for the words (the last one being completed), via the script's function. */
export function bashComplete(script: string, words: string[], env?: Record<string, string>): string[] {
  const program = [
    'set -u',
    'source "$1"; shift',
    // The function that `complete -p bookdist` names is the one that bash calls on TAB.
    'fn=$(complete -p bookdist | sed -n "s/.*-F \\([^ ]*\\).*/\\1/p")',
    'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}',
    '"$fn" bookdist "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  return lines(run('bash', ['--norc', '--noprofile', '-c', program, 'bash', script, ...words], undefined, env));
}

/**
 * Candidates zsh offers when TAB is pressed after each of `lines`, in one interactive zsh (zpty):
 * one list per line, sorted.
 */
export function zshCompleteAll(
  dir: string,
  lines: string[],
  mode: 'fpath' | 'source' = 'fpath',
  env?: Record<string, string>,
): string[][] {
  const out = run('zsh', ['-f', ZSH_CAPTURE, dir, mode, ...lines], undefined, env);
  const lists = out
    .split('<<end>>\n')
    .slice(0, -1)
    .map((l) => l.split('\n').filter((w) => w !== ''));
  if (lists.length !== lines.length) throw new Error(`zsh completed ${lists.length} of ${lines.length} lines:\n${out}`);
  return lists;
}

/** Candidates fish offers for `line` (complete -C), without descriptions. */
export function fishComplete(script: string, line: string, env?: Record<string, string>): string[] {
  return lines(
    run('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', script, line], undefined, env),
  ).map((l) => l.split('\t')[0]);
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}
