// The typed client a partner copies (docs/partner-client/): TypeScript types generated from the
// served /openapi.json with openapi-typescript, the client (openapi-fetch with a signing
// middleware) type-checked under tsc --strict, then run against the sandbox with CryptoAuth and
// with SharedKeyAuth: index, profile, a book by ISBN, a search, code generation with an
// Idempotency-Key (sent twice, the same codes back).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, WELL_KNOWN, type TestSandbox } from '../helpers/sandbox.js';
import { NODE, ROOT, runTool } from './tools.js';
import { spawn } from 'node:child_process';

let sb: TestSandbox;
let dir: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  // Inside the repository (its .bookdist-tmp/ is ignored by git), so that openapi-fetch and
  // @types/node resolve from its node_modules as they would from a partner's project.
  mkdirSync(join(ROOT, '.bookdist-tmp'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.bookdist-tmp', 'partner-client-'));
  for (const f of ['client.ts', 'example.ts']) copyFileSync(join(ROOT, 'docs/partner-client', f), join(dir, f));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        noEmit: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      // wrong.ts is the control: a payload of the wrong type, which must be the only error.
      files: ['client.ts', 'example.ts', 'schema.d.ts', 'wrong.ts'],
    }),
  );
});

afterAll(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function runExample(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['example.ts'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        NODE_DISABLE_COMPILE_CACHE: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the typed client of docs/partner-client', () => {
  it('generates its types from the served document with openapi-typescript', async () => {
    const r = await runTool('openapi-typescript', [`${sb.url}/openapi.json`, '--output', join(dir, 'schema.d.ts')], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    const types = readFileSync(join(dir, 'schema.d.ts'), 'utf8');
    expect(types).toContain('"/v1/codes/generate/"');
    expect(types).toContain('"Idempotency-Key"?: string');
    expect(types).toContain('"book.search.request"');
  }, 120_000);

  it('type-checks under tsc --strict; the only error is the control, a payload of the wrong type', async () => {
    writeFileSync(
      join(dir, 'wrong.ts'),
      "import type { Payload } from './client.ts';\nexport const p: Payload<'codes.generate.request'> = { hash_id: 'x', org: 'acme', count: 'two' };\n",
    );
    const r = await runTool('tsc', ['-p', join(dir, 'tsconfig.json')], { cwd: dir });
    const errors = r.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors.length, r.stdout + r.stderr).toBe(1);
    expect(errors[0]).toMatch(/^wrong\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 240_000);

  for (const mode of ['crypto', 'shared'] as const) {
    it(`runs its five calls against the sandbox with ${mode === 'crypto' ? 'CryptoAuth' : 'SharedKeyAuth'}`, async () => {
      const env: Record<string, string> = {
        BOOKDIST_BASE_URL: sb.url,
        BOOKDIST_USERNAME: sb.creds.partner.username,
        EXAMPLE_ISBN: WELL_KNOWN.readme.isbn13,
      };
      if (mode === 'crypto') env.BOOKDIST_KEY_FILE = sb.creds.partner.keyFile;
      else env.BOOKDIST_SHARED_KEY = sb.creds.partner.sharedKey;
      const r = await runExample(env);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.call)).toEqual(['index', 'profile', 'book', 'search', 'codes']);
      expect(lines[0].current_version).toBe('v1');
      expect(lines[1].scopes).toContain('codes');
      expect(lines[2]).toMatchObject({ hash_id: WELL_KNOWN.readme.hash_id, title: WELL_KNOWN.readme.title });
      expect(lines[3].count).toBeGreaterThan(0);
      expect(lines[3].titles).toContain(WELL_KNOWN.readme.title);
      expect(lines[4].codes).toHaveLength(2);
      expect(lines[4].retried).toEqual(lines[4].codes);
    });
  }
});
