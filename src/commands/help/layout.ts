// The layout of every help page (commander's Help, configured once on the root and inherited by
// every command): descriptions are paragraphs reflowed to the width (a terminal's, $COLUMNS, or
// 80), examples are wrapped with shell continuations, the root groups its commands, and every
// other command's help ends with the global options (as gh's INHERITED FLAGS). Only commander is
// loaded here: help must stay as cheap as --version.
import { Command, type Help, type Option } from 'commander';
import { examplesFor } from '../define.js';

/** The width help is laid out for: a terminal's columns, else $COLUMNS, else 80. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }, env: Record<string, string | undefined>): number {
  if (stream.isTTY && stream.columns && stream.columns > 0) return stream.columns;
  const cols = Number(env.COLUMNS);
  if (Number.isInteger(cols) && cols > 0) return cols;
  return 80;
}

/** Narrower than this, lines are not wrapped at all (nothing sensible fits). */
const MIN_WIDTH = 20;

/**
 * Turn a description into paragraphs: a blank line separates paragraphs; a single line break
 * inside a paragraph is a space (texts written with hard breaks still reflow). Lines that start
 * with whitespace (an indented list or code) keep their breaks.
 */
export function paragraphs(text: string): string[] {
  return text
    .trim()
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/\n(?![ \t])/g, ' '))
    .filter((p) => p.trim());
}

/** Wrap one line of words to `width`, continuation lines indented by `indent` spaces. */
export function wrapWords(text: string, width: number, indent = 0, firstWidth = width): string[] {
  const lead = /^\s*/.exec(text)![0];
  const words = text.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = lead;
  let limit = firstWidth;
  for (const w of words) {
    const candidate = line.trim() ? `${line} ${w}` : `${line}${w}`;
    if (candidate.length <= limit || !line.trim()) {
      line = candidate;
      continue;
    }
    lines.push(line);
    line = ' '.repeat(indent) + w;
    limit = width;
  }
  if (line.trim()) lines.push(line);
  return lines;
}

/** A description as wrapped paragraphs separated by blank lines. */
export function wrapParagraphs(text: string, width: number, indent = 0): string {
  const pad = ' '.repeat(indent);
  return paragraphs(text)
    .map((p) =>
      p
        .split('\n')
        .map((line) => (width < MIN_WIDTH ? pad + line : wrapWords(pad + line, width, indent + (/^\s*/.exec(line)![0].length)).join('\n')))
        .join('\n'),
    )
    .join('\n\n');
}

/** Split a shell command line into words, keeping quoted parts together. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      cur += ch;
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur += ch;
    } else if (/\s/.test(ch)) {
      if (cur) words.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) words.push(cur);
  return words;
}

/**
 * One example as help prints it: `  $ command`, wrapped to the width with ` \` continuations
 * (copy-pasting it still runs). A single word longer than the width stays whole.
 */
export function formatExample(example: string, width: number): string[] {
  const first = '  $ ';
  const next = '      ';
  // A flag stays on the same line as its value.
  const words: string[] = [];
  for (const w of shellWords(example)) {
    const last = words[words.length - 1];
    if (last && /^-/.test(last) && !last.includes(' ') && !last.includes('=') && !/^-/.test(w) && !/^[|&;<>]/.test(w)) words[words.length - 1] = `${last} ${w}`;
    else words.push(w);
  }
  const lines: string[] = [];
  let line = first;
  for (const w of words) {
    const sep = line === first || line === next ? '' : ' ';
    // Room for the trailing " \" when another line follows.
    if (line !== first && line !== next && (line + sep + w).length > width - 2) {
      lines.push(line + ' \\');
      line = next + w;
    } else line += sep + w;
  }
  lines.push(line);
  return lines;
}

/** Top-level groups, in order; a command not named here is a service command. */
const ROOT_GROUPS: Array<[heading: string, names: string[]]> = [
  ['Service commands:', []],
  ['Sandbox (a local service for trying and testing):', ['sandbox']],
  ['Settings:', ['profile', 'completion', 'help']],
];

/** Long options that make a command a bulk job (input from a file, streamed, resumable). */
const BULK_OPTION = /^--(from-[a-z]+|isbn-file|hash-id-file)$/;

/** Bulk entry points anywhere in the tree: `codes generate`, `book get --isbn-file`, ... */
export function bulkEntries(program: Command): Array<{ term: string; description: string }> {
  const out: Array<{ term: string; description: string }> = [];
  const visit = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      if ((sub as any)._hidden) continue;
      const p = [...path, sub.name()];
      const bulkOpts = sub.options.filter((o) => o.long && BULK_OPTION.test(o.long));
      const resumable = sub.options.some((o) => o.long === '--resume');
      if (bulkOpts.length) {
        for (const o of bulkOpts) out.push({ term: `${p.join(' ')} ${o.long}`, description: o.description.replace(/\s*\(.*$/, '') });
      } else if (resumable && !sub.commands.length) {
        out.push({ term: p.join(' '), description: sub.summary() || sub.description().split('\n')[0] });
      }
      visit(sub, p);
    }
  };
  visit(program, []);
  return out;
}

