#!/usr/bin/env zsh
# Drives real zsh completion: starts an interactive zsh in a pseudo-terminal (zpty) with compinit and
# the completion file in $fpath, types "<line><TAB>", and prints every match that completion adds
# (one per line), as captured from compadd.
# Usage: zsh-capture.zsh <dir with _bookdist> <line> [fpath|source]
#   mode "fpath" (default): autoloaded from $fpath by compinit, as installed;
#   mode "source": `source`d after compinit, as `source <(bookdist completion zsh)` does.
# (After the idea of github.com/Valodim/zsh-capture-completion.)
emulate -L zsh
zmodload zsh/zpty || { print -u2 'zsh/zpty is missing'; exit 2 }
local compdir=${1:a} line=$2 mode=${3:-fpath}
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
bindkey '^I' complete-word
# Record what completion offers: the words that pass compadd's own matching (-O), then add them.
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return; fi
  local -a __hits
  builtin compadd -O __hits "\$@"
  (( \$#__hits )) && print -rl -- \$__hits >> ${(q)out}
  builtin compadd "\$@"
}
__capture_done() { print -r -- '<<done>>' >> ${(q)out} }
comppostfuncs=(__capture_done)
print -r -- '<<ready>>' >> ${(q)out}
RC
zpty z "ZDOTDIR=${(q)tmp} TERM=dumb zsh -d -i"
local i
for i in {1..200}; do grep -q '<<ready>>' $out && break; sleep 0.05; done
zpty -w -n z "$line"$'\t'
for i in {1..200}; do grep -q '<<done>>' $out && break; sleep 0.05; done
zpty -d z
grep -v -e '<<ready>>' -e '<<done>>' $out | sort -u
grep -q '<<done>>' $out || { print -u2 'zsh completion did not finish'; rm -rf $tmp; exit 1 }
rm -rf $tmp
