// Help pages as text: paragraphs reflowed to a width, examples wrapped with shell continuations,
// items in one term column, the root's commands in groups. Pure functions of plain data (no
// commander): src/commands/help/parts/layout.ts feeds them from a command, and the root help
// (src/root-help.ts) from the command manifest's root table, so `bookdist --help` loads no command
// library at all.
import { textWidth } from '../../../output/text.js';

/** The width help is laid out for: a terminal's columns, else $COLUMNS, else 80. */
export function helpWidth(
  stream: { isTTY?: boolean; columns?: number },
  env: Record<string, string | undefined>,
): number {
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
function wrapWords(text: string, width: number, indent = 0, firstWidth = width): string[] {
  const lead = /^\s*/.exec(text)![0];
  const words = text.trim().split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = lead;
  let limit = firstWidth;
  for (const w of words) {
    const candidate = line.trim() ? `${line} ${w}` : `${line}${w}`;
    if (textWidth(candidate) <= limit || !line.trim()) {
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
function wrapParagraphs(text: string, width: number, indent = 0): string {
  const pad = ' '.repeat(indent);
  return paragraphs(text)
    .map((p) =>
      p
        .split('\n')
        .map((line) =>
          width < MIN_WIDTH
            ? pad + line
            : wrapWords(pad + line, width, indent + /^\s*/.exec(line)![0].length).join('\n'),
        )
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
function formatExample(example: string, width: number): string[] {
  const first = '  $ ';
  const next = '      ';
  // A flag stays on the same line as its value.
  const words: string[] = [];
  for (const w of shellWords(example)) {
    const last = words[words.length - 1];
    if (last && /^-/.test(last) && !last.includes(' ') && !last.includes('=') && !/^-/.test(w) && !/^[|&;<>]/.test(w))
      words[words.length - 1] = `${last} ${w}`;
    else words.push(w);
  }
  const lines: string[] = [];
  let line = first;
  for (const w of words) {
    const sep = line === first || line === next ? '' : ' ';
    // Room for the trailing " \" when another line follows.
    if (line !== first && line !== next && textWidth(line + sep + w) > width - 2) {
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

/** An item: the term padded to `termWidth`, its description wrapped beside it (or below it). */
function item(width: number, term: string, termWidth: number, description: string): string {
  const indent = 2;
  if (!description) return ' '.repeat(indent) + term;
  const descColumn = indent + termWidth + 2;
  const text = description.replace(/\s+/g, ' ').trim();
  const padded = term + ' '.repeat(Math.max(0, termWidth - textWidth(term)));
  if (width < MIN_WIDTH) return `${' '.repeat(indent)}${padded}  ${text}`;
  if (width - descColumn >= 30) {
    const lines = wrapWords(text, width - descColumn);
    return [
      ' '.repeat(indent) + padded + '  ' + lines[0],
      ...lines.slice(1).map((l) => ' '.repeat(descColumn) + l),
    ].join('\n');
  }
  // Too narrow for two columns: the description goes under its term.
  return [' '.repeat(indent) + term, ...wrapWords(' '.repeat(indent + 4) + text, width, indent + 4)].join('\n');
}

function section(heading: string, items: string[]): string[] {
  return items.length ? [heading, ...items, ''] : [];
}

/** One help page as data: what formatHelp reads off a command. */
export interface HelpPage {
  usage: string;
  description: string;
  args: Array<[term: string, description: string]>;
  options: Array<[term: string, description: string]>;
  /** [name, term, description]; the root groups them by name. */
  commands: Array<[name: string, term: string, description: string]>;
  /** The root only: its bulk entry points (undefined on every other page). */
  bulk?: Array<[term: string, description: string]>;
  examples: string[];
  /**
   * The global options every command takes. A command's page names them in a short closing
   * block and points to `bookdist help options`, which describes them (as gh's INHERITED FLAGS
   * do), so that the command's own options stay on an 80x24 screen.
   */
  globals: Array<[term: string, description: string]>;
}

/** The flag names of an option term: `-o, --output <format>` -> `-o/--output`. */
function flagNames(term: string): string {
  return term
    .replace(/\s*[<[].*$/, '')
    .split(/,\s*/)
    .join('/');
}

/** The text of one help page at `width` columns. */
export function renderPage(page: HelpPage, width: number): string {
  const isRoot = page.bulk !== undefined;
  const bulk = page.bulk ?? [];
  // One term column for the whole page, so every section lines up.
  const termWidth = Math.min(
    32,
    Math.max(
      0,
      ...page.args.map(([t]) => textWidth(t)),
      ...page.options.map(([t]) => textWidth(t)),
      ...page.commands.map(([, t]) => textWidth(t)),
      ...bulk.map(([t]) => textWidth(t)),
    ),
  );
  const row = ([term, description]: readonly [string, string]) =>
    textWidth(term) > termWidth
      ? item(width, term, textWidth(term), description)
      : item(width, term, termWidth, description);
  const out: string[] = [];
  const usage = `Usage: ${page.usage}`;
  out.push(width < MIN_WIDTH ? usage : wrapWords(usage, width, 7).join('\n'), '');
  if (page.description) out.push(wrapParagraphs(page.description, width), '');
  out.push(...section('Arguments:', page.args.map(row)));
  // The root lists its commands first; its global options follow as a short block of names
  // (`bookdist help options` describes them), as every command's page ends.
  const own = isRoot ? page.options.filter(([t]) => /^-[Vh],/.test(t)) : page.options;
  const globals = isRoot ? page.options.filter(([t]) => !/^-[Vh],/.test(t)) : page.globals;
  if (!isRoot) out.push(...section('Options:', own.map(row)));
  const commandRow = ([, term, description]: readonly [string, string, string]) => row([term, description]);
  if (isRoot) {
    const groups = new Map<string, HelpPage['commands']>(ROOT_GROUPS.map(([h]) => [h, []]));
    for (const c of page.commands) {
      const g = ROOT_GROUPS.find(([, names]) => names.includes(c[0]))?.[0] ?? ROOT_GROUPS[0][0];
      groups.get(g)!.push(c);
    }
    const [first, ...rest] = [...groups];
    out.push(...section(first[0], first[1].map(commandRow)));
    out.push(...section('Bulk jobs (streamed from a file, resumable, exit 6 on partial failure):', bulk.map(row)));
    for (const [heading, cs] of rest) out.push(...section(heading, cs.map(commandRow)));
    out.push(...section('Options:', own.map(row)));
  } else {
    out.push(...section('Commands:', page.commands.map(commandRow)));
  }
  if (page.examples.length) out.push('Examples:', ...page.examples.flatMap((e) => formatExample(e, width)), '');
  if (globals.length) {
    const names = globals.map(([t]) => flagNames(t)).join(', ');
    out.push('Global options (`bookdist help options` describes them):', ...wrapWords('  ' + names, width, 2), '');
  }
  return out.join('\n');
}

/** `bookdist help options`: every global option, described. */
export function globalOptionsPage(options: Array<[term: string, description: string]>, width: number): string {
  const termWidth = Math.min(32, Math.max(0, ...options.map(([t]) => textWidth(t))));
  const intro =
    'Every command takes these options, before or after its own. Settings given by flag win over the ' +
    'environment (BOOKDIST_PROFILE, BOOKDIST_BASE_URL), which wins over the profile.';
  return [
    'Global options:',
    '',
    wrapParagraphs(intro, width),
    '',
    ...options.map(([t, d]) => item(width, t, Math.max(termWidth, textWidth(t)), d)),
    '',
  ].join('\n');
}
