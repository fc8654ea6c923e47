#!/usr/bin/env bash
# Sets everything up on a fresh machine (Debian packages, configure, build with warnings as errors) and runs every
# test: the GoogleTest suites, the CUPTI config check (skips without libcupti), and the end-to-end app tests;
# then every fuzz target for a bounded time (scripts/fuzz.sh: 20 s each, 12 targets, about 4 minutes in all).
#   scripts/test.sh [preset]      (default preset: ci; asan-ubsan runs the suites under the sanitizers)
# Environment: SOLSCOPE_FUZZ_SECONDS (seconds per fuzz target, default 20; 0 replays the seed corpora only).
set -euo pipefail
preset="${1:-ci}"
cd "$(dirname "$0")/.."
scripts/setup.sh "$preset"
ctest --preset "$preset" --output-on-failure -j "$(nproc)"
scripts/fuzz.sh "${SOLSCOPE_FUZZ_SECONDS:-20}"