function visibleGlobalOptions(cmd: Command, helper: Help): Option[] {
  const out: Option[] = [];
  const own = new Set(cmd.options.map((o) => o.long ?? o.short));
  for (let a = cmd.parent; a; a = a.parent) {
    for (const o of a.options) {
      if (o.hidden || o.long === '--version' || own.has(o.long ?? o.short)) continue;
      out.push(o);
    }
  }
  return out;
}

/** An item: the term padded to `termWidth`, its description wrapped beside it (or below it). */
function item(helper: Help, term: string, termWidth: number, description: string): string {
  const width = helper.helpWidth ?? 80;
  const indent = 2;
  if (!description) return ' '.repeat(indent) + term;
  const descColumn = indent + termWidth + 2;
  const text = description.replace(/\s+/g, ' ').trim();
  if (width < MIN_WIDTH) return `${' '.repeat(indent)}${term.padEnd(termWidth)}  ${text}`;
  if (width - descColumn >= 30) {
    const lines = wrapWords(text, width - descColumn);
    return [
      ' '.repeat(indent) + term.padEnd(termWidth) + '  ' + lines[0],
      ...lines.slice(1).map((l) => ' '.repeat(descColumn) + l),
    ].join('\n');
  }
  // Too narrow for two columns: the description goes under its term.
  return [' '.repeat(indent) + term, ...wrapWords(' '.repeat(indent + 4) + text, width, indent + 4)].join('\n');
}

function section(heading: string, items: string[]): string[] {
  return items.length ? [heading, ...items, ''] : [];
}

/**
 * A root that lists its commands without their definitions (src/root.ts rootHelpProgram): the
 * term each stub is listed by, and the bulk entries of the tree it stands for.
 */
const stubTerms = new WeakMap<Command, string>();
const stubBulk = new WeakMap<Command, Array<{ term: string; description: string }>>();

/** Add to `root` one stub command per [term, description] (term as the full tree lists it). */
export function addCommandStubs(root: Command, commands: ReadonlyArray<readonly [string, string]>, bulk: ReadonlyArray<readonly [string, string]>): Command {
  for (const [term, description] of commands) {
    const stub = new Command(term.split(/[ |]/)[0]).description(description);
    stubTerms.set(stub, term);
    root.addCommand(stub);
  }
  stubBulk.set(root, bulk.map(([term, description]) => ({ term, description })));
  return root;
}

function formatHelp(cmd: Command, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const isRoot = !cmd.parent;
  const args = helper.visibleArguments(cmd);
  const options = helper.visibleOptions(cmd);
  const globals = isRoot ? [] : visibleGlobalOptions(cmd, helper);
  const commands = helper.visibleCommands(cmd);
  const bulk = isRoot ? (stubBulk.get(cmd) ?? bulkEntries(cmd)) : [];
  const commandTerm = (c: Command) => stubTerms.get(c) ?? helper.subcommandTerm(c);
  // One term column for the whole page, so every section lines up.
  const termWidth = Math.min(
    32,
    Math.max(
      0,
      ...args.map((a) => helper.argumentTerm(a).length),
      ...options.map((o) => helper.optionTerm(o).length),
      ...globals.map((o) => helper.optionTerm(o).length),
      ...commands.map((c) => commandTerm(c).length),
      ...bulk.map((b) => b.term.length),
    ),
  );
  const row = (term: string, description: string) =>
    term.length > termWidth ? item(helper, term, term.length, description) : item(helper, term, termWidth, description);
  const out: string[] = [];
  const usage = `Usage: ${helper.commandUsage(cmd)}`;
  out.push(width < MIN_WIDTH ? usage : wrapWords(usage, width, 7).join('\n'), '');
  const description = helper.commandDescription(cmd);
  if (description) out.push(wrapParagraphs(description, width), '');
  out.push(...section('Arguments:', args.map((a) => row(helper.argumentTerm(a), helper.argumentDescription(a)))));
  out.push(...section('Options:', options.map((o) => row(helper.optionTerm(o), helper.optionDescription(o)))));
  if (isRoot) {
    const groups = new Map<string, Command[]>(ROOT_GROUPS.map(([h]) => [h, []]));
    for (const c of commands) {
      const g = ROOT_GROUPS.find(([, names]) => names.includes(c.name()))?.[0] ?? ROOT_GROUPS[0][0];
      groups.get(g)!.push(c);
    }
    const [first, ...rest] = [...groups];
    out.push(...section(first[0], first[1].map((c) => row(commandTerm(c), helper.subcommandDescription(c)))));
    out.push(...section('Bulk jobs (streamed from a file, resumable, exit 6 on partial failure):', bulk.map((b) => row(b.term, b.description))));
    for (const [heading, cs] of rest) out.push(...section(heading, cs.map((c) => row(commandTerm(c), helper.subcommandDescription(c)))));
  } else {
    out.push(...section('Commands:', commands.map((c) => row(commandTerm(c), helper.subcommandDescription(c)))));
  }
  const examples = examplesFor(cmd);
  if (examples.length) out.push('Examples:', ...examples.flatMap((e) => formatExample(e, width)), '');
  if (globals.length) {
    out.push(...section('Global options (every command takes them):', globals.map((o) => row(helper.optionTerm(o), helper.optionDescription(o)))));
  }
  return out.join('\n');
}

/** Configure the help of a command and (by inheritance) of every command added to it later. */
export function configureHelpLayout(program: Command): Command {
  return program.configureHelp({ formatHelp: formatHelp as any });
}
