// completions/, docs/commands.md and man/bookdist.1 are generated from the command tree: they must
// equal what the current tree generates (else: run `npm run gen`), and generation is deterministic.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { buildModel, allCommands } from '../../src/commands/completion/parts/model.js';
import { completionScript, SHELLS } from '../../src/commands/completion/parts/scripts.js';
import { renderReference } from '../../src/docs/reference.js';
import { renderMan } from '../../src/docs/man.js';
import { runCli } from '../helpers/cli.js';
import { FILES, ROOT } from './_support.js';

const STALE = 'is stale: run `npm run gen` to regenerate it from the command tree (and commit the result)';

describe('checked-in completion scripts', () => {
  it.each(SHELLS)('completions/ for %s equals the script generated from the current tree', (shell) => {
    const file = join(ROOT, 'completions', FILES[shell]);
    expect(existsSync(file), `completions/${FILES[shell]} is missing: run \`npm run gen\``).toBe(true);
    const expected = completionScript(shell, buildProgram());
    expect(readFileSync(file, 'utf8') === expected, `completions/${FILES[shell]} ${STALE}`).toBe(true);
  });

  it.each(SHELLS)('`bookdist completion %s` prints the same script', async (shell) => {
    const r = await runCli(['completion', shell]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(
      r.stdout === completionScript(shell, buildProgram()),
      'bin/bookdist differs from src: run `npm run build`',
    ).toBe(true);
  });

  it('an unknown shell is a usage error naming the choices', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    for (const shell of ['bash', 'zsh', 'fish']) expect(r.stderr).toContain(shell);
    expect(r.stdout).toBe('');
  });
});

describe('docs/commands.md and man/bookdist.1', () => {
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

  it('docs/commands.md equals the reference generated from the current tree', () => {
    const file = join(ROOT, 'docs', 'commands.md');
    expect(existsSync(file), 'docs/commands.md is missing: run `npm run gen`').toBe(true);
    expect(readFileSync(file, 'utf8') === renderReference(buildProgram()), `docs/commands.md ${STALE}`).toBe(true);
  });

  it('man/bookdist.1 equals the man page generated from the current tree, and package.json ships it', () => {
    const file = join(ROOT, 'man', 'bookdist.1');
    expect(existsSync(file), 'man/bookdist.1 is missing: run `npm run gen`').toBe(true);
    expect(readFileSync(file, 'utf8') === renderMan(buildProgram(), version), `man/bookdist.1 ${STALE}`).toBe(true);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect([pkg.man].flat()).toContain('./man/bookdist.1');
    expect(pkg.files).toEqual(expect.arrayContaining(['man', 'docs']));
  });

  it('the README no longer carries the generated reference, and points to it', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toContain('<!-- commands:start -->');
    expect(readme).toContain('docs/commands.md');
  });

  it('documents every visible command, with usage, options and examples, without the old defects', () => {
    const program = buildProgram();
    const md = renderReference(program);
    for (const c of allCommands(buildModel(program)).slice(1)) {
      if (c.isHelp && c.path.length > 1) continue; // commander's `<group> help`
      expect(md, c.path.join(' ')).toContain(`### bookdist ${c.path.join(' ')}\n`);
    }
    expect(md).not.toContain('__reference');
    expect(md).toContain('```\nbookdist book get [options] [hash_id]\n```');
    expect(md).toMatch(
      /\| `-o, --output <format>` \| value \| output format \(one of `table`, `json`, `ndjson`, `csv`, `tsv`\) \|/,
    );
    expect(md).toMatch(/\| `--color <when>` \| value \| .*default: `auto`/);
    expect(md).toMatch(/### bookdist book get\n[^#]*Examples:\n\n```sh\nbookdist book get --isbn [0-9-]+\n/);
    expect(md).not.toMatch(/required\)? \(required/);
    expect(md).not.toMatch(/&(gt|lt|amp);/);
    // The config path the help gives is the one the code uses.
    expect(md).toContain('$XDG_CONFIG_HOME/bookdist');
    expect(md).toContain('~/.config/bookdist');
  });

  it('the man page is valid roff for man(1): a title, the sections, every command', () => {
    const program = buildProgram();
    const man = renderMan(program, version);
    expect(man).toMatch(/^\.\\" Generated/);
    expect(man).toMatch(/^\.TH BOOKDIST 1 /m);
    for (const s of [
      'NAME',
      'SYNOPSIS',
      'DESCRIPTION',
      'GLOBAL OPTIONS',
      'COMMANDS',
      'EXIT STATUS',
      'ENVIRONMENT',
      'FILES',
    ])
      expect(man).toContain(`\n.SH ${s}\n`);
    for (const c of allCommands(buildModel(program)).slice(1)) {
      if (c.isHelp && c.path.length > 1) continue;
      expect(man, c.path.join(' ')).toContain(`.SS "bookdist ${c.path.join(' ').replace(/-/g, '\\-')}"\n`);
    }
    // No line of text starts with a dot or quote that roff would read as a request.
    for (const line of man.split('\n'))
      if (/^[.']/.test(line)) expect(line).toMatch(/^\.(\\"|(TH|SH|SS|TP|PP|B|RS|RE|nf|fi)\b)/);
  });

  it('`bookdist __reference [--man]` (used by scripts/gen-docs.mjs) prints them and is hidden from help', async () => {
    const [ref, man, help] = await Promise.all([
      runCli(['__reference']),
      runCli(['__reference', '--man']),
      runCli(['--help']),
    ]);
    expect(ref.code).toBe(0);
    expect(ref.stdout === renderReference(buildProgram())).toBe(true);
    expect(man.stdout === renderMan(buildProgram(), version)).toBe(true);
    expect(help.stdout).not.toContain('__reference');
  });
});

describe('generation', () => {
  it('is deterministic: two trees give the same bytes', () => {
    for (const shell of SHELLS)
      expect(completionScript(shell, buildProgram())).toBe(completionScript(shell, buildProgram()));
    expect(renderReference(buildProgram())).toBe(renderReference(buildProgram()));
    expect(renderMan(buildProgram(), '1.0.0')).toBe(renderMan(buildProgram(), '1.0.0'));
  });

  it('takes commands, aliases, options and choices from the tree', () => {
    const program = buildProgram();
    program
      .command('zz-new')
      .summary('a command added later')
      .option('--level <level>', 'how much')
      .command('deep')
      .option('--in <file>', 'input');
    const bash = completionScript('bash', program);
    expect(bash).toContain(`'/zz-new') REPLY='zz-new'`);
    expect(bash).toContain(`'zz-new/deep') REPLY='deep'`);
    expect(bash).toContain(`'zz-new/--level') REPLY='r-'`);
    expect(bash).toContain(`'zz-new deep/--in') REPLY='rf'`);
    expect(bash).toContain(`'profile/list'|'profile/ls') REPLY='list'`);
    expect(bash).toContain(`'/-o'|'/--output') REPLY='rc table json ndjson csv tsv'`);
    const fish = completionScript('fish', program);
    expect(fish).toContain(`'zz-new' 'a command added later'`);
  });
});
