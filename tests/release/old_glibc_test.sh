#!/usr/bin/env bash
# package.old_glibc: on a glibc older than the floor (here a getconf that reports RHEL 8's 2.28) and on a system
# without glibc, the bundle's launcher prints one line naming the floor and exits 1, instead of the dynamic
# loader's error; on the floor itself it runs the program.
#   tests/release/old_glibc_test.sh DIST_DIR
set -euo pipefail
tree="$(ls -d "$(realpath "$1")"/solscope-*-linux-x86_64 | tail -1)"
. scripts/package/floor.sh
fake="$(mktemp -d)"
trap 'rm -rf "$fake"' EXIT
run_with() {  # run_with GETCONF_OUTPUT: the launcher with a getconf that prints it
  printf '#!/bin/sh\n[ -n "%s" ] && echo "%s"\n' "$1" "$1" >"$fake/getconf"
  chmod +x "$fake/getconf"
  PATH="$fake:$PATH" "$tree/bin/solscope" --version 2>&1
}
out="$(run_with 'glibc 2.28')" && { echo "FAIL: ran on glibc 2.28: $out"; exit 1; }
echo "glibc 2.28: $out"
[ "$(wc -l <<<"$out")" = 1 ] && grep -q "needs glibc $SOLSCOPE_GLIBC_FLOOR or newer" <<<"$out" && grep -q 2.28 <<<"$out"
out="$(run_with '')" && { echo "FAIL: ran without glibc: $out"; exit 1; }
echo "no glibc: $out"
grep -q "no glibc" <<<"$out"
out="$(run_with "glibc $SOLSCOPE_GLIBC_FLOOR")"
echo "glibc $SOLSCOPE_GLIBC_FLOOR: $out"
grep -q '^solscope ' <<<"$out"
echo "old_glibc: PASS"
