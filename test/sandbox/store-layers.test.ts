// The sandbox store's layers (issue 16, item 4): db/ (connection, schema, turn commit) under
// repo/<entity>.ts (the SQL, typed rows) under domain/<area>.ts (the rules, no SQL). Read from
// the source: no statement in the domain layer, and the lower layers never import the upper ones.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SANDBOX = fileURLToPath(new URL('../../src/sandbox/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(SANDBOX, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f}`);
}

const read = (file: string) => readFileSync(join(SANDBOX, file), 'utf8');
/** A string literal holding a statement, or a call that runs SQL on the store or the database. */
const SQL = /['"`]\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE)\b|\b(store|db)\.(get|all|run|exec|prepare)\(/;
/** The relative imports of a file: static (`from '...'`) and lazy (`import('...')`) alike. */
const imports = (text: string) =>
  [...text.matchAll(/from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]);

/**
 * A layer that serves the domain: http/ (its errors, http/http.ts, aside: the domain throws them),
 * the controls and the embedded server.
 */
const servesDomain = (i: string) => /^\.\.\/(http\/(?!http\.js$)[\w-]+|control|embedded)\.js$/.test(i);

describe('sandbox store layers', () => {
  it('the domain layer holds no SQL', () => {
    const domain = sources('domain');
    expect(domain.length).toBeGreaterThan(5);
    const offending = domain.filter((f) => SQL.test(read(f)));
    expect(offending).toEqual([]);
  });

  it('repo/ imports only db/, other repo modules and leaf helpers; db/ imports only db/', () => {
    const bad: string[] = [];
    for (const f of sources('repo')) {
      for (const i of imports(read(f))) if (!/^\.\/|^\.\.\/db\/|^\.\.\/isbn\.js$/.test(i)) bad.push(`${f} -> ${i}`);
    }
    for (const f of sources('db')) {
      for (const i of imports(read(f))) if (!i.startsWith('./')) bad.push(`${f} -> ${i}`);
    }
    expect(bad).toEqual([]);
  });

  it('a domain area does not import the layers that serve it (http/: pages, server, service, router, control routes)', () => {
    const bad: string[] = [];
    for (const f of sources('domain')) {
      for (const i of imports(read(f))) if (servesDomain(i)) bad.push(`${f} -> ${i}`);
    }
    expect(bad).toEqual([]);
  });

  it('knows the imports that would break the layers', () => {
    // A pattern that read nothing would pass everything.
    expect(imports(read('db/turn.ts'))).toContain('./checkpointer.js');
    expect(imports(read('db/store.ts'))).toContain('./turn.js');
    expect(
      ['../http/pages.js', '../http/server.js', '../control.js', '../embedded.js'].filter(servesDomain),
    ).toHaveLength(4);
    expect(['../http/http.js', './books.js', '../repo/books.js'].filter(servesDomain)).toEqual([]);
  });
});
