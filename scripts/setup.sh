#!/usr/bin/env bash
# Installs the Debian packages solscope's build and tests need, skipping those already present, and configures
# and builds the given CMake preset (default: dev). Safe to run again.
#   scripts/setup.sh [preset]       (--deps-only: the packages, uPlot and the locale, no build)
set -euo pipefail
preset="${1:-dev}"
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev libcpp-httplib-dev
  libsqlite3-dev sqlite3 libncurses-dev libexpected-dev prometheus-cpp-dev libssl-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler  # the kubelet PodResources client
  libgtest-dev libgmock-dev libbenchmark-dev
  tmux python3 clang-format locales curl
  clang libclang-rt-dev  # libFuzzer for scripts/fuzz.sh (clang 14 and its runtime on Debian 12)
  chromium prometheus prometheus-node-exporter
  # the release (scripts/package.sh) and its tests: Debian source packages, the .deb and its lint, a minimal
  # Debian root for the clean-system test, and a container engine for the image recipe
  dpkg-dev lintian debootstrap podman buildah
)
# Node.js and npm (the dashboard's uPlot, the browser tests' playwright-core): Debian's packages only where no
# Node.js is installed yet (a NodeSource nodejs already ships npm and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "solscope setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Integration tests run under a German locale too (decimal comma must never reach /metrics).
if ! locale -a 2>/dev/null | grep -qi '^de_DE.utf8$'; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" sed -i 's/^# *de_DE.UTF-8 UTF-8/de_DE.UTF-8 UTF-8/' /etc/locale.gen
  "${sudo_cmd[@]}" locale-gen >/dev/null
fi

# The web dashboard's chart library (uPlot) and the browser-test driver (playwright-core), from npm, pinned by
# web/package-lock.json. The build embeds uPlot into the binary, so the page works offline.
if [ ! -f web/node_modules/uplot/dist/uPlot.iife.min.js ] || [ ! -d web/node_modules/playwright-core ]; then
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ ! -f /usr/local/cuda/include/cupti_pmsampling.h ] && [ -z "${CUDA_HOME:-}" ]; then
  echo "solscope setup: note: no CUDA toolkit headers in /usr/local/cuda: building without the NVIDIA source" \
       "(replay works; install CUDA >= 12.6 or set CUDA_HOME for live sampling)" >&2
fi

[ "$preset" = --deps-only ] && exit 0
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
