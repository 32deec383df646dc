#!/bin/sh
# What the tests need from the system, prepared before any test runs: `npm test` (and
# `npm run test:e2e`) and .ci/run both run this script, so the two cannot drift.
#   tinyproxy   a real forward proxy for the network tests (test/network/), started in a private
#               mount namespace (unshare) where the test host name resolves; /etc/hosts is never edited
#   mandoc, man-db   the man page lint and `man -l` (test/docs/, test/foundation/package.e2e.test.ts)
#   zsh, fish, shellcheck   the completion scripts (test/completion/)
#   chromium    the browser tests (test/**/*.browser.test.ts, through playwright-core)
#   faketime    the clock check of profile check (test/network/)
# and, from the npm registry, the oldest Node that package.json's engines.node allows (the package
# test installs and runs bookdist under it): node-linux-<arch>@<that version>, unpacked once into
# ${XDG_CACHE_HOME:-~/.cache}/bookdist-tests/ (outside the clone, so `npm ci` keeps it).
# A missing package is installed with apt-get when this runs as root on a machine with apt;
# otherwise the script stops at once, with one line naming what is missing and the command that
# installs it. Quiet when everything is there.
set -u

# command:package, one per tool the tests run.
NEEDS="tinyproxy:tinyproxy mandoc:mandoc man:man-db shellcheck:shellcheck zsh:zsh fish:fish chromium:chromium faketime:faketime unshare:util-linux mount:mount"

missing() {
  out=""
  for need in $NEEDS; do
    command -v "${need%%:*}" >/dev/null 2>&1 || out="$out ${need#*:}"
  done
  echo "${out# }"
}

packages=$(missing)
if [ -n "$packages" ]; then
  install="apt-get install -y --no-install-recommends $packages"
  uid=$(id -u 2>/dev/null)
  if [ "$uid" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    why="not root"
    [ "$uid" = 0 ] && why="no apt-get"
    echo "prepare-tests: the tests need these system packages, missing here ($why, so not installed): $packages; install them with: sudo $install" >&2
    exit 1
  fi
  echo "prepare-tests: installing $packages (apt-get)"
  log=$(mktemp)
  # The package lists may be stale or absent on a fresh machine: update once if the install fails.
  # shellcheck disable=SC2086 # one word per package
  if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $packages ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $packages; }; } >"$log" 2>&1; then
    echo "prepare-tests: apt-get could not install $packages: $(tail -n 1 "$log"); install them with: $install" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  packages=$(missing)
  if [ -n "$packages" ]; then
    echo "prepare-tests: still missing after apt-get: $packages; install them with: $install" >&2
    exit 1
  fi
fi

# The oldest Node engines.node allows (">=22.22" is 22.22.0), as the npm registry ships it.
here=$(cd "${0%/*}/.." && pwd)
# shellcheck disable=SC2016 # a JavaScript template literal, not a shell expansion
min=$(node -p 'const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(require(process.argv[1]).engines.node); m ? `${m[1]}.${m[2]}.${m[3] ?? 0}` : ""' "$here/package.json")
arch=$(node -p 'process.platform + "-" + process.arch')
if [ -z "$min" ]; then
  echo "prepare-tests: package.json's engines.node is not of the form >=X.Y[.Z]; cannot tell the oldest Node to test on" >&2
  exit 1
fi
dir="${XDG_CACHE_HOME:-$HOME/.cache}/bookdist-tests/node-$min-$arch"
if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" --version 2>/dev/null)" != "v$min" ]; then
  echo "prepare-tests: fetching Node $min ($arch) from the npm registry for the package test"
  tmp=$(mktemp -d)
  if ! (cd "$tmp" && npm pack --silent "node-$arch@$min" >/dev/null 2>"$tmp/err" && tar xzf node-*.tgz); then
    echo "prepare-tests: could not fetch node-$arch@$min from the npm registry: $(tail -n 1 "$tmp/err"); check the network or npm's registry setting" >&2
    rm -rf "$tmp"
    exit 1
  fi
  rm -rf "$dir" && mkdir -p "${dir%/*}" && mv "$tmp/package" "$dir"
  rm -rf "$tmp"
fi
exit 0
