#!/usr/bin/env bash
# package.clean_system: the release on a clean Debian 12 (docs/release.md section 5). In a copy of a minbase root
# with none of the -dev packages, through chroot: the bundle's `solscope --version`, `replay --json --speed 0` of
# the demo trace (every sample out), `devices` (exit 3 and the no-driver message); then `apt-get install` of the
# .deb and the same from /usr/bin.
#   tests/release/clean_system_test.sh DIST_DIR CACHE_DIR
set -euo pipefail
dist="$(realpath "$1")"
root_cache="$(tests/release/rootfs.sh "$2")"
tree="$(ls -d "$dist"/solscope-*-linux-x86_64 | tail -1)"
deb="$(ls "$dist"/solscope_*_amd64.deb | tail -1)"
work="$(mktemp -d)"
trap 'umount -l "$work/root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -a "$root_cache" "$work/root"
mkdir -p "$work/root/proc" && mount -t proc proc "$work/root/proc"
cp -a "$tree" "$work/root/opt/solscope"
cp "$deb" "$work/root/tmp/solscope.deb"
in_root() { chroot "$work/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
check() {  # check NAME EXPECTED_CODE CMD...: runs CMD in the root, prints its output's head, checks the code
  local name="$1" want="$2"; shift 2
  local got=0
  in_root "$@" >"$work/out" 2>"$work/err" || got=$?
  echo "== $name: exit $got"; head -c 600 "$work/out"; head -c 600 "$work/err"
  [ "$got" = "$want" ] || { echo "FAIL: $name exited $got, expected $want"; exit 1; }
}
echo "clean root: $(in_root sh -c 'ls /usr/include 2>/dev/null | wc -l') headers in /usr/include, $(in_root getconf GNU_LIBC_VERSION)"
for bin in /opt/solscope/bin/solscope /usr/bin/solscope; do
  if [ "$bin" = /usr/bin/solscope ]; then
    check "apt-get install ./solscope.deb" 0 apt-get install -y -qq --no-install-recommends /tmp/solscope.deb
  fi
  check "$bin --version" 0 "$bin" --version
  grep -q '^solscope ' "$work/out" || { echo "FAIL: no version line"; exit 1; }
  check "$bin replay --json --speed 0" 0 "$bin" replay --json --speed 0 /opt/solscope/share/solscope/demo-trace.sqlite
  samples="$(wc -l <"$work/out")"
  expected="$(python3 - "$tree/share/solscope/demo-trace.sqlite" <<'PY'
import sqlite3, sys
print(sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM samples").fetchone()[0])
PY
)"
  echo "replay printed $samples samples; the trace holds $expected"
  [ "$samples" = "$expected" ] || { echo "FAIL: replay lost samples"; exit 1; }
  check "$bin devices" 3 "$bin" devices
  grep -qi 'driver\|nvidia' "$work/out" "$work/err" || { echo "FAIL: devices did not name the missing driver"; exit 1; }
done
[ -f "$work/root/lib/systemd/system/solscope.service" ] || { echo "FAIL: the .deb installed no systemd unit"; exit 1; }
[ ! -e "$work/root/etc/systemd/system/multi-user.target.wants/solscope.service" ] ||
  { echo "FAIL: the .deb enabled the unit"; exit 1; }
echo "clean_system: PASS"
