// (m) A fixture of 1,000 steps (issue 30, item 3) applied by `bookdist sandbox fixtures apply` to
// the embedded sandbox's database (a fresh data directory): under 5 s, the whole command.
// 250 users, each with an order, 20 pages read and a code batch of 5 — every step a service
// operation or a control, most of them using an earlier step's result.
//
// `node bench/fixtures.mjs` runs it alone (after `npm run build`); bench/run.mjs runs it too.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export function fixtureBench({ log = console.log } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-fixture-'));
  try {
    const steps = [{ name: 'book', call: 'book.isbn', params: { isbn: '9781614001379' } }];
    for (let i = 0; steps.length < 1000; i++) {
      steps.push({
        name: `u${i}`,
        call: 'user.create',
        payload: { email: `bench.fixture.${i}@example.com`, first_name: 'Bench' },
      });
      steps.push({
        name: `o${i}`,
        call: 'order.external',
        payload: {
          username: `\${u${i}.username}`,
          digital_pricing: ['${book.book.digital_pricing.0.id}'],
          billing_address: { full_name: 'Bench', postal_code: '1', country: 'US' },
          order_type: 'TestPlan',
          org: 'bench',
          send_email: false,
        },
      });
      steps.push({
        name: `r${i}`,
        control: 'usage',
        with: { username: `\${u${i}.username}`, hash_id: '${book.book.hash_id}', viewed: 20 },
      });
      steps.push({
        name: `c${i}`,
        call: 'codes.generate',
        payload: { hash_id: '${book.book.hash_id}', org: 'bench', count: 5 },
      });
    }
    steps.length = 1000;
    const file = join(dir, 'bench.fixture.json');
    writeFileSync(file, JSON.stringify({ name: 'bench', steps }));
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BOOKDIST_DATA_DIR: join(dir, 'data'),
      BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    };
    // Seed the database first: the bench times the fixture, not the first run's seeding.
    spawnSync(process.execPath, [join(root, 'bin', 'bookdist'), 'sandbox', 'clock', 'show'], { env, encoding: 'utf8' });
    const t0 = process.hrtime.bigint();
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin', 'bookdist'), 'sandbox', 'fixtures', 'apply', file, '--json'],
      { env, encoding: 'utf8', maxBuffer: 1 << 28 },
    );
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`fixtures apply exited ${r.status}: ${r.stderr.slice(0, 500)}`);
    const out = JSON.parse(r.stdout);
    if (out.applied !== 1000) throw new Error(`applied ${out.applied} steps, not 1000`);
    const ok = secs < 5;
    const line = `${ok ? 'PASS' : 'FAIL'}  (m) sandbox fixtures apply of 1,000 steps (embedded database): ${secs.toFixed(2)}s (target < 5s)  ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`;
    log(line);
    return [{ ok, line }];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = fixtureBench().every((l) => l.ok) ? 0 : 1;
}
