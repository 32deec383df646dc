// The CPU each test file costs, for BOOKDIST_TEST_CPU=<file> npm test (a setup file of every test
// file, idle without the variable): after each file, one JSON line with the CPU its worker spent
// on it (user+sys), the CPU of the processes it started and waited for (bash, bin/bookdist, the
// shells and tools: the kernel's cutime/cstime), and its wall time. CPU time holds on a loaded
// machine where wall time does not: the figures to compare a change to the tests by.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function ticks(): { self: number; children: number } {
  // /proc/self/stat: the command may hold spaces, so count fields after the last ')'.
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return { self: (Number(f[11]) + Number(f[12])) * TICK_MS, children: (Number(f[13]) + Number(f[14])) * TICK_MS };
}

const log = process.env.BOOKDIST_TEST_CPU;
const start = log ? ticks() : undefined;
const t0 = Date.now();

if (log && start)
  afterAll(({}, suite) => {
    const file = suite.file?.filepath ?? suite.name;
    const end = ticks();
    const line = {
      file,
      wallMs: Date.now() - t0,
      cpuMs: end.self - start.self,
      childCpuMs: end.children - start.children,
      selfTotalMs: end.self,
    };
    appendFileSync(log, JSON.stringify(line) + '\n');
  });
