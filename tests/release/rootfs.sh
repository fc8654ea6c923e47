#!/usr/bin/env bash
# Prints the path of a clean Debian 12 root (`debootstrap --variant=minbase bookworm`: glibc and the essential
# packages, none of solscope's -dev packages), made once and cached in CACHE_DIR/bookworm-minbase. The tests copy
# it before they change anything in it.
#   tests/release/rootfs.sh CACHE_DIR
set -euo pipefail
cache="$(realpath -m "${1:?usage: rootfs.sh CACHE_DIR}")"
root="$cache/bookworm-minbase"
if [ ! -f "$root/.complete" ]; then
  command -v debootstrap >/dev/null || { echo "rootfs: debootstrap is not installed (scripts/setup.sh installs it)" >&2; exit 77; }
  rm -rf "$root"
  mkdir -p "$cache"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  touch "$root/.complete"
fi
echo "$root"
