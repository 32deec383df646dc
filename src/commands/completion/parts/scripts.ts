// Static bash, zsh and fish completion scripts: each is a template of real shell code under
// ./templates/ (a walker that finds the command being typed, skipping options and their values,
// then offers its subcommands, options, or the values of the option being completed), and this
// file generates only the lookup tables (case/switch statements) that hold the command tree, put in
// place of the template's @TABLES@ line. The scripts never call back into bookdist. Deterministic:
// the same tree gives the same bytes.
import type { Command } from 'commander';
import { allCommands, buildModel, type CommandSpec, type FlagSpec, type ValueKind } from './model.js';
import bashTemplate from '../templates/bookdist.bash';
import zshTemplate from '../templates/bookdist.zsh';
import fishTemplate from '../templates/bookdist.fish';
import idsReader from '../templates/ids.bash';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * Type codes, shared by the three scripts: the first character is the arity (n none, r required,
 * o optional value), the second the kind of value (- free, f file, p profile, s stored profile,
 * c choices, i ids of the completion cache); choices follow after a space, e.g. `rc table json
 * ndjson csv tsv`, and so does the kind of id, e.g. `ri book`.
 */
function typeCode(arity: 'none' | 'required' | 'optional', value: ValueKind): string {
  const a = arity === 'none' ? 'n' : arity === 'required' ? 'r' : 'o';
  if (value.kind === 'choices') return `${a}c ${value.choices.join(' ')}`;
  if (value.kind === 'ids') return `${a}i ${value.ids}`;
  return (
    a + (value.kind === 'file' ? 'f' : value.kind === 'profile' ? 'p' : value.kind === 'stored-profile' ? 's' : '-')
  );
}

interface Entry {
  name: string;
  desc: string;
}

interface Tables {
  /** `parent path/word` → canonical subcommand name (names and aliases). */
  subcommand: Array<{ keys: string[]; name: string }>;
  /** path → its subcommands. */
  commands: Array<{ path: string; entries: Entry[] }>;
  /** path → aliases of its subcommands (offered when no name matches). */
  aliases: Array<{ path: string; entries: Entry[] }>;
  /** path → its own options (each name once), ancestors' options are looked up on the way up. */
  flags: Array<{ path: string; entries: Entry[] }>;
  /** `path/flag` → type code, for options that take a value or shadow an ancestor's option. */
  flagTypes: Array<{ keys: string[]; code: string }>;
  /** `path/index` (or `path/*` for a variadic last argument) → type code of a positional argument. */
  argTypes: Array<{ key: string; code: string }>;
}

const key = (path: string[]) => path.join(' ');

function flagEntries(flags: FlagSpec[]): Entry[] {
  return flags.flatMap((f) => f.names.map((name) => ({ name, desc: f.description })));
}

function buildTables(program: Command): Tables {
  const root = buildModel(program);
  const t: Tables = { subcommand: [], commands: [], aliases: [], flags: [], flagTypes: [], argTypes: [] };
  const all = allCommands(root);
  for (const c of all) {
    const p = key(c.path);
    if (c.commands.length) {
      t.commands.push({ path: p, entries: c.commands.map((s) => ({ name: s.name, desc: s.summary })) });
      const aliases = c.commands.flatMap((s) =>
        s.aliases.map((a) => ({ name: a, desc: `alias of ${s.name}: ${s.summary}` })),
      );
      if (aliases.length) t.aliases.push({ path: p, entries: aliases });
      for (const s of c.commands)
        t.subcommand.push({ keys: [s.name, ...s.aliases].map((w) => `${p}/${w}`), name: s.name });
    }
    if (c.isHelp) continue;
    if (c.ownFlags.length) t.flags.push({ path: p, entries: flagEntries(c.ownFlags) });
    const inherited = new Set(
      ancestorsOf(all, c).flatMap((a) => a.ownFlags.filter((f) => f.arity !== 'none').flatMap((f) => f.names)),
    );
    for (const f of c.ownFlags) {
      if (f.arity === 'none' && !f.names.some((n) => inherited.has(n))) continue;
      t.flagTypes.push({ keys: f.names.map((n) => `${p}/${n}`), code: typeCode(f.arity, f.value) });
    }
    c.args.forEach((a, i) => {
      if (a.value.kind === 'free') return;
      t.argTypes.push({ key: `${p}/${a.variadic ? '*' : i}`, code: typeCode('required', a.value) });
    });
  }
  return t;
}

