#!/bin/sh
# What the tests need from the system, prepared before any test runs: `npm test` (and
# `npm run test:e2e`) and .ci/run both run this script, so the two cannot drift.
#   tinyproxy   a real forward proxy for the network tests (test/network/), started in a private
#               mount namespace (unshare) where the test host name resolves; /etc/hosts is never edited
#   mandoc, man-db   the man page lint and `man -l` (test/docs/, test/foundation/package.e2e.test.ts)
#   zsh, fish, shellcheck   the completion scripts (test/completion/)
#   chromium    the browser tests (test/**/*.browser.test.ts, through playwright-core)
#   faketime    the clock check of profile check (test/network/)
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
exit 0
