// The OpenAPI document as served, linted by the tools partners run (test/openapi/tools.ts):
// redocly with its recommended ruleset and spectral with spectral:oas. The interface fixes the
// final slashes of the paths and literal segments beside parameters; redocly.yaml and
// .spectral.yaml turn off exactly those rules, and with them the document lints clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { redoclyLint, spectralLint, tally, tempDir, type LintProblem } from './tools.js';

let sb: TestSandbox;
let served: string;
let file: string;
const dir = tempDir('bookdist-lint-');

beforeAll(async () => {
  sb = await startTestSandbox();
  served = await (await fetch(sb.url + '/openapi.json')).text();
  file = dir.file('openapi.json', served);
});
afterAll(async () => {
  await sb?.close();
  dir.cleanup();
});

const rules = (ps: LintProblem[], severity: LintProblem['severity']) =>
  [...new Set(ps.filter((p) => p.severity === severity).map((p) => p.rule))].sort();

describe('redocly lint', () => {
  it('recommended ruleset: no error but the final slashes, no illogical composition, no unused component', async () => {
    const ps = await redoclyLint(file, 'recommended');
    expect(rules(ps, 'error'), JSON.stringify(tally(ps))).toEqual(['no-path-trailing-slash']);
    expect(
      ps.filter((p) => p.rule === 'no-illogical-composition-keywords' || p.rule === 'no-unused-components'),
    ).toEqual([]);
    // Besides the rules the interface forces, one warning: the checkout's answer is a 302.
    const other = ps.filter((p) => !['no-path-trailing-slash', 'no-ambiguous-paths'].includes(p.rule));
    expect(other.map((p) => `${p.rule} ${p.where}`)).toEqual([
      'operation-2xx-response #/paths/~1checkout/get/responses',
    ]);
  }, 180_000);

  it("the repo's redocly.yaml: no error, and only the checkout's 302 warned about", async () => {
    const ps = await redoclyLint(file, 'repo');
    expect(tally(ps)).toEqual({ 'warn operation-2xx-response': 1 });
  }, 180_000);
});

describe('spectral lint', () => {
  it('spectral:oas: no error, and no warning but the final slashes', async () => {
    const ps = await spectralLint(file, 'oas');
    expect(tally(ps)).toEqual({ 'warn path-keys-no-trailing-slash': expect.any(Number) });
  }, 180_000);

  it("the repo's .spectral.yaml: nothing at all", async () => {
    expect(await spectralLint(file, 'repo')).toEqual([]);
  }, 180_000);
});

describe('the lint checks can fail', () => {
  it('a one-member anyOf, an unused component and an operation without a description are reported', async () => {
    const doc = JSON.parse(served);
    const form = doc.paths['/v1/codes/generate/'].post.requestBody.content['application/x-www-form-urlencoded'];
    form.schema = { anyOf: [form.schema] };
    doc.components.schemas['profile.request'] = { type: 'object' };
    delete doc.paths['/profile/'].get.description;
    const broken = dir.file('broken.json', JSON.stringify(doc));
    const r = tally(await redoclyLint(broken, 'repo'));
    expect(r['warn no-illogical-composition-keywords']).toBe(1);
    expect(r['warn no-unused-components']).toBe(1);
    const s = tally(await spectralLint(broken, 'repo'));
    expect(s['warn operation-description']).toBe(1);
    expect(s['warn oas3-unused-component']).toBe(1);
  }, 180_000);
});
