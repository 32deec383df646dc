#!/usr/bin/env node
// npm run mutate [-- group... [-- stryker options]]: Stryker on each group of stryker.config.mjs (all when none is named),
// one after the other, niced (19: the machines here are shared), then the score of each from its JSON
// report, with each survivor's line and change. See stryker.config.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GROUPS } from '../stryker.config.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

// Stryker 9.6 needs Node 21 or later (Map.groupBy). `node scripts/mutate.mjs` may run under an older
// Node first on PATH (20 on some machines here): Stryker is then started with the project's pinned
// Node (the `node` devDependency, node_modules/.bin/node), not through its `#!/usr/bin/env node` line.
const pinned = `${root}node_modules/.bin/node`;
const nodeFor = (bin) => spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim() ?? '';
const major = (v) => Number(v.split('.')[0]);
const node = major(process.versions.node) >= 21 ? process.execPath : existsSync(pinned) ? pinned : undefined;
if (!node || major(nodeFor(node)) < 21) {
  console.error(
    `npm run mutate: Stryker needs Node 21 or later; this is ${process.version} and ${pinned} is missing or older: run npm install`,
  );
  process.exit(2);
}
const stryker = `${root}node_modules/@stryker-mutator/core/bin/stryker.js`;
// `npm run mutate -- api-client -- --mutate src/api/retry.ts`: what follows a second `--` goes to
// Stryker as it is (here: only one file of the group; its report then holds only that file).
const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const asked = dashes < 0 ? args : args.slice(0, dashes);
const extra = dashes < 0 ? [] : args.slice(dashes + 1);
const unknown = asked.filter((g) => !(g in GROUPS));
if (unknown.length) {
  console.error(`npm run mutate: no group ${unknown.join(', ')}; the groups are ${Object.keys(GROUPS).join(', ')}`);
  process.exit(2);
}
const groups = asked.length ? asked : Object.keys(GROUPS);
/**
 * CPU seconds used by this process's finished children (Linux: /proc/self/stat's cutime and cstime,
 * which include their own waited-for children): what a group costs whatever the machine's load.
 */
function childCpu() {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return undefined;
  }
}
let failed = 0;
/** Groups whose run failed: their report, if any, is an older run's and is not shown. */
const broken = new Set();
for (const g of groups) {
  console.log(`\n== mutate ${g}: ${GROUPS[g].mutate.join(' ')}`);
  const started = Date.now();
  const cpu0 = childCpu();
  const r = spawnSync('nice', ['-n', '19', node, stryker, 'run', 'stryker.config.mjs', ...extra], {
    cwd: root,
    stdio: 'inherit',
    // BOOKDIST_MUTATE_TESTS: the order the group's test files run in (test/mutation/sequencer.ts).
    env: {
      ...process.env,
      BOOKDIST_MUTATE: '1',
      BOOKDIST_MUTATE_GROUP: g,
      BOOKDIST_MUTATE_TESTS: GROUPS[g].tests.join('\n'),
    },
  });
  if (r.status !== 0) {
    failed++;
    broken.add(g);
  }
  const cpu1 = childCpu();
  const cpu = cpu0 === undefined || cpu1 === undefined ? '' : `, ${Math.round(cpu1 - cpu0)} s CPU`;
  console.log(`== ${g}: ${Math.round((Date.now() - started) / 1000)} s${cpu}, exit ${r.status}`);
}

// Score per file: killed (and timed out) over all mutants that count (no coverage counts as survived).
console.log('\nmutation score (killed / (killed + survived + no coverage)), report in reports/mutation/<group>.html');
for (const g of groups) {
  const file = `${root}reports/mutation/${g}.json`;
  if (broken.has(g)) {
    console.log(`  ${g}: the run failed (see above); no score`);
    continue;
  }
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  for (const [path, f] of Object.entries(report.files)) {
    const n = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0 };
    for (const m of f.mutants) if (m.status in n) n[m.status]++;
    const counted = n.Killed + n.Timeout + n.Survived + n.NoCoverage;
    const score = counted ? (100 * (n.Killed + n.Timeout)) / counted : 100;
    const ignored = f.mutants.filter((m) => m.status === 'Ignored').length;
    console.log(
      `  ${score.toFixed(1).padStart(5)}%  ${path}  (${n.Survived + n.NoCoverage} of ${counted} survive; ${ignored} disabled, test/mutation/accepted.md)`,
    );
    for (const m of f.mutants) {
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const { line, column } = m.location.start;
      console.log(
        `           ${path}:${line}:${column} ${m.mutatorName} → ${JSON.stringify(m.replacement ?? '').slice(0, 60)}${m.status === 'NoCoverage' ? ' (no test reaches it)' : ''}`,
      );
    }
  }
}
process.exit(failed ? 1 : 0);
