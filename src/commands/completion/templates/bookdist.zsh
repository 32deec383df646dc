#compdef bookdist
#@ The template of completions/_bookdist: `npm run gen` puts the lookup tables generated from the
#@ command tree (src/commands/completion/parts/scripts.ts) in place of @TABLES@ and drops these #@ lines.
#@ Edit this file, not the output.
# zsh completion for bookdist. Generated from the command tree by `bookdist completion zsh`; do not edit.
# Install: save as _bookdist in a directory of $fpath, before compinit runs, e.g.
#   bookdist completion zsh > ~/.zfunc/_bookdist   (with fpath=(~/.zfunc $fpath) in ~/.zshrc)
# Load in the current shell (after compinit):  source <(bookdist completion zsh)
# Type codes: arity (n none, r required value, o optional value), then the value's kind
# (- anything, f a file path, p a profile's name (stored ones and the built-in sandbox), s a stored
# profile's name, c one of the choices listed after a space, i an id of the completion cache, its
# kind after a space).

# @TABLES@ (the lookup tables generated from the command tree go here)

# REPLY: type code of option $2 at command path $1, defined there or by an ancestor.
_bookdist_flag_type() {
  local p=$1
  while :; do
    _bookdist_flag "$p" "$2"
    if [[ -n $REPLY || -z $p ]]; then return; fi
    if [[ $p == *' '* ]]; then p=${p% *}; else p=''; fi
  done
}

# reply: the options of command path $1 and of its ancestors (global options), each once.
_bookdist_all_flags() {
  local p=$1 e
  local -a out
  local -A seen
  while :; do
    _bookdist_flags "$p"
    for e in "${reply[@]}"; do
      (( ${+seen[${e%%:*}]} )) && continue
      seen[${e%%:*}]=1
      out+=("$e")
    done
    [[ -z $p ]] && break
    if [[ $p == *' '* ]]; then p=${p% *}; else p=''; fi
  done
  reply=("${out[@]}")
}

# Offer the values of type code $1; return 1 when there are none.
_bookdist_values() {
  local expl
  local -a vals
  case $1 in
    (?c\ *) vals=(${=1[4,-1]}); _wanted values expl 'value' compadd -a vals ;;
    (?f) _files ;;
    (?p) _bookdist_profiles; vals=(sandbox ${=REPLY}); _wanted profiles expl 'profile' compadd -a vals ;;
    (?s) _bookdist_profiles; vals=(${=REPLY}); _wanted profiles expl 'profile' compadd -a vals ;;
    (?i\ *)
      # Ids match by their prefix or by a word of their description (`light` finds a book by its
      # title), so zsh must not filter them again (-U); each shows its description (-d).
      local line
      local -a disp
      _bookdist_ids "${1[4,-1]}" "$PREFIX" desc
      local id desc
      for line in "${(@f)REPLY}"; do
        [[ -n $line ]] || continue
        id=${line%%$'\t'*} desc=${line#*$'\t'}
        vals+=("$id")
        # One screen line each: the description is cut to the terminal's width.
        disp+=("${${:-$id  -- $desc}[1,$(( ${COLUMNS:-80} - 1 ))]}")
      done
      (( ${#vals} )) || return 1
      # -V: in the cache's order (the most recently used first), not sorted.
      _wanted -V ids expl "${1[4,-1]} id" compadd -U -l -d disp -a vals
      # Found by the words of their descriptions, not by what was typed: show them in a menu
      # rather than replacing the typed word with their (empty) common prefix.
      if (( ${#${(M)vals:#${PREFIX}*}} < ${#vals} )); then
        compstate[insert]=menu
        compstate[list]='list force'
      fi
      ;;
    (*) return 1 ;;
  esac
}

# @IDS@ (the reader of the id cache, templates/ids.bash, goes here)

# REPLY: the names of the stored profiles, read from the config file that `bookdist profile add`
# writes (one `"name": {` line per profile), so completing never runs bookdist.
_bookdist_profiles() {
  local dir=${BOOKDIST_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/bookdist}
  REPLY="$(command sed -n 's/^[[:space:]]*"\([A-Za-z0-9_-]*\)":[[:space:]]*{.*/\1/p' "$dir/config.json" 2>/dev/null | command grep -vx profiles | command tr '\n' ' ')"
}

_bookdist() {
  local cur=$PREFIX cmdpath='' pending='' profile='' word REPLY
  local -i i help=0 nargs=0 dashdash=0 ret=1
  local -a reply
  # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
  for ((i = 2; i < CURRENT; i++)); do
    word=${words[i]}
    if [[ -n $pending ]]; then
      [[ $pending == --profile ]] && profile=$word
      pending=''
      continue
    fi
    if ((!dashdash)); then
      if [[ $word == -- ]]; then dashdash=1; continue; fi
      if [[ $word == -?* ]]; then
        [[ $word == --profile=* ]] && profile=${word#*=}
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
        if [[ $REPLY == help ]]; then help=1; else cmdpath=${cmdpath:+$cmdpath }$REPLY; fi
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
      _bookdist_flag_type "$cmdpath" "${cur%%=*}"
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
    (( ${#reply} )) && _describe -t commands 'command' reply && ret=0
    if ((ret)); then
      _bookdist_aliases "$cmdpath"
      (( ${#reply} )) && _describe -t aliases 'alias' reply && ret=0
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

if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
  _bookdist "$@"
else
  compdef _bookdist bookdist
fi
