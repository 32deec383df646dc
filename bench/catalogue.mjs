// (j) `sandbox catalogue load` at scale: an ONIX 3.0 file of 100,000 products (digital editions
// with a print ISBN, a lifetime and a rental price, contributors, a description; every tenth a
// print edition, skipped) loaded into a fresh sandbox database. Targets: peak memory under
// 200 MB, and at most 3x the floor, a bare streaming parse of the same file with saxes (decode +
// parse, no handlers) measured in the same run. Both sides are timed in CPU seconds of their own
// process (user + system), so the machine's other load does not move the ratio; wall times are
// printed beside them. The load runs as a user runs it, through bin/bookdist (its V8 flags
// included). CPU time still swings from run to run on a shared machine (the memory traffic of
// other tenants: one session's five rounds of the re-send gave per-round ratios from 2.71 to
// 4.86, and its two rows' floors, files of the same size, medians 6.01 s and 4.90 s), both within
// a minute and from one minute to the next. So each load runs between two runs of the floor
// (F L F L ... L F: BENCH_CATALOGUE_ROUNDS loads, 7 by default, and one floor more), each load
// into a copy of the same database; a round's ratio is its load over the mean of the floors
// either side of it (a drift of the machine's load over a minute moves both), and the row's
// ratio is the median of its rounds' ratios (a noisy round moves it by one place, not by its
// size). The ratio of the medians is printed beside it.
//
// (j2) The same feed sent again as updates: every product is already in the sandbox
// (NotificationType 03), and each one comes back with a new title and new prices (the worst case
// for a re-send: every book's text-index entry and every price changes). Target: at most 3x the
// CPU of a bare saxes parse of the re-sent file, measured in the same run, as for the first load.
import { spawnSync } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PRODUCTS = Number(process.env.BENCH_CATALOGUE_PRODUCTS ?? 100_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_CATALOGUE_ROUNDS ?? 7));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function isbn13(first12) {
  const sum = [...first12].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return first12 + ((10 - (sum % 10)) % 10);
}

const WORDS =
  'harbour tide lantern keeper ledger salt cedar orchard winter atlas quiet letters meridian island map apprentice stone garden river coast weather north light road village'.split(
    ' ',
  );
const word = (i) => WORDS[i % WORDS.length];
const cap = (s) => s[0].toUpperCase() + s.slice(1);

