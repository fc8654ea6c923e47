#!/usr/bin/env bash
# Makes the release from a checkout, in one command (docs/release.md):
#   dist/solscope-VERSION-linux-x86_64.tar.gz   the self-contained bundle (and its unpacked tree beside it)
#   dist/solscope_VERSION_amd64.deb             the Debian package
# Installs what it needs (scripts/setup.sh --deps-only), builds the static third-party libraries from Debian's
# source packages (scripts/package/third_party.sh) and the `bundle` preset, then lays out, checks and packs.
#   scripts/package.sh [--preset NAME] [--out DIR]
#     --preset: a portable CMake preset (SOLSCOPE_PORTABLE=ON): bundle (default) or ci, whose build CI has made
#     --out: where the tarball, its tree and the .deb go (default dist)
#   SOURCE_DATE_EPOCH (default: the last commit's time) dates every file, so that two runs give the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=bundle
dist=dist
while (($#)); do
  case "$1" in
    --preset) preset="$2"; shift 2 ;;
    --out) dist="$2"; shift 2 ;;
    *) echo "usage: scripts/package.sh [--preset NAME] [--out DIR]" >&2; exit 2 ;;
  esac
done
. scripts/package/floor.sh
scripts/setup.sh --deps-only >&2
cmake --preset "$preset" >/dev/null
build="build/$preset"
if ! grep -q '^SOLSCOPE_PORTABLE:BOOL=ON$' "$build/CMakeCache.txt"; then
  echo "package: preset $preset is not portable (SOLSCOPE_PORTABLE=ON): use bundle or ci" >&2
  exit 2
fi
cmake --build "$build" --target solscope solscope_inject solscope_man >&2

version="$("$build/solscope" --version | sed -n 's/^solscope //p')"
name="solscope-$version-linux-x86_64"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
mkdir -p "$dist"
tree="$dist/$name"
rm -rf "$tree" "$dist/$name.tar.gz"
mkdir -p "$tree"/{bin,lib/solscope,share/solscope/scripts,share/man/man1,share/doc/solscope/third-party}

# The binary, its launcher (the glibc floor's one-line message) and the injection library, stripped.
install -m 0755 "$build"/solscope "$tree/bin/solscope-bin"
strip --strip-all "$tree/bin/solscope-bin"
sed "s/@GLIBC_FLOOR@/$SOLSCOPE_GLIBC_FLOOR/" scripts/package/launcher.sh.in >"$tree/bin/solscope"
chmod 0755 "$tree/bin/solscope"
install -m 0644 "$build"/libsolscope_inject.so "$tree/lib/solscope/"
strip --strip-unneeded "$tree/lib/solscope/libsolscope_inject.so"
# Data, the GPU proof kit, the man page, the docs and the deploy files.
install -m 0644 data/demo-trace.sqlite "$tree/share/solscope/"
for f in scripts/gpu-proof.sh scripts/gpu_workload.py scripts/gpu_proof_ncu.py scripts/make_demo_from_recording.py; do
  [ -f "$f" ] && install -m 0755 "$f" "$tree/share/solscope/scripts/"
done
# Their parts: gpu_workload.py's modules beside it; gpu-proof.sh's steps and summariser in gpu-proof/.
install -m 0644 scripts/gpu_workload_*.py "$tree/share/solscope/scripts/"
install -d "$tree/share/solscope/scripts/gpu-proof"
install -m 0644 scripts/gpu-proof/*.sh scripts/gpu-proof/*.py "$tree/share/solscope/scripts/gpu-proof/"
gzip -9n <"$build"/solscope.1 >"$tree/share/man/man1/solscope.1.gz"
cp -r deploy "$tree/share/solscope/deploy"
cp -r docs "$tree/share/doc/solscope/docs"
rm -rf "$tree/share/doc/solscope/docs/screenshots"
install -m 0644 -t "$tree/share/doc/solscope" README.md
install -m 0644 -t "$tree" README.md
# The copyright notices of everything linked in, from the Debian packages it was built from.
for pkg in libstdc++-12-dev libfmt-dev libtomlplusplus-dev libcpp-httplib-dev prometheus-cpp-dev libsqlite3-dev \
           libncurses-dev libssl-dev zlib1g-dev nlohmann-json3-dev libcli11-dev libexpected-dev \
           libgrpc++-dev libgrpc-dev libprotobuf-dev libabsl-dev libre2-dev libc-ares-dev; do
  src="/usr/share/doc/$pkg/copyright"
  [ -f "$src" ] && install -m 0644 "$src" "$tree/share/doc/solscope/third-party/$pkg.copyright"
done
install -m 0644 web/node_modules/uplot/LICENSE "$tree/share/doc/solscope/third-party/uplot.LICENSE"

tests/release/check_bundle.sh "$tree"
find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -C "$dist" -cf - "$name" |
  gzip -9n >"$dist/$name.tar.gz"
scripts/package/make_deb.sh "$tree" "$version" "$dist"
echo "solscope package: $dist/$name.tar.gz ($(du -h "$dist/$name.tar.gz" | cut -f1)), unpacked in $tree;" \
     "$dist/solscope_${version}_amd64.deb"
