#@ The template of completions/bookdist.fish: `npm run gen` puts the lookup tables generated from the
#@ command tree (src/commands/completion/parts/scripts.ts) in place of @TABLES@ and drops these #@ lines.
#@ Edit this file, not the output.
# fish completion for bookdist. Generated from the command tree by `bookdist completion fish`; do not edit.
# Install:                    bookdist completion fish > ~/.config/fish/completions/bookdist.fish
# Load in the current shell:  bookdist completion fish | source
# Type codes: arity (n none, r required value, o optional value), then the value's kind
# (- anything, f a file path, p a profile's name (stored ones and the built-in sandbox), s a stored
# profile's name, c one of the choices listed after a space, i an id of the completion cache, its
# kind after a space).

# @TABLES@ (the lookup tables generated from the command tree go here)

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
            set -l name (string split -m 1 \t -- "$line")[1]
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
            for v in sandbox (__bookdist_profiles)
                echo "$prefix$v"
            end
        case '?s'
            for v in (__bookdist_profiles)
                echo "$prefix$v"
            end
        case '?i *'
            # Ids match by their prefix or by a word of their description; each line is
            # `id TAB description`, which fish shows beside the id.
            __bookdist_ids (string sub -s 4 -- "$code") "$cur" desc "$prefix"
    end
end

# The cache file of the ids of kind $kind for the profile in use: --profile on the line
# ($profile), else BOOKDIST_PROFILE, else the config file's current profile, else the built-in
# sandbox. The CLI writes profiles/<name> (the scope it last used) and <scope>/<kind>.tsv under
# $XDG_CACHE_HOME/bookdist/ids (src/cache/ids.ts).
function __bookdist_ids_file --argument-names kind profile
    set -l base "$XDG_CACHE_HOME"
    test -z "$base"; and set base "$HOME/.cache"
    set -l dir "$base/bookdist/ids"
    set -l p "$profile"
    test -z "$p"; and set p "$BOOKDIST_PROFILE"
    if test -z "$p"
        set -l cdir "$BOOKDIST_CONFIG_DIR"
        if test -z "$cdir"
            set -l cbase "$XDG_CONFIG_HOME"
            test -z "$cbase"; and set cbase "$HOME/.config"
            set cdir "$cbase/bookdist"
        end
        set p (command sed -n 's/^[[:space:]]*"current":[[:space:]]*"\([A-Za-z0-9_-]*\)".*/\1/p' "$cdir/config.json" 2>/dev/null)
    end
    string match -qr -- '^[A-Za-z0-9_-]+$' "$p"; or set p sandbox
    test -f "$dir/profiles/$p"; or return
    set -l scope (command head -n 1 "$dir/profiles/$p" 2>/dev/null)
    string match -qr -- '^[0-9a-f]+$' "$scope"; and echo "$dir/$scope/$kind.tsv"
end

# The ids of kind $kind that match $cur (by prefix; mode `desc`: or a word of the description,
# and each line is `id TAB description`), newest first. No Node, no request.
function __bookdist_ids --argument-names kind cur mode prefix
    set -l file (__bookdist_ids_file "$kind" "$__bookdist_profile")
    test -n "$file" -a -f "$file"; or return
    set -l rev tac
    command -q tac; or set rev tail -r
    command $rev -- "$file" 2>/dev/null | BDC_TYPED="$cur" BDC_MODE="$mode" BDC_BEFORE="$prefix" command awk "$__bookdist_ids_awk" 2>/dev/null
end

# The names of the stored profiles, read from the config file that `bookdist profile add`
# writes (one `"name": {` line per profile): completing never runs bookdist.
function __bookdist_profiles
    set -l dir "$BOOKDIST_CONFIG_DIR"
    if test -z "$dir"
        set -l base "$XDG_CONFIG_HOME"
        test -z "$base"; and set base "$HOME/.config"
        set dir "$base/bookdist"
    end
    command sed -n 's/^[[:space:]]*"\([A-Za-z0-9_-]*\)":[[:space:]]*{.*/\1/p' "$dir/config.json" 2>/dev/null | command grep -vx profiles
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
    set -g __bookdist_profile ''
    # Walk the words before the cursor: subcommands extend the path, options and their values are skipped.
    for word in $tokens
        if test -n "$pending"
            test "$pending" = --profile; and set -g __bookdist_profile "$word"
            set pending ''
            continue
        end
        if test $dashdash -eq 0
            if test "$word" = '--'
                set dashdash 1
                continue
            end
            if string match -q -- '-?*' "$word"
                string match -q -- '--profile=*' "$word"; and set -g __bookdist_profile (string replace -- '--profile=' '' "$word")
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
        printf '%s\n' $out
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
    printf '%s\n' $out
end

complete -c bookdist -e
complete -c bookdist -f -a '(__bookdist_complete)'
