// (k) Completion of ids at TAB (issue 33): one answer through the real shells, bash, zsh and fish,
// with 10,000 cached ids of each kind, against `node -e 0` in the same run. Each shell loads the
// generated script once and times each answer itself (bash and zsh: EPOCHREALTIME; fish: date,
// whose own fork is counted in, which only makes fish's figure worse). Target: the 95th
// percentile of an answer at most 0.5x the median of `node -e 0`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KINDS = ['book', 'isbn', 'sku', 'user', 'email', 'order', 'purchase', 'price'];
const N = 10_000;
const ROUNDS = 40;

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function hex(i, len) {
  return (i.toString(16).padStart(8, '0') + 'ab'.repeat(len)).slice(0, len);
}

/** A cache of N ids of each kind for the `sandbox` profile, as src/cache/ids.ts writes it. */
function fillCache(dir) {
  const scope = '0123456789abcdef';
  mkdirSync(join(dir, 'ids', scope), { recursive: true, mode: 0o700 });
  mkdirSync(join(dir, 'ids', 'profiles'), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'ids', 'profiles', 'sandbox'), `${scope}\n`);
  const id = {
    book: (i) => hex(i, 40),
    isbn: (i) => `978${String(i).padStart(10, '0')}`,
    sku: (i) => `SKU-${i}`,
    user: (i) => hex(i, 30),
    email: (i) => `reader${i}@example.com`,
    order: (i) => String(i),
    purchase: (i) => String(i),
    price: (i) => String(i),
  };
  for (const kind of KINDS) {
    let text = '';
    for (let i = 0; i < N; i++)
      text += `${id[kind](i)}\tThe Lighthouse Keeper's Ledger volume ${i} · Margaret Ellison\n`;
    writeFileSync(join(dir, 'ids', scope, `${kind}.tsv`), text, { mode: 0o600 });
  }
}

const LINES = [
  ['book', 'get', ''],
  ['book', 'get', '000012'],
  ['user', 'get', '0000'],
  ['order', 'refund', '--order-id', '99'],
];

function bashTimes(script, env) {
  const calls = LINES.map((w) => `t ${w.map((x) => `'${x}'`).join(' ')}`).join('\n');
  const prog = `source "$1"
t() { COMP_WORDS=(bookdist "$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); local a=$EPOCHREALTIME; _bookdist; local b=$EPOCHREALTIME; echo "\${#COMPREPLY[@]} $a $b"; }
for ((r = 0; r < ${ROUNDS}; r++)); do
${calls}
done`;
  return times(spawnSync('bash', ['--norc', '--noprofile', '-c', prog, 'bash', script], { env, encoding: 'utf8' }));
}

function zshTimes(script, env) {
  // _bookdist calls compadd/_wanted (completion widgets); outside ZLE they are stubbed to count.
  const calls = LINES.map((w) => `t ${w.map((x) => `'${x}'`).join(' ')}`).join('\n');
  const prog = `zmodload zsh/datetime
compadd() { local -a v; v=("\${(@P)\${@[-1]}}"); n=\${#v}; }
_wanted() { while [[ $1 == -* ]]; do shift; done; shift 3; "$@"; }
_describe() { n=-1 }
source "$1"
t() { words=(bookdist "$@"); CURRENT=\${#words}; PREFIX=\${words[-1]}; n=0; local a=$EPOCHREALTIME; _bookdist; local b=$EPOCHREALTIME; print "$n $a $b"; }
for r in {1..${ROUNDS}}; do
${calls}
done`;
  return times(spawnSync('zsh', ['-f', '-c', prog, 'zsh', script], { env, encoding: 'utf8' }));
}

function fishTimes(script, env) {
  const calls = LINES.map(
    (w) => `t ${JSON.stringify(['bookdist', ...w].join(' ') + (w.at(-1) === '' ? ' ' : ''))}`,
  ).join('\n');
  const prog = `source $argv[1]
function t
  set -l a (date +%s.%N)
  set -l n (count (complete -C $argv[1]))
  set -l b (date +%s.%N)
  echo $n $a $b
end
for r in (seq ${ROUNDS})
${calls}
end`;
  return times(spawnSync('fish', ['--no-config', '-c', prog, script], { env, encoding: 'utf8' }));
}

function times(r) {
  if (r.status !== 0) throw new Error(`shell exited ${r.status}: ${r.stderr}`);
  const rows = r.stdout
    .trim()
    .split('\n')
    .map((l) => l.split(' ').map(Number));
  if (rows.some(([n]) => !(n > 0 || n === -1)))
    throw new Error(`a completion offered nothing:\n${r.stdout.slice(0, 500)}`);
  return rows.map(([, a, b]) => (b - a) * 1000);
}

export async function completionBench({ root, NODE, target }) {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-completion-'));
  try {
    fillCache(join(dir, 'cache', 'bookdist'));
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_CACHE_HOME: join(dir, 'cache'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      TERM: 'dumb',
    };
    const scripts = {};
    for (const [shell, file] of [
      ['bash', 'bookdist.bash'],
      ['zsh', '_bookdist'],
      ['fish', 'bookdist.fish'],
    ])
      scripts[shell] = join(root, 'completions', file);
    const nodeMs = [];
    for (let i = 0; i < 20; i++) {
      const t = process.hrtime.bigint();
      spawnSync(NODE, ['-e', '0']);
      nodeMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const floor = quantile(nodeMs, 0.5);
    for (const [shell, fn] of [
      ['bash', bashTimes],
      ['zsh', zshTimes],
      ['fish', fishTimes],
    ]) {
      const have = spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
      if (!have) {
        target(`(k) id completion in ${shell}, p95 of an answer / node -e 0`, 99, '<=', 0.5, 'x', `(${shell} missing)`);
        continue;
      }
      const ms = fn(scripts[shell], env);
      const p95 = quantile(ms, 0.95);
      target(
        `(k) id completion in ${shell}, p95 of an answer / node -e 0`,
        p95 / floor,
        '<=',
        0.5,
        'x',
        `(p95 ${p95.toFixed(1)} ms, median ${quantile(ms, 0.5).toFixed(1)} ms, node -e 0 ${floor.toFixed(1)} ms; 10,000 ids of each kind)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run on its own: node bench/completion.mjs
if (import.meta.url === `file://${process.argv[1]}`) {
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('..', import.meta.url));
  await completionBench({
    root,
    NODE: process.execPath,
    target: (name, value, cmp, goal, unit, detail) =>
      console.log(
        `${value <= goal ? 'PASS' : 'FAIL'}  ${name}: ${value.toFixed(2)}${unit} (target ≤ ${goal}${unit}) ${detail}`,
      ),
  });
}
