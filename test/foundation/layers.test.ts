// Layers point down (design.md, Layout): every relative import in src/ is checked against the
// folders each folder may use. The client and the sandbox share only src/spec/; nothing in
// src/api/ starts a server; lower layers see src/context.ts, a module of types only, as types.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Files at the top of src/ that everything may import: leaves with no imports of their own. */
const BASE = new Set(['errors.ts', 'version.ts']);

/**
 * What each folder may import (besides itself and BASE). `context:type` is an `import type` of
 * src/context.ts. The top of src/ (main, context, connect, program, root*) may import anything.
 */
const ALLOWED: Record<string, string[]> = {
  spec: [],
  util: [],
  cache: ['util'],
  api: ['spec', 'util'],
  config: ['util'],
  validate: ['util'],
  output: ['util', 'context:type'],
  sandbox: ['spec'],
  bulk: ['api', 'spec', 'output', 'util', 'validate', 'config', 'context:type'],
  ledger: ['api', 'config', 'spec', 'util'],
  commands: [
    'api',
    'bulk',
    'cache',
    'config',
    'ledger',
    'output',
    'sandbox',
    'spec',
    'util',
    'validate',
    'context:type',
  ],
  docs: ['commands', 'spec'],
};

/**
 * Known exceptions, each to be removed by the work named beside it. Keep this list short: a new
 * entry needs a reason and an issue.
 */
const EXCEPTIONS = new Set([
  // The hidden `__reference` verb (scripts/gen-docs.mjs) renders docs from the tree it is part of.
  'commands/completion/reference-run.ts -> docs/reference.ts',
  'commands/completion/reference-run.ts -> docs/man.ts',
]);

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function edges(): Edge[] {
  const out: Edge[] = [];
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[3] ?? m[4];
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      out.push({ from: rel(file), to: rel(target), typeOnly: Boolean(m[2]) });
    }
  }
  return out;
}

const rel = (p: string) => relative(SRC, p).split(sep).join('/');
const folderOf = (p: string) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '');

/**
 * Known circles, each as the one edge to cut, removed by the work named beside it. A circle of files
 * is a knot a newcomer cannot read from one end: keep this empty.
 */
const CIRCLE_EXCEPTIONS = new Set<string>([]);

/** Every circle between files (one per strongly connected set of them), as a path from a file back to it. */
export function circles(all: Edge[]): string[] {
  const graph = new Map<string, string[]>();
  for (const e of all)
    if (!CIRCLE_EXCEPTIONS.has(`${e.from} -> ${e.to}`)) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const found: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    path.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === 'open') found.push([...path.slice(path.indexOf(m)), m].join(' -> '));
      else if (!state.has(m)) visit(m);
    }
    path.pop();
    state.set(n, 'done');
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return found;
}

export function violations(all: Edge[]): string[] {
  const bad: string[] = [];
  for (const e of all) {
    const from = folderOf(e.from);
    const to = folderOf(e.to);
    // The top (main.ts and src/cli/, the entry split in parts) may import anything; a folder itself.
    if (from === '' || from === 'cli' || from === to) continue;
    if (to === '' && BASE.has(e.to)) continue;
    const allowed = ALLOWED[from];
    if (!allowed) {
      bad.push(`${e.from}: folder src/${from}/ has no rule in ALLOWED`);
      continue;
    }
    const key = to === '' ? (e.to === 'context.ts' && e.typeOnly ? 'context:type' : e.to) : to;
    if (allowed.includes(key)) continue;
    if (EXCEPTIONS.has(`${e.from} -> ${e.to}`)) continue;
    bad.push(`${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}`);
  }
  return bad;
}

/** A file of src/ over this many lines is split along its seams (issue 27). */
const MAX_FILE_LINES = 400;

/** The tables that may stay long: the seed data, the endpoint table and the OpenAPI prose. */
const LONG_TABLES = new Set(['sandbox/seed.ts', 'spec/endpoints.ts', 'spec/openapi-text.ts']);

/**
 * Today's files over MAX_FILE_LINES, each with the most lines it may still have: they only
 * shrink, and each is to be split along its seams as the others were (issue 27, item 3).
 */
const KNOWN_LONG_FILES: Record<string, number> = {};

/** The lines of each file of src/, by its path under src/. */
function fileLines(): Map<string, number> {
  return new Map(
    files(SRC).map((f) => {
      const text = readFileSync(f, 'utf8');
      return [rel(f), text.split('\n').length - (text.endsWith('\n') ? 1 : 0)];
    }),
  );
}

/** Files over MAX_FILE_LINES that are neither a table nor a known long file within its ceiling. */
export function overlong(lines: Map<string, number>, known: Record<string, number> = KNOWN_LONG_FILES): string[] {
  const bad: string[] = [];
  for (const [file, n] of lines) {
    if (n <= MAX_FILE_LINES || LONG_TABLES.has(file)) continue;
    const most = known[file];
    if (most === undefined) bad.push(`${file}: ${n} lines (at most ${MAX_FILE_LINES}: split it along its seams)`);
    else if (n > most) bad.push(`${file}: ${n} lines (a known long file, at most ${most} until it is split)`);
  }
  return bad;
}

