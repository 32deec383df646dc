#!/usr/bin/env zsh
# Drives real zsh completion: starts an interactive zsh in a pseudo-terminal (zpty) with compinit and
# the completion file in $fpath, and for each line types "<line><TAB>", prints every match that
# completion adds (one per line), as captured from compadd, then a line `<<end>>`, and clears the
# command line (^U) for the next one. One zsh (and one compinit) for all the lines.
# Usage: zsh-capture.zsh <dir with _bookdist> <fpath|source> <line>...
#   mode "fpath": autoloaded from $fpath by compinit, as installed;
#   mode "source": `source`d after compinit, as `source <(bookdist completion zsh)` does.
# (After the idea of github.com/Valodim/zsh-capture-completion.)
emulate -L zsh
zmodload zsh/zpty || { print -u2 'zsh/zpty is missing'; exit 2 }
zmodload zsh/zselect zsh/mapfile || { print -u2 'zsh/zselect or zsh/mapfile is missing'; exit 2 }
local compdir=${1:a} mode=$2
shift 2
local tmp=$(mktemp -d)
local out=$tmp/matches
: > $out
cat > $tmp/.zshrc <<RC
PROMPT='' RPROMPT='' PS2=''
unsetopt beep
$([[ $mode == fpath ]] && print -r -- "fpath=(${(q)compdir} \$fpath)")
autoload -Uz compinit && compinit -u -D
$([[ $mode == source ]] && print -r -- "source ${(q)compdir}/_bookdist")
zstyle ':completion:*' list-prompt ''
zstyle ':completion:*' menu no
# TAB: complete-word, with __capture_done armed each time (zsh empties comppostfuncs after use).
__capture_complete() { comppostfuncs=(__capture_done); zle complete-word }
zle -N __capture_complete
bindkey '^I' __capture_complete
bindkey '^U' kill-whole-line
# Record what completion offers: the words that pass compadd's own matching (-O), then add them.
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return; fi
  local -a __hits
  builtin compadd -O __hits "\$@"
  (( \$#__hits )) && print -rl -- \$__hits >> ${(q)out}
  builtin compadd "\$@"
}
__capture_done() { print -r -- '<<done>>' >> ${(q)out} }
print -r -- '<<ready>>' >> ${(q)out}
RC
zpty z "ZDOTDIR=${(q)tmp} TERM=dumb zsh -d -i"
# Wait until the file holds n markers, without starting a process (zselect sleeps, mapfile reads).
local -a text
wait_for() {
  local i marker="<<$1>>"
  local -a seen
  local junk
  for i in {1..500}; do
    text=("${(@f)mapfile[$out]}")
    seen=(${(M)text:#$marker})
    (( $#seen >= $2 )) && return 0
    # Drain what the terminal shows, so that zsh never blocks on a full pseudo-terminal.
    while zpty -rt z junk 2>/dev/null; do :; done
    zselect -t 2
  done
  return 1
}
wait_for ready 1 || { print -u2 "zsh did not start"; zpty -d z; rm -rf $tmp; exit 1 }
local line n=0 failed=0
for line in "$@"; do
  n=$((n + 1))
  zpty -w -n z "$line"$'\t'
  wait_for done $n || { failed=1; break }
  zpty -w -n z $'\C-u'
done
zpty -d z
# The matches of each line (sorted, unique), each list closed by <<end>>.
text=("${(@f)mapfile[$out]}")
local -a hits
local word
for word in ${text:#<<ready>>}; do
  if [[ $word == '<<done>>' ]]; then
    (( $#hits )) && print -rl -- ${(ou)hits}
    print -r -- '<<end>>'
    hits=()
  else
    hits+=($word)
  fi
done
rm -rf $tmp
(( failed )) && { print -u2 "zsh completion did not finish (line $n: $line)"; exit 1 }
exit 0
