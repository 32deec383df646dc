// Help that reads well, for every command of the tree: descriptions are paragraphs (no hard line
// breaks inside one) reflowed to the width — a terminal's, or $COLUMNS piped or not — so that at 80
// and 200 columns no line is wider than the page and no paragraph breaks before the line is full;
// every command but the root ends with a short block naming the global options (described by
// `bookdist help options`), so its own options come first; the root groups its commands.
// Colour: --no-color, NO_COLOR and TERM=dumb turn it off.
import { PassThrough, Writable } from 'node:stream';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { buildProgram } from '../../src/program.js';
import { commandName, documentedCommands } from '../../src/docs/reference.js';
import { paragraphs } from '../../src/commands/help/parts/layout.js';
import { runCli } from '../helpers/cli.js';

const program = buildProgram();
const commands: Command[] = [program, ...documentedCommands(program)];
const words = (c: Command) => commandName(c).split(' ').slice(1);

function sink(isTTY: boolean, columns?: number) {
  let text = '';
  const stream = Object.assign(new Writable({ write: (c, _e, cb) => ((text += c.toString()), cb()) }), {
    isTTY,
    columns,
  });
  return { stream, text: () => text };
}

async function help(args: string[], env: Record<string, string>, tty?: number) {
  const out = sink(tty !== undefined, tty);
  const err = sink(false);
  const stdin = Object.assign(new PassThrough(), { isTTY: tty !== undefined });
  const code = await main([...args, '--help'], {
    io: { stdin, stdout: out.stream, stderr: err.stream, env, cwd: process.cwd() },
    signals: false,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

/** The lines of the description block: after the usage line(s) and a blank line, up to the first section. */
function descriptionLines(text: string): string[] {
  const lines = text.split('\n');
  let i = lines.findIndex((l) => l === '');
  const out: string[] = [];
  const heading =
    /^(Arguments|Options|Commands|Examples|Global options|Service commands|Bulk jobs|Sandbox|Settings)\b.*:$/;
  for (i++; i < lines.length && !heading.test(lines[i]); i++) out.push(lines[i]);
  return out;
}

describe('descriptions are paragraphs', () => {
  it.each(commands.map((c) => [commandName(c), c] as const))('%s: no hard line break inside a paragraph', (_n, c) => {
    // A single \n is allowed only before an indented line (a list or code); paragraphs are split by \n\n.
    expect(c.description()).not.toMatch(/[^\n]\n(?![\n \t])/);
    for (const o of c.options) expect(o.description, o.flags).not.toContain('\n');
  });
});

describe.each([80, 200])('help at %i columns', (width) => {
  it.each(commands.map((c) => [commandName(c), c] as const))(
    '%s: fits, paragraphs filled, ends with the global options',
    async (_n, c) => {
      const r = await help(words(c), { COLUMNS: String(width) });
      expect(r.code).toBe(0);
      const lines = r.stdout.replace(/\n$/, '').split('\n');
      for (const l of lines)
        expect(l.length, `line wider than ${width}: ${JSON.stringify(l)}`).toBeLessThanOrEqual(width);
      // Greedy filling: within a paragraph, a line ends only when the next word would not fit.
      const desc = descriptionLines(r.stdout);
      for (let i = 0; i + 1 < desc.length; i++) {
        if (!desc[i] || !desc[i + 1] || /^\s/.test(desc[i + 1])) continue;
        const next = desc[i + 1].split(' ')[0];
        expect(desc[i].length + 1 + next.length, `"${desc[i]}" broke before "${next}"`).toBeGreaterThan(width);
      }
      // Every paragraph of the source description is in the help, word for word.
      const flat = desc.join(' ').replace(/\s+/g, ' ');
      for (const p of paragraphs(c.description())) expect(flat).toContain(p.replace(/\s+/g, ' ').trim());
      if (c !== program) {
        const at = lines.indexOf('Global options (`bookdist help options` describes them):');
        expect(at, 'a Global options section').toBeGreaterThan(0);
        const rest = lines.slice(at + 1);
        expect(
          rest.every((l) => /^ {2}/.test(l)),
          'the global options close the help',
        ).toBe(true);
        expect(rest.length, 'named in a few lines, not described').toBeLessThanOrEqual(width >= 120 ? 2 : 4);
        for (const flag of ['--profile', '-o/--output', '--json', '--fields', '--no-color', '-y/--yes', '--dry-run']) {
          expect(rest.join('\n')).toContain(flag);
        }
        // The command's own options come before them.
        const own = lines.indexOf('Options:');
        if (c.options.length) expect(own).toBeGreaterThan(0);
        if (own > 0) expect(own).toBeLessThan(at);
      }
    },
  );
});

describe('bookdist help options', () => {
  it('describes every global option, within 80 columns', async () => {
    const r = await runCli(['help', 'options'], { env: { COLUMNS: '80' } });
    expect(r.code).toBe(0);
    for (const flag of [
      '--profile <name>',
      '-o, --output <format>',
      '--json',
      '--fields <paths>',
      '--query <expr>',
      '--no-color',
      '-y, --yes',
      '--dry-run',
      '--timeout <duration>',
    ]) {
      expect(r.stdout).toContain(flag);
    }
    for (const l of r.stdout.split('\n')) expect(l.length).toBeLessThanOrEqual(80);
  });
});

describe('the width', () => {
  it('piped help follows $COLUMNS (the real CLI)', async () => {
    const [wide, narrow, none] = await Promise.all([
      runCli(['sandbox', '--help'], { env: { COLUMNS: '200' } }),
      runCli(['sandbox', '--help'], { env: { COLUMNS: '60' } }),
      runCli(['sandbox', '--help']),
    ]);
    const longest = (s: string) => Math.max(...s.split('\n').map((l) => l.length));
    expect(longest(wide.stdout)).toBeGreaterThan(100);
    expect(longest(wide.stdout)).toBeLessThanOrEqual(200);
    expect(longest(narrow.stdout)).toBeLessThanOrEqual(60);
    expect(longest(none.stdout)).toBeLessThanOrEqual(80);
    expect(longest(none.stdout)).toBeGreaterThan(70);
  });

  it("a terminal's own width wins over a stale $COLUMNS", async () => {
    const r = await help(['book', 'get'], { COLUMNS: '200' }, 72);
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(72);
  });

  it('long examples wrap with shell continuations that keep a flag with its value', async () => {
    const r = await help(['sandbox', 'usage'], { COLUMNS: '80' });
    const block = r.stdout.split('Examples:\n')[1].split('\n\n')[0];
    expect(block).toMatch(/ \\\n {6}--/);
    expect(block).toMatch(/--hash-id [0-9a-f]{40}/);
  });
});

describe('the top-level help', () => {
  it('groups the commands: service commands, bulk jobs, sandbox, settings', async () => {
    const r = await help([], { COLUMNS: '100' });
    const heads = r.stdout.split('\n').filter((l) => /^[A-Z].*:$/.test(l));
    // The commands first; the root's own options and the global ones after them (issue 29).
    expect(heads).toEqual([
      'Service commands:',
      expect.stringMatching(/^Bulk jobs/),
      expect.stringMatching(/^Sandbox/),
      'Settings:',
      'Options:',
      expect.stringMatching(/^Global options/),
    ]);
    const section = (h: RegExp) => r.stdout.split('\n\n').find((b) => h.test(b))!;
    expect(section(/^Service commands:/)).toMatch(/^ {2}book +/m);
    expect(section(/^Bulk jobs/)).toMatch(/^ {2}codes generate +/m);
    expect(section(/^Bulk jobs/)).toMatch(/^ {2}book get --isbn-file +/m);
    expect(section(/^Sandbox/)).toMatch(/^ {2}sandbox +/m);
    expect(section(/^Settings:/)).toMatch(/^ {2}profile +/m);
    expect(section(/^Service commands:/)).not.toMatch(/^ {2}(sandbox|profile) /m);
  });
});

describe('colour', () => {
  afterAll(async () =>
    (await import('node:fs')).rmSync(`${(await import('node:os')).tmpdir()}/bookdist-help-colour-${process.pid}`, {
      recursive: true,
      force: true,
    }),
  );
  async function card(args: string[], env: Record<string, string>) {
    const out = sink(true, 100);
    const err = sink(false);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const dir = (await import('node:os')).tmpdir();
    const code = await main([...args, 'profile', 'show'], {
      io: {
        stdin,
        stdout: out.stream,
        stderr: err.stream,
        env: { BOOKDIST_CONFIG_DIR: `${dir}/bookdist-help-colour-${process.pid}`, ...env },
        cwd: process.cwd(),
      },
      signals: false,
    });
    return { code, stdout: out.text(), stderr: err.text() };
  }
  const ESC = '\x1b[';

  it('a terminal gets colour by default (the control)', async () => {
    const r = await card([], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(ESC);
  });
  it.each([
    ['--no-color', ['--no-color'], {}],
    ['--color never', ['--color', 'never'], {}],
    ['NO_COLOR=1', [], { NO_COLOR: '1' }],
    ['TERM=dumb', [], { TERM: 'dumb' }],
  ] as const)('%s turns it off', async (_n, args, env) => {
    const r = await card([...args], { ...env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\S/);
    expect(r.stdout).not.toContain(ESC);
  });
});
