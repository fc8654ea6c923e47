#!/usr/bin/env bash
# Sets everything up on a fresh machine (Debian packages, configure, build with warnings as errors) and runs every
# test: the GoogleTest suites, the CUPTI config check (skips without libcupti), and the end-to-end app tests.
#   scripts/test.sh [preset]      (default preset: ci; asan-ubsan runs the suites under the sanitizers)
set -euo pipefail
preset="${1:-ci}"
cd "$(dirname "$0")/.."
scripts/setup.sh "$preset"
ctest --preset "$preset" --output-on-failure -j "$(nproc)"
