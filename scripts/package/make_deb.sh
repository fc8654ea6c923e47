#!/usr/bin/env bash
# Builds dist/solscope_VERSION_amd64.deb from an unpacked release tree (scripts/package.sh): the binary in
# /usr/bin, the injection library in /usr/lib/solscope, the systemd unit installed but not enabled (no
# maintainer script enables it), the man page, the docs and deploy/. The binary is self-contained, so the only
# dependency is glibc at the floor (scripts/package/floor.sh).
#   scripts/package/make_deb.sh TREE VERSION OUT_DIR
set -euo pipefail
tree="$(realpath "$1")"
version="$2"
out="$(realpath "$3")"
. "$(dirname "$0")/floor.sh"
pkg="$(mktemp -d)"
trap 'rm -rf "$pkg"' EXIT
doc="$pkg/usr/share/doc/solscope"
mkdir -p "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/usr/lib/solscope" "$pkg/usr/share/solscope" "$pkg/usr/share/man/man1" \
         "$doc" "$pkg/lib/systemd/system"
install -m 0755 "$tree/bin/solscope-bin" "$pkg/usr/bin/solscope"
install -m 0644 "$tree/lib/solscope/libsolscope_inject.so" "$pkg/usr/lib/solscope/"
cp -r "$tree/share/solscope/." "$pkg/usr/share/solscope/"
install -m 0644 "$tree/share/man/man1/solscope.1.gz" "$pkg/usr/share/man/man1/"
# The proof kit's Python files are run through an interpreter the kit finds (a Python with PyTorch), not as
# programs: not executable here, so the package does not depend on Debian's python3.
find "$pkg/usr/share/solscope/scripts" -name '*.py' -exec chmod 0644 {} +
# The binary links zlib and ncurses in on purpose (one file that runs on any glibc >= the floor): say so to lintian.
mkdir -p "$pkg/usr/share/lintian/overrides"
cat >"$pkg/usr/share/lintian/overrides/solscope" <<'OVERRIDES'
# The release binary is self-contained (docs/release.md section 2): every library but glibc is linked in, so that
# the same file runs on Ubuntu 22.04, RHEL 9 and Amazon Linux 2023; the copyright file lists each one.
solscope: embedded-library ncurses [usr/bin/solscope]
solscope: embedded-library zlib [usr/bin/solscope]
OVERRIDES
cp -r "$tree/share/doc/solscope/docs" "$doc/docs"
install -m 0644 -t "$doc" "$tree/share/doc/solscope/"README*
# The unit as the package installs it: the binary is /usr/bin/solscope here.
sed 's|/usr/local/bin/solscope|/usr/bin/solscope|g' "$tree/share/solscope/deploy/systemd/solscope.service" \
  >"$pkg/lib/systemd/system/solscope.service"
chmod 0644 "$pkg/lib/systemd/system/solscope.service"

# copyright: solscope's own notice, then the notices of the libraries linked into the binary.
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: solscope"
  echo "Comment: /usr/bin/solscope links these libraries statically (from the Debian packages named);"
  echo " their copyright files follow."
  echo
  echo "Files: *"
  echo "Copyright: the solscope developers"
  echo "License: solscope"
  echo " The solscope project has not chosen a license yet; until it does, all rights are reserved by its"
  echo " developers."
  for f in "$tree"/share/doc/solscope/third-party/*; do
    echo
    echo "Comment: $(basename "$f")"
    sed -e 's/^$/./' -e 's/^/ /' "$f"
  done
} >"$doc/copyright"
printf 'solscope (%s) unstable; urgency=medium\n\n  * Release %s: see README.md.\n\n -- solscope developers <solscope@example.org>  %s\n' \
  "$version" "$version" "$(date -u -R -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}")" | gzip -9n >"$doc/changelog.gz"
find "$pkg" -type d -exec chmod 0755 {} +

cat >"$pkg/DEBIAN/control" <<CONTROL
Package: solscope
Version: $version
Architecture: amd64
Maintainer: solscope developers <solscope@example.org>
Installed-Size: $(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
Depends: libc6 (>= $SOLSCOPE_GLIBC_FLOOR)
Section: utils
Priority: optional
Description: GPU speed-of-light (SOL) monitor
 solscope reads NVIDIA GPUs' hardware performance counters (CUPTI PM sampling,
 NVML GPM, NVML, or DCGM through dcgm-exporter) and shows how close each GPU is
 to its speed of light: Compute SOL (busiest compute pipe), Memory SOL (busiest
 memory path) and the attainable SOL of the running workload, next to the
 classic "GPU utilization". Terminal view, web dashboard, Prometheus /metrics,
 trace recording, replay and reports. The NVIDIA libraries are loaded at run
 time: without a GPU it replays recorded traces.
CONTROL
(cd "$pkg" && find usr lib -type f -exec md5sum {} + | sort -k2) >"$pkg/DEBIAN/md5sums"
find "$pkg" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" {} +
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$out/solscope_${version}_amd64.deb" >/dev/null
echo "make_deb: $out/solscope_${version}_amd64.deb"
