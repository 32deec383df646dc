// The README's command reference, rendered as Markdown from the command tree: for each command its
// usage line, summary, description, options (with choices and defaults) and the examples of its help.
// Deterministic: nothing depends on the terminal (no wrapping), only on the tree.
import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';
import { visibleSubcommands } from '../commands/completion/model.js';

export const REFERENCE_START = '<!-- commands:start -->';
export const REFERENCE_END = '<!-- commands:end -->';

/** The full name of a command, e.g. `bookdist book get`. */
export function commandName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Text that the command's help prints after the options (addHelpText 'after'), e.g. examples. */
export function helpTextAfter(cmd: Command): string {
  let out = '';
  // addHelpText() texts are listeners of the help events (commander's Command is an EventEmitter).
  (cmd as unknown as EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => (out += s) });
  return out;
}

/**
 * The examples of a command's help (`Examples:` block of `  $ ...` lines); an example whose line
 * ends with a backslash continues on the next, more indented, line(s) and is kept multi-line.
 */
export function examplesOf(cmd: Command): string[] {
  const text = helpTextAfter(cmd);
  const at = text.search(/^Examples:\s*$/m);
  if (at < 0) return [];
  const examples: string[] = [];
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^\s+\$ (.*)$/.exec(line);
    const last = examples[examples.length - 1];
    if (m) examples.push(m[1]);
    else if (last !== undefined && last.endsWith('\\') && /^\s+\S/.test(line)) examples[examples.length - 1] = `${last}\n  ${line.trim()}`;
    else break;
  }
  return examples;
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

/** Escape Markdown outside `code spans`: <, >, * and (in table cells) |. */
function md(text: string, cell = false): string {
  return text
    .split(/(`[^`\n]*`)/)
    .map((part, i) => {
      if (i % 2 === 1) return cell ? part.replace(/\|/g, '\\|') : part;
      let s = part.replace(/\\/g, '\\\\').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\*/g, '\\*');
      if (cell) s = s.replace(/\|/g, '\\|');
      return s;
    })
    .join('');
}

function anchor(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
}

function optionRow(cmd: Command, opt: Option): string {
  const term = cmd.createHelp().optionTerm(opt);
  const notes: string[] = [];
  if (opt.argChoices?.length) notes.push(`one of ${opt.argChoices.map((c) => `\`${c}\``).join(', ')}`);
  if (opt.defaultValue !== undefined && !opt.negate) {
    const d = opt.defaultValueDescription ?? (typeof opt.defaultValue === 'string' ? opt.defaultValue : JSON.stringify(opt.defaultValue));
    notes.push(`default: \`${d}\``);
  }
  if (opt.mandatory) notes.push('required');
  const kind = opt.required ? 'value' : opt.optional ? 'optional value' : 'flag';
  const description = (opt.description || '').replace(/\s+/g, ' ').trim();
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
  // The README has the "## Command reference" heading above the markers; this is its body.
  out.push(`Generated from the command tree by \`npm run gen\`; \`bookdist help <command>\` shows the same.`, '');
  for (const c of commands) {
    const depth = commandName(c).split(' ').length - 2;
    out.push(`${'  '.repeat(depth)}- [\`${commandName(c)}\`](#${anchor(commandName(c))}): ${md(c.summary() || c.description().split('\n')[0])}`);
  }
  out.push('', '### Global options', '', 'Accepted by every command.', '');
  out.push(...optionsTable(program, program.options.filter((o) => !o.hidden)), '');
  for (const c of commands) {
    const name = commandName(c);
    out.push(`### ${name}`, '');
    const summary = c.summary();
    if (summary) out.push(md(summary), '');
    out.push('```', help.commandUsage(c), '```', '');
    const description = c.description();
    if (description) out.push(md(description).replace(/\n/g, '  \n'), '');
    const args = c.registeredArguments;
    if (args.length) {
      out.push('| Argument | Description |', '| --- | --- |');
      for (const a of args) out.push(`| \`${help.argumentTerm(a)}\` | ${md(help.argumentDescription(a).replace(/\s+/g, ' '), true)} |`);
      out.push('');
    }
    const own = c.options.filter((o) => !o.hidden);
    if (own.length) out.push(...optionsTable(c, own), '');
    const subs = visibleSubcommands(c).filter((s) => c.commands.includes(s));
    if (subs.length) {
      out.push('Commands:', '');
      for (const s of subs) out.push(`- [\`${commandName(s)}\`](#${anchor(commandName(s))}): ${md(s.summary() || s.description().split('\n')[0])}`);
      out.push('');
    }
    const ex = examplesOf(c);
    if (ex.length) out.push('Examples:', '', '```sh', ...ex, '```', '');
  }
  return out.join('\n').replace(/\n+$/, '\n');
}

/** Replace the text between the markers of a README (adding the markers at the end if missing). */
export function spliceReference(readme: string, reference: string): string {
  const block = `${REFERENCE_START}\n${reference.replace(/\n*$/, '\n')}${REFERENCE_END}`;
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start >= 0 && end > start) return readme.slice(0, start) + block + readme.slice(end + REFERENCE_END.length);
  return readme.replace(/\n*$/, readme.trim() ? '\n\n' : '') + block + '\n';
}

/** The text between the markers, or undefined when the README has none. */
export function referenceSection(readme: string): string | undefined {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) return undefined;
  return readme.slice(start + REFERENCE_START.length + 1, end);
}
