// completions/ and the README's command reference are generated from the command tree: they must
// equal what the current tree generates (else: run `npm run gen`), and generation is deterministic.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { buildModel, allCommands } from '../../src/commands/completion/model.js';
import { completionScript, SHELLS } from '../../src/commands/completion/scripts.js';
import { referenceSection, renderReference, spliceReference, REFERENCE_END, REFERENCE_START } from '../../src/docs/reference.js';
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
    expect(r.stdout === completionScript(shell, buildProgram()), 'bin/bookdist differs from src: run `npm run build`').toBe(true);
  });

  it('an unknown shell is a usage error naming the choices', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bash, zsh, fish/);
    expect(r.stdout).toBe('');
  });
});

describe('README command reference', () => {
  it('equals the reference generated from the current tree', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = referenceSection(readme);
    expect(section, `README.md has no ${REFERENCE_START} … ${REFERENCE_END} section: run \`npm run gen\``).toBeDefined();
    expect(section === renderReference(buildProgram()), `the README's command reference ${STALE}`).toBe(true);
  });

  it('documents every visible command, with usage, options and examples', () => {
    const program = buildProgram();
    const md = renderReference(program);
    for (const c of allCommands(buildModel(program)).slice(1)) {
      if (c.isHelp && c.path.length > 1) continue; // commander's `<group> help`
      expect(md, c.path.join(' ')).toContain(`### bookdist ${c.path.join(' ')}\n`);
    }
    expect(md).not.toContain('__reference');
    expect(md).toContain('```\nbookdist book get [options] [hash_id]\n```');
    expect(md).toMatch(/\| `-o, --output <format>` \| value \| output format \(one of `table`, `json`, `ndjson`, `csv`, `tsv`\) \|/);
    expect(md).toMatch(/\| `--color <when>` \| value \| .*default: `auto`/);
    expect(md).toMatch(/### bookdist book get\n[^#]*Examples:\n\n```sh\nbookdist book get --isbn [0-9-]+\n/);
  });

  it('`bookdist __reference` (used by scripts/gen-docs.mjs) prints it and is hidden from help', async () => {
    const [ref, help] = await Promise.all([runCli(['__reference']), runCli(['--help'])]);
    expect(ref.code).toBe(0);
    expect(ref.stdout === renderReference(buildProgram())).toBe(true);
    expect(help.stdout).not.toContain('__reference');
  });

  it('splices only between the markers, adding them at the end when missing', () => {
    const readme = `# t\n\nintro\n\n${REFERENCE_START}\nold\n${REFERENCE_END}\n\n## after\n`;
    expect(spliceReference(readme, 'new\n')).toBe(`# t\n\nintro\n\n${REFERENCE_START}\nnew\n${REFERENCE_END}\n\n## after\n`);
    expect(spliceReference('# t\n', 'new\n')).toBe(`# t\n\n${REFERENCE_START}\nnew\n${REFERENCE_END}\n`);
    expect(referenceSection(spliceReference('# t\n', 'new\n'))).toBe('new\n');
  });
});

describe('generation', () => {
  it('is deterministic: two trees give the same bytes', () => {
    for (const shell of SHELLS) expect(completionScript(shell, buildProgram())).toBe(completionScript(shell, buildProgram()));
    expect(renderReference(buildProgram())).toBe(renderReference(buildProgram()));
  });

  it('takes commands, aliases, options and choices from the tree', () => {
    const program = buildProgram();
    program.command('zz-new').summary('a command added later').option('--level <level>', 'how much').command('deep').option('--in <file>', 'input');
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