/** `revision` 1: the same products with another title and other prices (a re-sent feed's updates). */
export async function writeOnix(path, n, revision = 0) {
  const out = createWriteStream(path);
  const write = (s) => (out.write(s) ? undefined : new Promise((r) => out.once('drain', r)));
  await write(`<?xml version="1.0" encoding="UTF-8"?>
<ONIXMessage release="3.0" xmlns="http://ns.editeur.org/onix/3.0/reference">
<Header><Sender><SenderName>Bench Press</SenderName></Sender><SentDateTime>20261101</SentDateTime><DefaultLanguageOfText>eng</DefaultLanguageOfText><DefaultCurrencyCode>USD</DefaultCurrencyCode></Header>
`);
  for (let i = 0; i < n; i++) {
    const own = isbn13('9791' + String(i).padStart(8, '0'));
    const print = isbn13('9792' + String(i).padStart(8, '0'));
    const isPrint = i % 10 === 9;
    const title = `${cap(word(i + revision))} ${cap(word(i >> 3))} of the ${cap(word(i >> 6))} ${i}`;
    await write(`<Product>
<RecordReference>bench-${i}</RecordReference><NotificationType>03</NotificationType>
<ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isPrint ? print : own}</IDValue></ProductIdentifier>
<ProductIdentifier><ProductIDType>01</ProductIDType><IDValue>BENCH-${isPrint ? 'P' : 'E'}-${i}</IDValue></ProductIdentifier>
<DescriptiveDetail><ProductComposition>00</ProductComposition><ProductForm>${isPrint ? 'BC' : 'ED'}</ProductForm>
<TitleDetail><TitleType>01</TitleType><TitleElement><TitleElementLevel>01</TitleElementLevel><TitlePrefix>The</TitlePrefix><TitleWithoutPrefix>${title}</TitleWithoutPrefix><Subtitle>A ${word(i + 3)} story</Subtitle></TitleElement></TitleDetail>
<Contributor><SequenceNumber>1</SequenceNumber><ContributorRole>A01</ContributorRole><PersonNameInverted>${cap(word(i + 5))}, ${cap(word(i + 7))}</PersonNameInverted></Contributor>
<Language><LanguageRole>01</LanguageRole><LanguageCode>eng</LanguageCode></Language>
<Extent><ExtentType>00</ExtentType><ExtentValue>${120 + (i % 400)}</ExtentValue><ExtentUnit>03</ExtentUnit></Extent>
</DescriptiveDetail>
<CollateralDetail><TextContent><TextType>03</TextType><ContentAudience>00</ContentAudience><Text textformat="02">&lt;p&gt;A ${word(i)} and a ${word(i + 1)} by the ${word(i + 2)} &amp;amp; the ${word(i + 4)}.&lt;/p&gt;</Text></TextContent></CollateralDetail>
<PublishingDetail><Publisher><PublishingRole>01</PublishingRole><PublisherName>Bench Press</PublisherName></Publisher><PublishingDate><PublishingDateRole>01</PublishingDateRole><Date>${2000 + (i % 25)}0101</Date></PublishingDate></PublishingDetail>
<RelatedMaterial><RelatedProduct><ProductRelationCode>${isPrint ? '27' : '13'}</ProductRelationCode><ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isPrint ? own : print}</IDValue></ProductIdentifier></RelatedProduct></RelatedMaterial>
<ProductSupply><SupplyDetail><Supplier><SupplierRole>01</SupplierRole><SupplierName>Bench Press</SupplierName></Supplier><ProductAvailability>20</ProductAvailability>
<Price><PriceType>02</PriceType><PriceAmount>${(5 + revision + (i % 20)).toFixed(2)}</PriceAmount><CurrencyCode>USD</CurrencyCode></Price>
<Price><PriceType>02</PriceType><PriceCondition><PriceConditionType>10</PriceConditionType><PriceConditionQuantity><PriceConditionQuantityType>01</PriceConditionQuantityType><Quantity>30</Quantity><QuantityUnit>07</QuantityUnit></PriceConditionQuantity></PriceCondition><PriceAmount>${revision ? '3.49' : '2.99'}</PriceAmount><CurrencyCode>USD</CurrencyCode></Price>
</SupplyDetail></ProductSupply>
</Product>
`);
  }
  await write('</ONIXMessage>\n');
  await new Promise((r) => out.end(r));
}

