// `bookdist describe` shows each endpoint's fields (from the endpoint table, over
// GET /v1/describe/): in the table as `name*:type` (* = required), in JSON as the definitions.
// In-process through the stub registry, answered with the table as the sandbox describes it
// (test/sandbox/conformance.test.ts checks that the sandbox's GET /v1/describe/ is exactly this).
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../src/spec/endpoints.js';
import { json } from './_support.js';
import { ok, stubCli, StubRegistry } from './_stubs.js';

const stub = stubCli();
const DESCRIBED = ok({
  endpoints: endpoints().map((e) => ({
    name: e.name,
    methods: e.methods,
    path: e.path,
    aliases: e.aliases ?? [],
    scope: e.scope,
    auth: e.auth,
    summary: e.summary,
    fields: e.fields.map((f) => ({ name: f.name, type: f.type, required: !!f.required, description: f.description })),
  })),
});
const cli = (args: string[], opts: { env?: Record<string, string> } = {}) =>
  stub(new StubRegistry().on('GET', '/v1/describe/', DESCRIBED), args, opts);

describe('bookdist describe', () => {
  it('the table has a fields column with every field of every endpoint', async () => {
    const r = await cli(['describe', '-o', 'table'], { env: { COLUMNS: '400' } });
    expect(r.code).toBe(0);
    // Cells of a row: between box borders, or (a borderless table) separated by two or more spaces.
    const cells = (line: string) =>
      (line.includes('│') ? line.split('│').slice(1, -1) : line.split(/ {2,}/)).map((c) => c.trim());
    const rows = r.stdout.split('\n').map(cells);
    for (const e of endpoints()) {
      const row = rows.find((c) => c[0] === e.name);
      expect(row, e.name).toBeDefined();
      const cell = row![row!.length - 1];
      if (!e.fields.length) expect(cell, e.name).toBe('-');
      else expect(cell, e.name).toBe(e.fields.map((f) => `${f.name}${f.required ? '*' : ''}:${f.type}`).join(' '));
    }
    expect(r.stdout).toMatch(/book\.viewer .*GET\|POST.*username\*:string hash_id\*:string/);
  });

  it('--endpoint narrows to one; JSON carries the field definitions', async () => {
    const r = await cli(['describe', '--endpoint', 'codes.generate', '--json']);
    expect(r.code).toBe(0);
    const body = json(r);
    expect(body.endpoints).toHaveLength(1);
    expect(body.endpoints[0].fields.map((f: any) => f.name)).toEqual(
      endpoints()
        .find((e) => e.name === 'codes.generate')!
        .fields.map((f) => f.name),
    );
    const missing = await cli(['describe', '--endpoint', 'nope']);
    expect(missing.code).toBe(3);
  });
});