describe('import layers', () => {
  const all = edges();

  it('reads the imports of the whole tree', () => {
    // A broken pattern would find nothing and pass everything.
    expect(all.length).toBeGreaterThan(300);
    expect(all).toContainEqual({ from: 'sandbox/http/router.ts', to: 'spec/endpoints.ts', typeOnly: false });
    expect(all).toContainEqual({ from: 'context.ts', to: 'api/handler.ts', typeOnly: true });
    // Dynamic imports count as well.
    expect(all.some((e) => e.from === 'connect.ts' && e.to === 'sandbox/embedded.ts')).toBe(true);
  });

  it('only point down', () => {
    expect(violations(all)).toEqual([]);
  });

  it('refuses what the layering forbids', () => {
    expect(
      violations([
        { from: 'api/client.ts', to: 'sandbox/embedded.ts', typeOnly: false },
        { from: 'sandbox/http/router.ts', to: 'api/wire.ts', typeOnly: false },
        { from: 'bulk/engine.ts', to: 'commands/define.ts', typeOnly: false },
        { from: 'output/index.ts', to: 'context.ts', typeOnly: false },
        { from: 'spec/openapi.ts', to: 'util/io.ts', typeOnly: false },
      ]),
    ).toHaveLength(5);
  });

  it('has no import circle, counting static, type-only and lazy import() edges alike', () => {
    expect(circles(all)).toEqual([]);
    // The check finds one when there is one: a type-only edge back up, and a lazy one.
    expect(circles([...all, { from: 'version.ts', to: 'main.ts', typeOnly: true }])).not.toEqual([]);
    expect(
      circles([
        { from: 'a.ts', to: 'b.ts', typeOnly: false },
        { from: 'b.ts', to: 'a.ts', typeOnly: true },
      ]),
    ).toEqual(['a.ts -> b.ts -> a.ts']);
  });

  it('declares each verb the same way: <module>.cmd.ts holds data only, and no run imports its group', () => {
    // A declaration loads nothing of its run: it imports only the declaration helpers.
    const helpers = /^commands\/(define|bulk-options|manifest|completion\/parts\/model|[a-z]+\/options)\.ts$/;
    const declarations = all.filter((e) => /^commands\/[a-z]+\/([a-z-]+\.cmd|options)\.ts$/.test(e.from));
    expect(declarations.length).toBeGreaterThan(50);
    expect(declarations.filter((e) => !helpers.test(e.to)).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
    // A group's index.ts ties declarations to runs, which it loads lazily: nothing else imports it.
    expect(
      all.filter((e) => /^commands\/[a-z]+\/index\.ts$/.test(e.to) && !/^(program|root)\.ts$/.test(e.from)),
    ).toEqual([]);
    // verb() is called in declaration files only.
    const declaring = files(join(SRC, 'commands'))
      .filter((f) => /\bverb\(\{/.test(readFileSync(f, 'utf8')))
      .map(rel)
      .filter((f) => !f.endsWith('.cmd.ts'));
    expect(declaring).toEqual([]);
    // A group's folder holds its verbs (<module>.ts beside the <module>.cmd.ts it runs), index.ts
    // and options.ts; cards and helpers are under its parts/.
    const loose = files(join(SRC, 'commands'))
      .map(rel)
      .filter((f) => /^commands\/[a-z]+\/[a-z-]+\.ts$/.test(f))
      .filter((f) => !/\/(index|options)\.ts$|\.cmd\.ts$/.test(f))
      .filter((f) => !existsSync(join(SRC, f.replace(/\.ts$/, '.cmd.ts'))));
    expect(loose).toEqual([]);
  });

  it('keeps the Context, IO and clock types in a module of types only (src/cli/context.ts makes a Context)', () => {
    const text = readFileSync(join(SRC, 'context.ts'), 'utf8');
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(all.filter((e) => e.from === 'context.ts' && !e.typeOnly)).toEqual([]);
    expect(code.match(/^\s*export\s+(?!interface|type)\w+/gm) ?? []).toEqual([]);
    expect(code).not.toMatch(/^\s*(const|let|function|class)\s/m);
  });

  it('has no file over 400 lines outside the tables, and known long files only shrink', () => {
    const lines = fileLines();
    expect(lines.get('sandbox/db/store.ts')).toBeGreaterThan(10);
    expect(overlong(lines)).toEqual([]);
    // The check finds one when there is one; tables aside, and a known long file within its ceiling.
    expect(
      overlong(
        new Map([
          ['sandbox/db/store.ts', 401],
          ['api/client.ts', 585],
          ['bulk/engine.ts', 450],
          ['sandbox/seed.ts', 5000],
          ['sandbox/db/turn.ts', 400],
        ]),
        { 'api/client.ts': 584, 'bulk/engine.ts': 450 },
      ),
    ).toEqual([
      'sandbox/db/store.ts: 401 lines (at most 400: split it along its seams)',
      'api/client.ts: 585 lines (a known long file, at most 584 until it is split)',
    ]);
    // A known long file that is split must leave the list.
    for (const [file, most] of Object.entries(KNOWN_LONG_FILES)) {
      expect(
        lines.get(file),
        `${file} is no longer over ${MAX_FILE_LINES} lines: drop it from KNOWN_LONG_FILES`,
      ).toBeGreaterThan(MAX_FILE_LINES);
      expect(most, file).toBeGreaterThan(MAX_FILE_LINES);
    }
  });

  it("keeps the sandbox's domain, repo and db apart from its HTTP side (its errors are sandbox/errors.ts)", () => {
    const low = /^sandbox\/(domain|repo|db)\//;
    const up = all.filter((e) => low.test(e.from) && e.to.startsWith('sandbox/http/'));
    expect(up.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
    expect(all.filter((e) => low.test(e.from) && e.to === 'sandbox/errors.ts').length).toBeGreaterThan(5);
  });

  it('keeps its exceptions real', () => {
    // An exception that no longer occurs must be dropped from the list.
    for (const ex of [...EXCEPTIONS, ...CIRCLE_EXCEPTIONS]) {
      const [from, to] = ex.split(' -> ');
      expect(
        all.some((e) => e.from === from && e.to === to),
        ex,
      ).toBe(true);
    }
  });
});
