// Help of every command of the resource groups: a one-line summary, a description naming what it
// does on the service, typed flags, and 2–3 examples, by `--help` and by `bookdist help ...`.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { run } from '../helpers/run.js';

const VERBS: Array<[string, string, RegExp]> = [
  ['book', 'get', /GET \/v1\/book\//],
  ['book', 'pricing', /\/pricing\//],
  ['book', 'search', /POST \/v1\/book\/search\//],
  ['book', 'list', /\/v1\/book\/index\//],
  ['book', 'viewer', /\/v1\/book\/viewer\//],
  ['user', 'invite', /POST \/v1\/user\/invite\//],
  ['user', 'create', /POST \/v1\/user\//],
  ['user', 'get', /\/v1\/user\/email\//],
  ['user', 'orders', /\/orders\//],
  ['user', 'purchase', /\/purchase\//],
  ['order', 'create', /POST \/v1\/order\/external\//],
  ['order', 'refund', /POST \/v1\/order\/refund\//],
  ['order', 'free', /POST \/v1\/order\/free\//],
  ['codes', 'summary', /GET \/v1\/codes\/summary\//],
  ['import', 'search', /\/v1\/import\/search\//],
  ['offers', 'get', /\/api\/offers\.json/],
  ['offers', 'checkout', /\/checkout/],
];

describe('command tree', () => {
  const program = buildProgram();
  it.each(VERBS)('%s %s has a one-line summary and a description of its request', (group, verb, request) => {
    const g = program.commands.find((c) => c.name() === group)!;
    expect(g.summary()).toBeTruthy();
    const cmd = g.commands.find((c) => c.name() === verb)!;
    expect(cmd, `${group} ${verb}`).toBeDefined();
    expect(cmd.summary()).toMatch(/^[a-z].{10,70}$/);
    expect(cmd.summary()).not.toContain('\n');
    expect(cmd.description()).toMatch(request);
    for (const o of cmd.options) expect(o.description, `${group} ${verb} ${o.flags}`).toBeTruthy();
  });
});

describe('help output', () => {
  it.concurrent.each(VERBS)('bookdist %s %s --help shows flags and 2–3 examples', async (group, verb) => {
    const [flag, topic] = await Promise.all([run([group, verb, '--help']), run(['help', group, verb])]);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain(`Usage: bookdist ${group} ${verb}`);
    const examples = flag.stdout.split('Examples:')[1] ?? '';
    const n = examples.split('\n').filter((l) => l.startsWith('  $ bookdist ')).length;
    expect(n).toBeGreaterThanOrEqual(2);
    expect(n).toBeLessThanOrEqual(3);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toContain(`Usage: bookdist ${group} ${verb}`);
  });

  it('shows value types and defaults of flags', async () => {
    const r = await run(['book', 'search', '--help']);
    expect(r.stdout).toMatch(/--limit <n>\s+rows per page, a whole number/);
    expect(r.stdout).toMatch(/--offset <n>\s+rows to skip, a whole number \(default: "0"\)/);
  });
});
