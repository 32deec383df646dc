// A sandbox database written by the previous schema opens after an upgrade (its migrations run
// once, in one transaction); one written by a newer bookdist is refused with what to do; and
// `sandbox reset` says whether it keeps the titles loaded from catalogue files.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupKeyFiles } from '../../src/sandbox/control.js';
import { loadCatalogueFile } from '../../src/sandbox/catalogue/index.js';
import { ensureSeeded, SchemaTooNew, schemaVersion } from '../../src/sandbox/seed.js';
import { SCHEMA_VERSION } from '../../src/sandbox/db/schema.js';
import { Store } from '../../src/sandbox/db/store.js';
import { runCli } from '../helpers/cli.js';

const V1 = readFileSync(fileURLToPath(new URL('../fixtures/sandbox/schema-v1.sql', import.meta.url)), 'utf8');
const ONIX = fileURLToPath(new URL('../../docs/samples/catalogue.onix.xml', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bookdist-schema-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A database file as bookdist 0.1.0 (schema 1) left it. */
function v1Database(): string {
  const path = join(dir, 'old.db');
  const db = new DatabaseSync(path);
  db.exec(V1);
  db.close();
  return path;
}

describe('schema versions', () => {
  it('a database made by schema 1 opens: migrated once, its data kept, searchable, catalogues load into it', async () => {
    const path = v1Database();
    const store = new Store(path);
    try {
      expect(schemaVersion(store)).toBe(1);
      ensureSeeded(store);
      expect(schemaVersion(store)).toBe(SCHEMA_VERSION);
      expect(store.all('PRAGMA table_info(books)').map((c) => c.name)).toContain('loaded_at');
      expect(store.get('SELECT count(*) AS n FROM books')!.n).toBe(22);
      expect(
        store.get("SELECT title FROM books WHERE hash_id = 'cee313141a0ce9a22774b32f87855d677d864cfb'")?.title,
      ).toBeDefined();
      ensureSeeded(store); // a second open changes nothing
      expect(schemaVersion(store)).toBe(SCHEMA_VERSION);
      const s = await loadCatalogueFile(store, ONIX);
      expect(s).toMatchObject({ added: 3, refused: 0 });
      expect(
        store.get('SELECT count(*) AS n FROM books_fts WHERE books_fts MATCH \'title : "Tid"\'')!.n,
      ).toBeGreaterThan(0);
    } finally {
      cleanupKeyFiles(store);
      store.close();
    }
  });

  it('a database written by a newer bookdist is refused, saying what to do; reset starts it afresh', async () => {
    const path = v1Database();
    const db = new DatabaseSync(path);
    db.exec(`UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`);
    db.close();
    const store = new Store(path);
    try {
      expect(() => ensureSeeded(store)).toThrow(SchemaTooNew);
      expect(() => ensureSeeded(store)).toThrow(
        /written by a newer bookdist \(schema version 3; this one reads up to 2\)\. Upgrade bookdist.*sandbox reset/,
      );
    } finally {
      store.close();
    }
    const env = { BOOKDIST_DATA_DIR: join(dir, 'data'), BOOKDIST_CONFIG_DIR: join(dir, 'config') };
    const r = await runCli(['sandbox', 'credentials', '--db', path], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('was written by a newer bookdist');
    const reset = await runCli(['sandbox', 'reset', '--db', path, '--yes'], { env });
    expect(reset.code).toBe(0);
    expect((await runCli(['sandbox', 'credentials', '--db', path], { env })).code).toBe(0);
  });

  it('sandbox reset says whether it keeps loaded titles: removed by default, kept with --keep-loaded (same hash ids)', async () => {
    const path = join(dir, 's.db');
    const env = { BOOKDIST_DATA_DIR: join(dir, 'data'), BOOKDIST_CONFIG_DIR: join(dir, 'config') };
    expect((await runCli(['sandbox', 'catalogue', 'load', ONIX, '--db', path], { env })).code).toBe(0);
    const before = await runCli(['sandbox', 'catalogue', 'load', ONIX, '--db', path, '--json'], { env });
    expect(JSON.parse(before.stdout).updated).toBe(3);

    const keep = await runCli(['sandbox', 'reset', '--db', path, '--yes', '--keep-loaded'], { env });
    expect(keep.code).toBe(0);
    expect(keep.stderr).toContain('The 3 titles loaded from catalogue files were kept (same hash ids and price ids).');
    let store = new Store(path);
    const kept = store.get(
      "SELECT b.hash_id, p.title AS publisher FROM books b JOIN publishers p ON p.id = b.publisher_id WHERE eisbn13 = '9781770100015'",
    );
    expect(
      store.get(
        "SELECT count(*) AS n FROM pricing p JOIN books b ON b.id = p.book_id WHERE b.eisbn13 = '9781770100015'",
      )!.n,
    ).toBe(3);
    expect(
      store.get(
        "SELECT count(*) AS n FROM account_publishers ap JOIN publishers p ON p.id = ap.publisher_id WHERE p.title = 'Tidewater Press'",
      )!.n,
    ).toBe(1);
    store.close();
    expect(kept).toMatchObject({ publisher: 'Tidewater Press' });

    const drop = await runCli(['sandbox', 'reset', '--db', path, '--yes'], { env });
    expect(drop.code).toBe(0);
    expect(drop.stderr).toContain('The 3 titles loaded from catalogue files were removed (--keep-loaded keeps them).');
    store = new Store(path);
    expect(store.get('SELECT count(*) AS n FROM books')!.n).toBe(22);
    store.close();
    const plain = await runCli(['sandbox', 'reset', '--db', path, '--yes'], { env });
    expect(plain.stderr).not.toContain('loaded from catalogue files');
  });
});
