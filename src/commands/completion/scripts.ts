// Static bash, zsh and fish completion scripts generated from the command tree. The scripts never
// call back into bookdist: each holds the tree as lookup tables (case/switch statements) and a small
// walker that finds the command being typed, skipping options and their values, then offers its
// subcommands, options, or the values of the option being completed (fixed choices or file paths).
// Deterministic: the same tree gives the same bytes.
import type { Command } from 'commander';
import { allCommands, buildModel, type CommandSpec, type FlagSpec, type ValueKind } from './model.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/**
 * Type codes, shared by the three scripts: the first character is the arity (n none, r required,
 * o optional value), the second the kind of value (- free, f file, c choices); choices follow after
 * a space, e.g. `rc table json ndjson csv tsv`.
 */
function typeCode(arity: 'none' | 'required' | 'optional', value: ValueKind): string {
  const a = arity === 'none' ? 'n' : arity === 'required' ? 'r' : 'o';
  if (value.kind === 'choices') return `${a}c ${value.choices.join(' ')}`;
  return a + (value.kind === 'file' ? 'f' : value.kind === 'profile' ? 'p' : '-');
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

export function buildTables(program: Command): Tables {
  const root = buildModel(program);
  const t: Tables = { subcommand: [], commands: [], aliases: [], flags: [], flagTypes: [], argTypes: [] };
  const all = allCommands(root);
  for (const c of all) {
    const p = key(c.path);
    if (c.commands.length) {
      t.commands.push({ path: p, entries: c.commands.map((s) => ({ name: s.name, desc: s.summary })) });
      const aliases = c.commands.flatMap((s) => s.aliases.map((a) => ({ name: a, desc: `alias of ${s.name}: ${s.summary}` })));
      if (aliases.length) t.aliases.push({ path: p, entries: aliases });
      for (const s of c.commands) t.subcommand.push({ keys: [s.name, ...s.aliases].map((w) => `${p}/${w}`), name: s.name });
    }
    if (c.isHelp) continue;
    if (c.ownFlags.length) t.flags.push({ path: p, entries: flagEntries(c.ownFlags) });
    const inherited = new Set(ancestorsOf(all, c).flatMap((a) => a.ownFlags.filter((f) => f.arity !== 'none').flatMap((f) => f.names)));
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

const HEADER = (shell: Shell) =>
  `${shell} completion for bookdist. Generated from the command tree by \`bookdist completion ${shell}\`; do not edit.`;

// ---------------------------------------------------------------------------------------------
// bash and zsh share the lookup functions (POSIX-style case statements).

function shCase(fn: string, subject: string, comment: string, rows: Array<{ keys: string[]; body: string }>, fallback: string): string {
  const lines = [`# ${comment}`, `${fn}() {`, `  case "${subject}" in`];
  for (const r of rows) lines.push(`    ${r.keys.map(sq).join('|')}) ${r.body} ;;`);
  lines.push(`    *) ${fallback} ;;`, '  esac', '}');
  return lines.join('\n');
}

function shLookups(t: Tables, list: (entries: Entry[]) => string, listFallback: string): string {
  return [
    shCase('_bookdist_cmd', '$1/$2', 'REPLY: the subcommand that word $2 names under command path $1 (or empty)',
      t.subcommand.map((s) => ({ keys: s.keys, body: `REPLY=${sq(s.name)}` })), 'REPLY='),
    shCase('_bookdist_cmds', '$1', 'the subcommands of command path $1',
      t.commands.map((c) => ({ keys: [c.path], body: list(c.entries) })), listFallback),
    shCase('_bookdist_aliases', '$1', 'aliases of the subcommands of command path $1',
      t.aliases.map((c) => ({ keys: [c.path], body: list(c.entries) })), listFallback),
    shCase('_bookdist_flags', '$1', 'the options of command path $1 itself (not those of its ancestors)',
      t.flags.map((c) => ({ keys: [c.path], body: list(c.entries) })), listFallback),
    shCase('_bookdist_flag', '$1/$2', 'REPLY: type code of option $2 defined by command path $1 (see below)',
      t.flagTypes.map((f) => ({ keys: f.keys, body: `REPLY=${sq(f.code)}` })), 'REPLY='),
    shCase('_bookdist_arg', '$1/$2', 'REPLY: type code of positional argument $2 (from 0) of command path $1',
      t.argTypes.map((a) => ({ keys: [a.key], body: `REPLY=${sq(a.code)}` })), 'REPLY='),
  ].join('\n\n');
}

const TYPE_CODES_DOC = `# Type codes: arity (n none, r required value, o optional value), then the value's kind
# (- anything, f a file path, p a stored profile's name, c one of the choices listed after a space).`;

/**
 * bash and zsh: the names of the stored profiles, and the built-in "sandbox", read from the config
 * file that \`bookdist profile add\` writes (one \`"name": {\` line per profile), so completing
 * never runs bookdist.
 */
const SH_PROFILES = `# REPLY: the stored profile names (and the built-in sandbox), read from the config file.
_bookdist_profiles() {
  local dir=\${BOOKDIST_CONFIG_DIR:-\${XDG_CONFIG_HOME:-$HOME/.config}/bookdist}
  REPLY="sandbox $(command sed -n 's/^[[:space:]]*"\\([A-Za-z0-9_-]*\\)":[[:space:]]*{.*/\\1/p' "$dir/config.json" 2>/dev/null | command grep -vx profiles | command tr '\\n' ' ')"
}`;

export function bashScript(program: Command): string {
  const t = buildTables(program);
  const list = (entries: Entry[]) => `REPLY=${sq(entries.map((e) => e.name).join(' '))}`;
  return `# ${HEADER('bash')}
# Load in the current shell:  source <(bookdist completion bash)
# Install (bash-completion):  bookdist completion bash > ~/.local/share/bash-completion/completions/bookdist
${TYPE_CODES_DOC}

${shLookups(t, list, 'REPLY=')}

# REPLY: type code of option $2 at command path $1, defined there or by an ancestor.
_bookdist_flag_type() {
  local p=$1
  while :; do
    _bookdist_flag "$p" "$2"
    if [[ -n $REPLY || -z $p ]]; then return; fi
    if [[ $p == *' '* ]]; then p=\${p% *}; else p=; fi
  done
}

# REPLY: the options of command path $1 and of its ancestors (global options), each once.
_bookdist_all_flags() {
  local p=$1 seen=' ' out= f
  while :; do
    _bookdist_flags "$p"
    for f in $REPLY; do
      [[ $seen == *" $f "* ]] && continue
      seen+="$f "
      out+="$f "
    done
    [[ -z $p ]] && break
    if [[ $p == *' '* ]]; then p=\${p% *}; else p=; fi
  done
  REPLY=$out
}

# COMPREPLY: values for type code $1 matching $2, each prefixed with $3 (for --flag=value).
_bookdist_values() {
  case $1 in
    ?c\\ *) COMPREPLY=($(compgen -P "$3" -W "\${1:3}" -- "$2")) ;;
    ?f)
      local IFS=$'\\n'
      COMPREPLY=($(compgen -P "$3" -f -- "$2"))
      compopt -o filenames 2>/dev/null
      ;;
    ?p) _bookdist_profiles; COMPREPLY=($(compgen -P "$3" -W "$REPLY" -- "$2")) ;;
  esac
}

${SH_PROFILES}

_bookdist() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmdpath= pending= word REPLY
  local -i i help=0 nargs=0 dashdash=0
  COMPREPLY=()
  # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    # "--flag=value" comes as three words when '=' is in COMP_WORDBREAKS.
    if [[ $word == '=' && \${COMP_WORDS[i-1]} == -?* ]]; then pending=\${COMP_WORDS[i-1]}; continue; fi
    if [[ -n $pending ]]; then pending=; continue; fi
    if ((!dashdash)); then
      if [[ $word == -- ]]; then dashdash=1; continue; fi
      if [[ $word == -?* ]]; then
        [[ $word == *=* ]] && continue
        _bookdist_flag_type "$cmdpath" "$word"
        [[ $REPLY == r* ]] && pending=$word
        continue
      fi
    fi
    if ((nargs == 0)); then
      _bookdist_cmd "$cmdpath" "$word"
      if [[ -n $REPLY ]]; then
        # "help" takes command names: keep completing them, without options.
        if [[ $REPLY == help ]]; then help=1; else cmdpath=\${cmdpath:+$cmdpath }$REPLY; fi
        continue
      fi
    fi
    nargs+=1
  done

  if [[ -n $pending ]]; then
    [[ $cur == '=' ]] && cur=
    _bookdist_flag_type "$cmdpath" "$pending"
    _bookdist_values "$REPLY" "$cur" ''
    return 0
  fi
  if ((!dashdash && !help)) && [[ $cur == -* ]]; then
    if [[ $cur == -?*=* ]]; then
      _bookdist_flag_type "$cmdpath" "\${cur%%=*}"
      _bookdist_values "$REPLY" "\${cur#*=}" "\${cur%%=*}="
    else
      _bookdist_all_flags "$cmdpath"
      COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    fi
    return 0
  fi
  if ((nargs == 0)); then
    _bookdist_cmds "$cmdpath"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    if ((!\${#COMPREPLY[@]})); then
      _bookdist_aliases "$cmdpath"
      COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    fi
  fi
  ((help)) && return 0
  if ((!\${#COMPREPLY[@]})); then
    _bookdist_arg "$cmdpath" "$nargs"
    [[ -z $REPLY ]] && _bookdist_arg "$cmdpath" '*'
    _bookdist_values "$REPLY" "$cur" ''
  fi
  # Nothing else to offer after a command: its options.
  if ((!\${#COMPREPLY[@]} && !dashdash)) && [[ -z $cur ]]; then
    _bookdist_all_flags "$cmdpath"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
  fi
  return 0
}

complete -F _bookdist bookdist
`;
}

export function zshScript(program: Command): string {
  const t = buildTables(program);
  const list = (entries: Entry[]) =>
    `reply=(${entries.map((e) => sq(`${e.name.replace(/:/g, '\\:')}:${e.desc}`)).join(' ')})`;
  return `#compdef bookdist
# ${HEADER('zsh')}
# Install: save as _bookdist in a directory of $fpath, before compinit runs, e.g.
#   bookdist completion zsh > ~/.zfunc/_bookdist   (with fpath=(~/.zfunc $fpath) in ~/.zshrc)
# Load in the current shell (after compinit):  source <(bookdist completion zsh)
${TYPE_CODES_DOC}

${shLookups(t, list, 'reply=()')}

# REPLY: type code of option $2 at command path $1, defined there or by an ancestor.
_bookdist_flag_type() {
  local p=$1
  while :; do
    _bookdist_flag "$p" "$2"
    if [[ -n $REPLY || -z $p ]]; then return; fi
    if [[ $p == *' '* ]]; then p=\${p% *}; else p=; fi
  done
}

# reply: the options of command path $1 and of its ancestors (global options), each once.
_bookdist_all_flags() {
  local p=$1 e
  local -a out
  local -A seen
  while :; do
    _bookdist_flags "$p"
    for e in "\${reply[@]}"; do
      (( \${+seen[\${e%%:*}]} )) && continue
      seen[\${e%%:*}]=1
      out+=("$e")
    done
    [[ -z $p ]] && break
    if [[ $p == *' '* ]]; then p=\${p% *}; else p=; fi
  done
  reply=("\${out[@]}")
}

# Offer the values of type code $1; return 1 when there are none.
_bookdist_values() {
  local expl
  local -a vals
  case $1 in
    (?c\\ *) vals=(\${=1[4,-1]}); _wanted values expl 'value' compadd -a vals ;;
    (?f) _files ;;
    (?p) _bookdist_profiles; vals=(\${=REPLY}); _wanted profiles expl 'profile' compadd -a vals ;;
    (*) return 1 ;;
  esac
}

${SH_PROFILES}

_bookdist() {
  local cur=$PREFIX cmdpath= pending= word REPLY
  local -i i help=0 nargs=0 dashdash=0 ret=1
  local -a reply
  # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
    if [[ -n $pending ]]; then pending=; continue; fi
    if ((!dashdash)); then
      if [[ $word == -- ]]; then dashdash=1; continue; fi
      if [[ $word == -?* ]]; then
        [[ $word == *=* ]] && continue
        _bookdist_flag_type "$cmdpath" "$word"
        [[ $REPLY == r* ]] && pending=$word
        continue
      fi
    fi
    if ((nargs == 0)); then
      _bookdist_cmd "$cmdpath" "$word"
      if [[ -n $REPLY ]]; then
        # "help" takes command names: keep completing them, without options.
        if [[ $REPLY == help ]]; then help=1; else cmdpath=\${cmdpath:+$cmdpath }$REPLY; fi
        continue
      fi
    fi
    nargs+=1
  done

  if [[ -n $pending ]]; then
    _bookdist_flag_type "$cmdpath" "$pending"
    _bookdist_values "$REPLY"
    return
  fi
  if ((!dashdash && !help)) && [[ $cur == -* ]]; then
    if [[ $cur == -?*=* ]]; then
      _bookdist_flag_type "$cmdpath" "\${cur%%=*}"
      compset -P '*='
      _bookdist_values "$REPLY"
      return
    fi
    _bookdist_all_flags "$cmdpath"
    _describe -t options 'option' reply
    return
  fi
  if ((nargs == 0)); then
    _bookdist_cmds "$cmdpath"
    (( \${#reply} )) && _describe -t commands 'command' reply && ret=0
    if ((ret)); then
      _bookdist_aliases "$cmdpath"
      (( \${#reply} )) && _describe -t aliases 'alias' reply && ret=0
    fi
  fi
  ((help)) && return ret
  if ((ret)); then
    _bookdist_arg "$cmdpath" "$nargs"
    [[ -z $REPLY ]] && _bookdist_arg "$cmdpath" '*'
    _bookdist_values "$REPLY" && ret=0
  fi
  # Options are offered once a '-' is typed (zsh's prefix-needed convention).
  return ret
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _bookdist "$@"
else
  compdef _bookdist bookdist
fi
`;
}

function fishSwitch(fn: string, args: string, subject: string, comment: string, rows: Array<{ keys: string[]; body: string[] }>): string {
  const lines = [`# ${comment}`, `function ${fn} --argument-names ${args}`, `    switch "${subject}"`];
  for (const r of rows) {
    lines.push(`        case ${r.keys.map(fq).join(' ')}`);
    for (const b of r.body) lines.push(`            ${b}`);
  }
  lines.push('    end', 'end');
  return lines.join('\n');
}

export function fishScript(program: Command): string {
  const t = buildTables(program);
  const list = (entries: Entry[]) => [`printf '%s\\t%s\\n' ${entries.map((e) => `${fq(e.name)} ${fq(e.desc)}`).join(' ')}`];
  return `# ${HEADER('fish')}
# Install:                    bookdist completion fish > ~/.config/fish/completions/bookdist.fish
# Load in the current shell:  bookdist completion fish | source
${TYPE_CODES_DOC}

${fishSwitch('__bookdist_cmd', 'cmdpath word', '$cmdpath/$word', 'the subcommand that $word names under $cmdpath (or nothing)',
    t.subcommand.map((s) => ({ keys: s.keys, body: [`echo ${fq(s.name)}`] })))}

${fishSwitch('__bookdist_cmds', 'cmdpath', '$cmdpath', 'the subcommands of $cmdpath (name, tab, summary)',
    t.commands.map((c) => ({ keys: [c.path], body: list(c.entries) })))}

${fishSwitch('__bookdist_aliases', 'cmdpath', '$cmdpath', 'aliases of the subcommands of $cmdpath',
    t.aliases.map((c) => ({ keys: [c.path], body: list(c.entries) })))}

${fishSwitch('__bookdist_flags', 'cmdpath', '$cmdpath', 'the options of $cmdpath itself (not those of its ancestors)',
    t.flags.map((c) => ({ keys: [c.path], body: list(c.entries) })))}

${fishSwitch('__bookdist_flag', 'cmdpath flag', '$cmdpath/$flag', 'type code of option $flag defined by $cmdpath',
    t.flagTypes.map((f) => ({ keys: f.keys, body: [`echo ${fq(f.code)}`] })))}

${fishSwitch('__bookdist_arg', 'cmdpath index', '$cmdpath/$index', 'type code of positional argument $index (from 0) of $cmdpath',
    t.argTypes.map((a) => ({ keys: [a.key], body: [`echo ${fq(a.code)}`] })))}

# The command path one level up ('' above a top-level command).
function __bookdist_parent --argument-names cmdpath
    string replace -r '^[^ ]*$|  *[^ ]*$' '' -- "$cmdpath"
end

# Type code of option $flag at $cmdpath, defined there or by an ancestor.
function __bookdist_flag_type --argument-names cmdpath flag
    set -l p "$cmdpath"
    while true
        set -l code (__bookdist_flag "$p" "$flag")
        if test -n "$code"
            echo $code
            return
        end
        test -z "$p"; and return
        set p (__bookdist_parent "$p")
    end
end

# The options of $cmdpath and of its ancestors (global options), each once.
function __bookdist_all_flags --argument-names cmdpath
    set -l p "$cmdpath"
    set -l seen
    while true
        for line in (__bookdist_flags "$p")
            set -l name (string split -m 1 \\t -- "$line")[1]
            contains -- "$name" $seen; and continue
            set -a seen "$name"
            echo $line
        end
        test -z "$p"; and break
        set p (__bookdist_parent "$p")
    end
end

# Values for type code $code completing $cur, each prefixed with $prefix (for --flag=value).
function __bookdist_values --argument-names code cur prefix
    switch "$code"
        case '?c *'
            for v in (string split ' ' -- (string sub -s 4 -- "$code"))
                echo "$prefix$v"
            end
        case '?f'
            for f in (__fish_complete_path "$cur")
                echo "$prefix$f"
            end
        case '?p'
            for v in (__bookdist_profiles)
                echo "$prefix$v"
            end
    end
end

# The stored profile names (and the built-in sandbox), read from the config file that
# \`bookdist profile add\` writes (one \`"name": {\` line per profile): completing never runs bookdist.
function __bookdist_profiles
    set -l dir "$BOOKDIST_CONFIG_DIR"
    if test -z "$dir"
        set -l base "$XDG_CONFIG_HOME"
        test -z "$base"; and set base "$HOME/.config"
        set dir "$base/bookdist"
    end
    echo sandbox
    command sed -n 's/^[[:space:]]*"\\([A-Za-z0-9_-]*\\)":[[:space:]]*{.*/\\1/p' "$dir/config.json" 2>/dev/null | command grep -vx profiles
end

function __bookdist_complete
    set -l tokens (commandline -xpc 2>/dev/null; or commandline -opc)
    set -e tokens[1]
    set -l cur (commandline -ct)
    set -l cmdpath ''
    set -l pending ''
    set -l help 0
    set -l nargs 0
    set -l dashdash 0
    # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
    for word in $tokens
        if test -n "$pending"
            set pending ''
            continue
        end
        if test $dashdash -eq 0
            if test "$word" = '--'
                set dashdash 1
                continue
            end
            if string match -q -- '-?*' "$word"
                string match -q -- '*=*' "$word"; and continue
                set -l code (__bookdist_flag_type "$cmdpath" "$word")
                string match -q -- 'r*' "$code"; and set pending "$word"
                continue
            end
        end
        if test $nargs -eq 0
            set -l name (__bookdist_cmd "$cmdpath" "$word")
            if test -n "$name"
                # "help" takes command names: keep completing them, without options.
                if test "$name" = help
                    set help 1
                else if test -z "$cmdpath"
                    set cmdpath "$name"
                else
                    set cmdpath "$cmdpath $name"
                end
                continue
            end
        end
        set nargs (math $nargs + 1)
    end

    if test -n "$pending"
        set -l code (__bookdist_flag_type "$cmdpath" "$pending")
        __bookdist_values "$code" "$cur" ''
        return
    end
    if test $dashdash -eq 0 -a $help -eq 0; and string match -q -- '-*' "$cur"
        if string match -q -- '-?*=*' "$cur"
            set -l flag (string replace -r '=.*' '' -- "$cur")
            set -l value (string replace -r '^[^=]*=' '' -- "$cur")
            set -l code (__bookdist_flag_type "$cmdpath" "$flag")
            __bookdist_values "$code" "$value" "$flag="
        else
            __bookdist_all_flags "$cmdpath"
        end
        return
    end
    set -l out
    if test $nargs -eq 0
        set -l rx '^'(string escape --style=regex -- "$cur")
        set out (__bookdist_cmds "$cmdpath")
        if test (count $out) -eq 0; or not string match -qr -- $rx $out
            set out (__bookdist_aliases "$cmdpath")
        end
    end
    test $help -eq 1; and begin
        printf '%s\\n' $out
        return
    end
    if test (count $out) -eq 0
        set -l code (__bookdist_arg "$cmdpath" $nargs)
        test -z "$code"; and set code (__bookdist_arg "$cmdpath" '*')
        set out (__bookdist_values "$code" "$cur" '')
    end
    # Nothing else to offer after a command: its options.
    if test (count $out) -eq 0 -a $dashdash -eq 0 -a -z "$cur"
        set out (__bookdist_all_flags "$cmdpath")
    end
    printf '%s\\n' $out
end

complete -c bookdist -e
complete -c bookdist -f -a '(__bookdist_complete)'
`;
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