function ancestorsOf(all: CommandSpec[], c: CommandSpec): CommandSpec[] {
  const out: CommandSpec[] = [];
  for (let n = c.path.length - 1; n >= 0; n--) {
    const p = key(c.path.slice(0, n));
    const a = all.find((x) => key(x.path) === p);
    if (a) out.push(a);
  }
  return out;
}

/** Single-quoted word for bash and zsh. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Single-quoted word for fish (where \\ and \' are escapes inside single quotes). */
function fq(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

// ---------------------------------------------------------------------------------------------
// bash and zsh share the lookup functions (POSIX-style case statements).

function shCase(
  fn: string,
  subject: string,
  comment: string,
  rows: Array<{ keys: string[]; body: string }>,
  fallback: string,
): string {
  const lines = [`# ${comment}`, `${fn}() {`, `  case "${subject}" in`];
  for (const r of rows) lines.push(`    ${r.keys.map(sq).join('|')}) ${r.body} ;;`);
  lines.push(`    *) ${fallback} ;;`, '  esac', '}');
  return lines.join('\n');
}

function shLookups(t: Tables, list: (entries: Entry[]) => string, listFallback: string): string {
  return [
    `# The reader of the completion cache of ids (see _bookdist_ids)\n# shellcheck disable=SC2016 # an awk program: its $1 and $2 are awk's\n_bookdist_ids_awk=${sq(IDS_AWK)}`,
    shCase(
      '_bookdist_cmd',
      '$1/$2',
      'REPLY: the subcommand that word $2 names under command path $1 (or empty)',
      t.subcommand.map((s) => ({ keys: s.keys, body: `REPLY=${sq(s.name)}` })),
      "REPLY=''",
    ),
    shCase(
      '_bookdist_cmds',
      '$1',
      'the subcommands of command path $1',
      t.commands.map((c) => ({ keys: [c.path], body: list(c.entries) })),
      listFallback,
    ),
    shCase(
      '_bookdist_aliases',
      '$1',
      'aliases of the subcommands of command path $1',
      t.aliases.map((c) => ({ keys: [c.path], body: list(c.entries) })),
      listFallback,
    ),
    shCase(
      '_bookdist_flags',
      '$1',
      'the options of command path $1 itself (not those of its ancestors)',
      t.flags.map((c) => ({ keys: [c.path], body: list(c.entries) })),
      listFallback,
    ),
    shCase(
      '_bookdist_flag',
      '$1/$2',
      'REPLY: type code of option $2 defined by command path $1 (see above)',
      t.flagTypes.map((f) => ({ keys: f.keys, body: `REPLY=${sq(f.code)}` })),
      "REPLY=''",
    ),
    shCase(
      '_bookdist_arg',
      '$1/$2',
      'REPLY: type code of positional argument $2 (from 0) of command path $1',
      t.argTypes.map((a) => ({ keys: [a.key], body: `REPLY=${sq(a.code)}` })),
      "REPLY=''",
    ),
  ].join('\n\n');
}

function fishSwitch(
  fn: string,
  args: string,
  subject: string,
  comment: string,
  rows: Array<{ keys: string[]; body: string[] }>,
): string {
  const lines = [`# ${comment}`, `function ${fn} --argument-names ${args}`, `    switch "${subject}"`];
  for (const r of rows) {
    lines.push(`        case ${r.keys.map(fq).join(' ')}`);
    for (const b of r.body) lines.push(`            ${b}`);
  }
  lines.push('    end', 'end');
  return lines.join('\n');
}

function fishLookups(t: Tables): string {
  const list = (entries: Entry[]) => [
    `printf '%s\\t%s\\n' ${entries.map((e) => `${fq(e.name)} ${fq(e.desc)}`).join(' ')}`,
  ];
  return [
    `# The reader of the completion cache of ids (see __bookdist_ids)\nset -g __bookdist_ids_awk ${fq(IDS_AWK)}`,
    fishSwitch(
      '__bookdist_cmd',
      'cmdpath word',
      '$cmdpath/$word',
      'the subcommand that $word names under $cmdpath (or nothing)',
      t.subcommand.map((s) => ({ keys: s.keys, body: [`echo ${fq(s.name)}`] })),
    ),
    fishSwitch(
      '__bookdist_cmds',
      'cmdpath',
      '$cmdpath',
      'the subcommands of $cmdpath (name, tab, summary)',
      t.commands.map((c) => ({ keys: [c.path], body: list(c.entries) })),
    ),
    fishSwitch(
      '__bookdist_aliases',
      'cmdpath',
      '$cmdpath',
      'aliases of the subcommands of $cmdpath',
      t.aliases.map((c) => ({ keys: [c.path], body: list(c.entries) })),
    ),
    fishSwitch(
      '__bookdist_flags',
      'cmdpath',
      '$cmdpath',
      'the options of $cmdpath itself (not those of its ancestors)',
      t.flags.map((c) => ({ keys: [c.path], body: list(c.entries) })),
    ),
    fishSwitch(
      '__bookdist_flag',
      'cmdpath flag',
      '$cmdpath/$flag',
      'type code of option $flag defined by $cmdpath',
      t.flagTypes.map((f) => ({ keys: f.keys, body: [`echo ${fq(f.code)}`] })),
    ),
    fishSwitch(
      '__bookdist_arg',
      'cmdpath index',
      '$cmdpath/$index',
      'type code of positional argument $index (from 0) of $cmdpath',
      t.argTypes.map((a) => ({ keys: [a.key], body: [`echo ${fq(a.code)}`] })),
    ),
  ].join('\n\n');
}

/** At most this many ids are offered at one TAB, the newest first: type more of one to narrow. */
const MAX_CANDIDATES = 100;

/**
 * The one reader of the completion cache (src/cache/ids.ts), the same awk program in the three
 * scripts. A kind's file holds `id TAB description` lines, newest last; the scripts feed it to awk
 * newest first (tac, or tail -r where there is no tac), so awk stops after MAX_CANDIDATES and
 * reads only the end of a large file. It prints each id once, when the id starts with what was
 * typed (BDC_TYPED), or, in mode `desc` (zsh and fish), when a word of its description does
 * (case-insensitive); mode `desc` prints `id TAB description`, mode `id` the bare id; each after
 * BDC_BEFORE (`--flag=` when completing `--flag=value` as one word). Plain POSIX awk.
 */
const IDS_AWK: string = [
  `BEGIN { FS = "\\t"; p = ENVIRON["BDC_TYPED"]; lp = tolower(p); mode = ENVIRON["BDC_MODE"]; x = ENVIRON["BDC_BEFORE"]; max = ${MAX_CANDIDATES} }`,
  '$1 == "" || ($1 in seen) { next }',
  '{',
  '  seen[$1] = 1',
  '  ok = (p == "" || index($1, p) == 1)',
  '  if (!ok && mode == "desc" && index(ld = tolower($2), lp)) {',
  '    m = split(ld, w, /[[:space:][:punct:]]+/)',
  '    for (j = 1; j <= m && !ok; j++) ok = (index(w[j], lp) == 1)',
  '  }',
  '  if (!ok) next',
  '  if (mode == "desc") print x $1 "\\t" $2; else print x $1',
  '  if (++shown >= max) exit',
  '}',
].join('\n');

/**
 * The template with its `#@` notes dropped, the tables in place of its `# @TABLES@` line and, in
 * bash and zsh, the id cache's reader (templates/ids.bash) in place of its `# @IDS@` line.
 */
function fillTemplate(template: string, tables: string): string {
  const notes = (text: string) => text.split('\n').filter((l) => !l.startsWith('#@'));
  const lines = notes(template);
  const at = lines.findIndex((l) => l.startsWith('# @TABLES@'));
  if (at < 0) throw new Error('completion template without its # @TABLES@ line');
  lines.splice(at, 1, tables);
  const ids = lines.findIndex((l) => l.startsWith('# @IDS@'));
  if (ids >= 0) lines.splice(ids, 1, notes(idsReader).join('\n').trimEnd());
  return lines.join('\n');
}

function bashScript(program: Command): string {
  const list = (entries: Entry[]) => `REPLY=${sq(entries.map((e) => e.name).join(' '))}`;
  return fillTemplate(bashTemplate, shLookups(buildTables(program), list, "REPLY=''"));
}

function zshScript(program: Command): string {
  const list = (entries: Entry[]) =>
    `reply=(${entries.map((e) => sq(`${e.name.replace(/:/g, '\\:')}:${e.desc}`)).join(' ')})`;
  return fillTemplate(zshTemplate, shLookups(buildTables(program), list, 'reply=()'));
}

function fishScript(program: Command): string {
  return fillTemplate(fishTemplate, fishLookups(buildTables(program)));
}

export function completionScript(shell: Shell, program: Command): string {
  switch (shell) {
    case 'bash':
      return bashScript(program);
    case 'zsh':
      return zshScript(program);
    case 'fish':
      return fishScript(program);
  }
}
