#!/usr/bin/env bash
# Builds the C++ libraries that Debian ships only as shared libraries, as static archives for the release bundle
# (docs/release.md section 2): prometheus-cpp (core) and cpp-httplib (header-only, its upstream form), from
# Debian's own source packages of the versions installed here (Debian's patches applied), so that the bundle runs
# the same code as a Debian build. Cached: a second run with the same versions does nothing.
#   scripts/package/third_party.sh PREFIX      (installs into PREFIX: lib/, include/, CMake package files)
set -euo pipefail
prefix="$(realpath -m "${1:?usage: third_party.sh PREFIX}")"
work="$(dirname "$prefix")/src"
mkdir -p "$work" "$prefix"

version_of() { dpkg-query -W -f='${source:Version}' "$1"; }
httplib_version="$(version_of libcpp-httplib-dev)"
prometheus_version="$(version_of prometheus-cpp-dev)"
stamp="$prefix/.versions"
wanted="cpp-httplib=$httplib_version prometheus-cpp=$prometheus_version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
  echo "third_party: $wanted already built in $prefix"
  exit 0
fi

# Debian's source packages through a private apt configuration (the system's sources are left as they are).
apt_dir="$work/apt"
mkdir -p "$apt_dir/lists/partial"
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$apt_dir/sources.list" <<LIST
deb-src [signed-by=$keyring] http://deb.debian.org/debian $codename main
deb-src [signed-by=$keyring] http://deb.debian.org/debian-security $codename-security main
LIST
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$apt_dir/lists" -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only -qq \
   "cpp-httplib=$httplib_version" "prometheus-cpp=$prometheus_version")
rm -rf "$work/httplib" "$work/prometheus-cpp"
(cd "$work" && dpkg-source -x --no-check ./cpp-httplib_*.dsc httplib >/dev/null &&
   dpkg-source -x --no-check ./prometheus-cpp_*.dsc prometheus-cpp >/dev/null)

common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF)
# prometheus-cpp: the core library only (Registry, collectors, the text serializer); no pull/push/civetweb.
cmake -S "$work/prometheus-cpp" -B "$work/prometheus-cpp/build" "${common[@]}" -DENABLE_PULL=OFF \
      -DENABLE_PUSH=OFF -DENABLE_COMPRESSION=OFF -DENABLE_TESTING=OFF -DGENERATE_PKGCONFIG=OFF >/dev/null
cmake --build "$work/prometheus-cpp/build" >/dev/null
cmake --install "$work/prometheus-cpp/build" >/dev/null
# cpp-httplib: header-only, with TLS (OpenSSL) and gzip (zlib), linked statically by the bundle build.
cmake -S "$work/httplib" -B "$work/httplib/build" "${common[@]}" -DHTTPLIB_COMPILE=OFF \
      -DHTTPLIB_REQUIRE_OPENSSL=ON -DHTTPLIB_REQUIRE_ZLIB=ON -DHTTPLIB_USE_BROTLI_IF_AVAILABLE=OFF >/dev/null
cmake --install "$work/httplib/build" >/dev/null
echo "$wanted" >"$stamp"
echo "third_party: built $wanted into $prefix"
