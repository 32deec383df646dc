#@ Shared by the bash and zsh templates (both run it as it is): `npm run gen` puts it in place of
#@ their # @IDS@ line. The reader of the completion cache of ids (src/cache/ids.ts).
# REPLY: the cache file of the ids of kind $1 for the profile in use: --profile on the line
# ($profile of the caller), else BOOKDIST_PROFILE, else the config file's current profile, else
# the built-in sandbox. The CLI writes profiles/<name> (the scope it last used) and
# <scope>/<kind>.tsv under $XDG_CACHE_HOME/bookdist/ids (src/cache/ids.ts).
_bookdist_ids_file() {
  local dir=${XDG_CACHE_HOME:-$HOME/.cache}/bookdist/ids p=${profile:-${BOOKDIST_PROFILE:-}} scope=''
  if [[ -z $p ]]; then
    local cfg=${BOOKDIST_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/bookdist}/config.json
    p=$(command sed -n 's/^[[:space:]]*"current":[[:space:]]*"\([A-Za-z0-9_-]*\)".*/\1/p' "$cfg" 2>/dev/null)
  fi
  [[ $p =~ ^[A-Za-z0-9_-]+$ ]] || p=sandbox
  [[ -f $dir/profiles/$p ]] && IFS= read -r scope <"$dir/profiles/$p"
  REPLY=''
  [[ $scope =~ ^[0-9a-f]+$ ]] && REPLY=$dir/$scope/$1.tsv
}

# REPLY: the ids of kind $1 that match $2 (by prefix; mode $3 `desc`: or a word of the
# description, and each line is `id TAB description`), newest first, one a line, each after $4.
# No Node, no request.
_bookdist_ids() {
  _bookdist_ids_file "$1"
  local file=$REPLY
  REPLY=''
  [[ -n $file && -f $file ]] || return 0
  local rev=tac
  command -v tac >/dev/null || rev='tail -r'
  REPLY=$(command $rev -- "$file" 2>/dev/null | BDC_TYPED=$2 BDC_MODE=$3 BDC_BEFORE=${4:-} command awk "$_bookdist_ids_awk" 2>/dev/null)
}