/** Run `cmd args` in a process of its own; it prints CPU_MS=<ms> and MAXRSS_KB=<kb> on stderr as it exits. */
function measured(cmd, args, env) {
  const started = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = /CPU_MS=([\d.]+)/.exec(r.stderr);
  const rss = /MAXRSS_KB=(\d+)/.exec(r.stderr);
  if (r.status !== 0 || !cpu || !rss) throw new Error(`measured run failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { cpuMs: Number(cpu[1]), rssMb: Number(rss[1]) / 1024, wallMs, stderr: r.stderr, stdout: r.stdout };
}

const REPORT = `
    process.on('exit', () => {
      const u = process.resourceUsage();
      process.stderr.write('\\nCPU_MS=' + (u.userCPUTime + u.systemCPUTime) / 1000 + '\\nMAXRSS_KB=' + u.maxRSS + '\\n');
    });`;

/**
 * The floor: decode and parse `file` as a stream with saxes, nothing else, on the Node the load
 * runs on (bin/bookdist's: the pinned one of the devDependencies when present). The Node that
 * runs the bench is whichever `node` came first on PATH (Node 20 when run as `node
 * bench/catalogue.mjs`, the pinned 24 under `npm run`), so the floor's Node, and the ratio,
 * depended on how the bench was started.
 */
function bareParse(root, NODE, file, env) {
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
  if (existsSync(pinned)) NODE = pinned;
  const saxes = JSON.stringify(join(root, 'node_modules', 'saxes', 'saxes.js'));
  const script = `
    import { createReadStream } from 'node:fs';
    import { createRequire } from 'node:module';
    const { SaxesParser } = createRequire(import.meta.url)(${saxes});
    const parser = new SaxesParser({ position: true });
    let products = 0;
    parser.on('opentag', (t) => { if (t.name === 'Product') products++; });
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for await (const chunk of createReadStream(process.argv[1], { highWaterMark: 64 * 1024 })) parser.write(decoder.decode(chunk, { stream: true }));
    parser.close();
    process.stdout.write(String(products));${REPORT}`;
  return measured(NODE, ['--input-type=module', '-e', script, file], env);
}

/**
 * `bookdist sandbox catalogue load file --db db --json` as a user runs it: through bin/bookdist,
 * whose sh launcher picks the Node and the V8 flags; a module preloaded through NODE_OPTIONS
 * reports the process's CPU time and peak memory as it exits.
 */
function cliLoad(root, report, file, db, env) {
  const run = measured(join(root, 'bin', 'bookdist'), ['sandbox', 'catalogue', 'load', file, '--db', db, '--json'], {
    ...env,
    NODE_OPTIONS: `--import=${report}`,
  });
  return { ...run, summary: JSON.parse(run.stdout) };
}

export async function catalogueBench({ root, NODE, target, fmt }) {
  const dir = mkdtempSync(join(tmpdir(), 'bookdist-bench-catalogue-'));
  const n = (k) => k.toLocaleString('en-US');
  try {
    const file = join(dir, 'feed.xml');
    const again = join(dir, 'feed-again.xml');
    const made = Date.now();
    await writeOnix(file, PRODUCTS);
    await writeOnix(again, PRODUCTS, 1);
    console.log(
      `(j) ONIX files of ${n(PRODUCTS)} products: ${(statSync(file).size / 1e6).toFixed(0)} MB and a re-send of ${(statSync(again).size / 1e6).toFixed(0)} MB, written in ${fmt(Date.now() - made)}`,
    );
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BOOKDIST_DATA_DIR: join(dir, 'data'),
      BOOKDIST_CONFIG_DIR: join(dir, 'config'),
    };
    const report = join(dir, 'report.mjs');
    writeFileSync(report, REPORT);

    // The load: into a database seeded beforehand (its RSA keys are not the load's cost).
    const seededDb = join(dir, 'seeded.db');
    const seeded = spawnSync(
      NODE,
      [join(root, 'bin', 'bookdist'), 'sandbox', 'credentials', '--db', seededDb, '--json'],
      { env, encoding: 'utf8' },
    );
    if (seeded.status !== 0) throw new Error(`seeding failed: ${seeded.stderr}`);
    const loadedDb = join(dir, 'loaded.db');
    const db = join(dir, 'load.db');
    /** A fresh copy of `from` at `db` (closed databases: no WAL to carry). */
    const copyDb = (from) => {
      for (const ext of ['', '-wal', '-shm']) rmSync(db + ext, { force: true });
      copyFileSync(from, db);
    };
    /** Rounds of the load of `feed` into a copy of `from`, each between two runs of the floor. */
    const rounds = (feed, from, check) => {
      const floors = [bareParse(root, NODE, feed, env)];
      const loads = [];
      for (let i = 0; i < ROUNDS; i++) {
        copyDb(from);
        const load = cliLoad(root, report, feed, db, env);
        check(load.summary, load.stdout);
        loads.push(load);
        floors.push(bareParse(root, NODE, feed, env));
      }
      const pick = (runs, k) => median(runs.map((r) => r[k]));
      const ratios = loads.map((l, i) => l.cpuMs / ((floors[i].cpuMs + floors[i + 1].cpuMs) / 2));
      return {
        floor: {
          cpuMs: pick(floors, 'cpuMs'),
          wallMs: pick(floors, 'wallMs'),
          rssMb: pick(floors, 'rssMb'),
          stdout: floors[0].stdout,
        },
        load: {
          cpuMs: pick(loads, 'cpuMs'),
          wallMs: pick(loads, 'wallMs'),
          rssMb: Math.max(...loads.map((r) => r.rssMb)),
          summary: loads[0].summary,
        },
        ratio: median(ratios),
        ratios: ratios.map((r) => r.toFixed(2)).join('/'),
      };
    };
    const line = (what, r) =>
      console.log(
        `(j) ${what}: ${n(r.load.summary.added)} added, ${n(r.load.summary.updated)} updated, ${n(r.load.summary.skipped)} skipped, ${r.load.summary.refused} refused in ` +
          `${fmt(r.load.cpuMs)} CPU (${fmt(r.load.wallMs)} wall), peak RSS ${r.load.rssMb.toFixed(1)} MB; bare saxes parse: ${fmt(r.floor.cpuMs)} CPU ` +
          `(${fmt(r.floor.wallMs)} wall, ${r.floor.stdout} products), peak RSS ${r.floor.rssMb.toFixed(1)} MB; medians of ${ROUNDS} loads and ${ROUNDS + 1} floors, ` +
          `F L F ... L F (each round's ratio, its load over the floors either side: ${r.ratios}; median ${r.ratio.toFixed(2)}; ratio of the medians ${(r.load.cpuMs / r.floor.cpuMs).toFixed(2)})`,
      );

    const first = rounds(file, seededDb, (s, out) => {
      if (s.added + s.skipped !== PRODUCTS || s.refused !== 0)
        throw new Error(`the load did not take every product: ${out.slice(0, 500)}`);
    });
    line('loaded', first);
    // The database as the first load left it: where every re-send starts.
    copyFileSync(db, loadedDb);
    if (existsSync(`${db}-wal`)) throw new Error('the load left a WAL behind: its database was not closed');

    // The re-send: every product already there, each one updated.
    const again2 = rounds(again, loadedDb, (u, out) => {
      if (u.updated !== first.load.summary.added || u.added !== 0 || u.refused !== 0)
        throw new Error(`the re-send did not update every book: ${out.slice(0, 500)}`);
    });
    line('re-sent', again2);

    target('(j) catalogue load of 100,000 ONIX products: peak memory', first.load.rssMb, '<', 200, ' MB');
    target(
      "(j) catalogue load of 100,000 ONIX products vs a bare saxes parse of the file (CPU, median of the rounds' ratios)",
      first.ratio,
      '<=',
      3,
    );
    target('(j) the same feed re-sent (every book updated): peak memory', again2.load.rssMb, '<', 200, ' MB');
    target(
      "(j) the same feed re-sent (every book updated) vs a bare saxes parse of the file (CPU, median of the rounds' ratios)",
      again2.ratio,
      '<=',
      3,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run alone: node bench/catalogue.mjs (after `node scripts/build.mjs`).
if (import.meta.url === `file://${process.argv[1]}`) {
  const { fileURLToPath } = await import('node:url');
  const root = fileURLToPath(new URL('..', import.meta.url));
  let failed = false;
  const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms.toFixed(1)}ms`);
  const target = (name, value, cmp, goal, unit = 'x') => {
    const ok = cmp === '<=' ? value <= goal : value < goal;
    if (!ok) failed = true;
    console.log(
      `${ok ? 'PASS' : 'FAIL'}  ${name}: ${value.toFixed(unit === 'x' ? 2 : 0)}${unit} (target ${cmp === '<=' ? '≤' : '<'} ${goal}${unit})`,
    );
  };
  await catalogueBench({ root, NODE: process.execPath, target, fmt });
  process.exitCode = failed ? 1 : 0;
}
