// The command reference (docs/commands.md), rendered as Markdown from the command tree: for each
// command its usage line, summary, description, options (with choices and defaults) and the
// examples of its help. Deterministic: nothing depends on the terminal (no wrapping), only on the tree.
import type { Command, Option } from 'commander';
import { visibleSubcommands } from '../commands/completion/parts/model.js';
import { examplesFor } from '../commands/define.js';
import { paragraphs } from '../commands/help/parts/layout.js';

/** The full name of a command, e.g. `bookdist book get`. */
export function commandName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The examples of a command (one command line each), as its help shows them. */
export function examplesOf(cmd: Command): string[] {
  return examplesFor(cmd);
}

/** Commands in help order, depth first, without commander's implicit help subcommands. */
export function documentedCommands(program: Command): Command[] {
  const out: Command[] = [];
  const visit = (cmd: Command) => {
    for (const sub of visibleSubcommands(cmd)) {
      // commander's implicit `<group> help [command]` is not part of the tree the engineers wrote.
      if (!cmd.commands.includes(sub)) continue;
      out.push(sub);
      visit(sub);
    }
  };
  visit(program);
  return out;
}

/**
 * Escape Markdown outside `code spans`: \, <, >, * and (in table cells) |. Backslash escapes,
 * not HTML entities: the file reads the same as raw text and rendered.
 */
function md(text: string, cell = false): string {
  return text
    .split(/(`[^`\n]*`)/)
    .map((part, i) => {
      if (i % 2 === 1) return cell ? part.replace(/\|/g, '\\|') : part;
      let s = part.replace(/\\/g, '\\\\').replace(/([<>*])/g, '\\$1');
      if (cell) s = s.replace(/\|/g, '\\|');
      return s;
    })
    .join('');
}

function anchor(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

function optionRow(cmd: Command, opt: Option): string {
  const term = cmd.createHelp().optionTerm(opt);
  const notes: string[] = [];
  if (opt.argChoices?.length) notes.push(`one of ${opt.argChoices.map((c) => `\`${c}\``).join(', ')}`);
  if (opt.defaultValue !== undefined && !opt.negate) {
    const d =
      opt.defaultValueDescription ??
      (typeof opt.defaultValue === 'string' ? opt.defaultValue : JSON.stringify(opt.defaultValue));
    notes.push(`default: \`${d}\``);
  }
  const description = (opt.description || '').replace(/\s+/g, ' ').trim();
  // Said once: many descriptions already end with "(required)".
  if (opt.mandatory && !/\brequired\b/.test(description)) notes.push('required');
  const kind = opt.required ? 'value' : opt.optional ? 'optional value' : 'flag';
  return `| \`${term.replace(/\|/g, '\\|')}\` | ${kind} | ${md(description, true)}${notes.length ? ` (${md(notes.join('; '), true)})` : ''} |`;
}

function optionsTable(cmd: Command, options: readonly Option[]): string[] {
  if (!options.length) return [];
  return ['| Option | Takes | Description |', '| --- | --- | --- |', ...options.map((o) => optionRow(cmd, o))];
}

export function renderReference(program: Command): string {
  const help = program.createHelp();
  const commands = documentedCommands(program);
  const out: string[] = [];
  out.push(
    '# bookdist command reference',
    '',
    '<!-- Generated from the command tree by `npm run gen` (scripts/gen-docs.mjs); do not edit. -->',
    '',
    'Every command, its options and examples: what `bookdist help <command>` shows, in one page. ' +
      'The same tree generates the man page (`man/bookdist.1`) and the shell completions (`completions/`).',
    '',
  );
  for (const c of commands) {
    const depth = commandName(c).split(' ').length - 2;
    out.push(
      `${'  '.repeat(depth)}- [\`${commandName(c)}\`](#${anchor(commandName(c))}): ${md(c.summary() || c.description().split('\n')[0])}`,
    );
  }
  out.push('', '### Global options', '', 'Accepted by every command.', '');
  out.push(
    ...optionsTable(
      program,
      program.options.filter((o) => !o.hidden),
    ),
    '',
  );
  for (const c of commands) {
    const name = commandName(c);
    out.push(`### ${name}`, '');
    const summary = c.summary();
    if (summary) out.push(md(summary), '');
    out.push('```', help.commandUsage(c), '```', '');
    const description = c.description();
    if (description) out.push(...paragraphs(description).map((p) => md(p).replace(/\n/g, '  \n') + '\n'));
    const args = c.registeredArguments;
    if (args.length) {
      out.push('| Argument | Description |', '| --- | --- |');
      for (const a of args)
        out.push(`| \`${help.argumentTerm(a)}\` | ${md(help.argumentDescription(a).replace(/\s+/g, ' '), true)} |`);
      out.push('');
    }
    const own = c.options.filter((o) => !o.hidden);
    if (own.length) out.push(...optionsTable(c, own), '');
    const subs = visibleSubcommands(c).filter((s) => c.commands.includes(s));
    if (subs.length) {
      out.push('Commands:', '');
      for (const s of subs)
        out.push(
          `- [\`${commandName(s)}\`](#${anchor(commandName(s))}): ${md(s.summary() || s.description().split('\n')[0])}`,
        );
      out.push('');
    }
    const ex = examplesOf(c);
    if (ex.length) out.push('Examples:', '', '```sh', ...ex, '```', '');
  }
  return out.join('\n').replace(/\n+$/, '\n');
}
