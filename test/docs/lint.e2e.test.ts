// The generated man page and completion scripts as the tools that read them see them: mandoc's
// lint (no warning; only its style note about long input lines may stay), the page as `man -l`
// renders it (no Markdown syntax), its ENVIRONMENT section against the variables the source
// reads, and shellcheck on the bash completion. mandoc, man-db and shellcheck are system
// packages: .ci/run installs them when missing.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../src/docs/man.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = join(ROOT, 'man', 'bookdist.1');

function tool(cmd: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.error) throw new Error(`${cmd} is not installed (.ci/run installs it with apt-get): ${r.error.message}`);
  return r;
}

/**
 * Variables the source reads that the page leaves out on purpose: each is no setting of the
 * user's. BOOKDIST_REEXEC marks the launcher's own second process (an old Node running
 * bin/bookdist re-runs it under the pinned Node).
 */
const INTERNAL = new Set(['BOOKDIST_REEXEC']);

/** 'BOOKDIST_…' strings in the source that name no variable: the codes of proxy errors. */
const NOT_VARIABLES = new Set(['BOOKDIST_PROXY_AUTH', 'BOOKDIST_PROXY_REFUSED', 'BOOKDIST_PROXY_URL']);

/**
 * The environment variables src/ and the launcher read: env.NAME, env['NAME'], 'BOOKDIST_…' names
 * (tables of them, such as src/config/resolve.ts's), and the proxy variables as curl spells them.
 */
function variablesRead(): Set<string> {
  const files: string[] = [join(ROOT, 'bin', 'bookdist')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mjs|js)$/.test(name) && !/\.test\.ts$/.test(name)) files.push(p);
    }
  };
  walk(join(ROOT, 'src'));
  const names = new Set<string>();
  for (const f of files) {
    // Not the page's own table, which names them all.
    if (f.endsWith(join('src', 'docs', 'man.ts'))) continue;
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*|[a-z]+_[a-z_]+)\b/g)) names.add(m[1]);
    for (const m of text.matchAll(/\benv\??\.?\[\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\]/g)) names.add(m[1]);
    for (const m of text.matchAll(/['"`](BOOKDIST_[A-Z0-9_]+)['"`]/g)) if (!NOT_VARIABLES.has(m[1])) names.add(m[1]);
    for (const m of text.matchAll(/['"`]((?:https?|all|no)_proxy|(?:HTTPS?|ALL|NO)_PROXY)['"`]/g)) names.add(m[1]);
  }
  return names;
}

describe('man/bookdist.1', () => {
  it('passes mandoc -T lint (only the style note on long input lines may stay)', () => {
    const r = tool('mandoc', ['-T', 'lint', PAGE]);
    const findings = (r.stdout + r.stderr)
      .split('\n')
      .filter((l) => l.trim() && !/STYLE: input text line longer than 80 bytes/.test(l));
    expect(findings).toEqual([]);
  });

  it('renders with man -l with no Markdown syntax', () => {
    const r = tool('man', ['-l', PAGE], { MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80', LANG: 'C.UTF-8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^BOOKDIST\(1\)/);
    const markdown = r.stdout.split('\n').filter((l) => /`|\*\*|\]\(|^\s*#{1,6} /.test(l));
    expect(markdown).toEqual([]);
  });

  it('lists in ENVIRONMENT every variable the source reads, and no other', () => {
    const documented = new Set(ENVIRONMENT.flatMap(([names]) => names));
    const read = variablesRead();
    const missing = [...read].filter((n) => !documented.has(n) && !INTERNAL.has(n)).sort();
    expect(missing, 'read by the source but not in the man page (src/docs/man.ts ENVIRONMENT)').toEqual([]);
    const stale = [...documented].filter((n) => !read.has(n)).sort();
    expect(stale, 'in the man page but read nowhere').toEqual([]);
    const page = readFileSync(PAGE, 'utf8');
    const section = page.slice(page.indexOf('.SH ENVIRONMENT'), page.indexOf('.SH FILES'));
    for (const n of documented) expect(section).toContain(n);
  });
});

describe('completions/bookdist.bash', () => {
  it('is clean under shellcheck', () => {
    const r = tool('shellcheck', ['--shell=bash', join(ROOT, 'completions', 'bookdist.bash')]);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
