#@ The template of completions/bookdist.bash: `npm run gen` puts the lookup tables generated from the
#@ command tree (src/commands/completion/parts/scripts.ts) in place of @TABLES@ and drops these #@ lines.
#@ Edit this file, not the output; shellcheck reads both.
# bash completion for bookdist. Generated from the command tree by `bookdist completion bash`; do not edit.
# Load in the current shell:  source <(bookdist completion bash)
# Install (bash-completion):  bookdist completion bash > ~/.local/share/bash-completion/completions/bookdist
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

# REPLY: the options of command path $1 and of its ancestors (global options), each once.
_bookdist_all_flags() {
  local p=$1 seen=' ' out='' f
  while :; do
    _bookdist_flags "$p"
    for f in $REPLY; do
      [[ $seen == *" $f "* ]] && continue
      seen+="$f "
      out+="$f "
    done
    [[ -z $p ]] && break
    if [[ $p == *' '* ]]; then p=${p% *}; else p=''; fi
  done
  REPLY=$out
}

# COMPREPLY+=: each line that the command "$@" prints (mapfile is bash 4; this runs in bash 3.2 too).
_bookdist_reply() {
  local line
  while IFS= read -r line; do COMPREPLY+=("$line"); done < <("$@")
}

# COMPREPLY: values for type code $1 matching $2, each prefixed with $3 (for --flag=value).
_bookdist_values() {
  case $1 in
    ?c\ *) _bookdist_reply compgen -P "$3" -W "${1:3}" -- "$2" ;;
    ?f)
      _bookdist_reply compgen -P "$3" -f -- "$2"
      compopt -o filenames 2>/dev/null
      ;;
    ?p) _bookdist_profiles; _bookdist_reply compgen -P "$3" -W "sandbox $REPLY" -- "$2" ;;
    ?s) _bookdist_profiles; _bookdist_reply compgen -P "$3" -W "$REPLY" -- "$2" ;;
    ?i\ *)
      # awk has matched them already; ids are words without glob characters (src/cache/ids.ts).
      _bookdist_ids "${1:3}" "$2" id "$3"
      local IFS=$'\n'
      # shellcheck disable=SC2206 # one id a line, each a word without glob characters
      [[ -n $REPLY ]] && COMPREPLY+=($REPLY)
      ;;
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
  local cur=${COMP_WORDS[COMP_CWORD]} cmdpath='' pending='' profile='' word REPLY
  local -i i help=0 nargs=0 dashdash=0
  COMPREPLY=()
  # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    # "--flag=value" comes as three words when '=' is in COMP_WORDBREAKS.
    if [[ $word == '=' && ${COMP_WORDS[i-1]} == -?* ]]; then pending=${COMP_WORDS[i-1]}; continue; fi
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
    [[ $cur == '=' ]] && cur=''
    _bookdist_flag_type "$cmdpath" "$pending"
    _bookdist_values "$REPLY" "$cur" ''
    return 0
  fi
  if ((!dashdash && !help)) && [[ $cur == -* ]]; then
    if [[ $cur == -?*=* ]]; then
      _bookdist_flag_type "$cmdpath" "${cur%%=*}"
      _bookdist_values "$REPLY" "${cur#*=}" "${cur%%=*}="
    else
      _bookdist_all_flags "$cmdpath"
      _bookdist_reply compgen -W "$REPLY" -- "$cur"
    fi
    return 0
  fi
  if ((nargs == 0)); then
    _bookdist_cmds "$cmdpath"
    _bookdist_reply compgen -W "$REPLY" -- "$cur"
    if ((!${#COMPREPLY[@]})); then
      _bookdist_aliases "$cmdpath"
      _bookdist_reply compgen -W "$REPLY" -- "$cur"
    fi
  fi
  ((help)) && return 0
  if ((!${#COMPREPLY[@]})); then
    _bookdist_arg "$cmdpath" "$nargs"
    [[ -z $REPLY ]] && _bookdist_arg "$cmdpath" '*'
    _bookdist_values "$REPLY" "$cur" ''
  fi
  # Nothing else to offer after a command: its options.
  if ((!${#COMPREPLY[@]} && !dashdash)) && [[ -z $cur ]]; then
    _bookdist_all_flags "$cmdpath"
    _bookdist_reply compgen -W "$REPLY" -- "$cur"
  fi
  return 0
}

complete -F _bookdist bookdist
