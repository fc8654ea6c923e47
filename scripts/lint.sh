#!/usr/bin/env bash
# Static checks beyond the compiler's: clang-format (also a ctest) and clang-tidy (.clang-tidy) over src/.
# clang-tidy takes ~10 minutes on 2 cores, so CI does not run it; run it before a submission.
#   scripts/lint.sh [build dir with compile_commands.json, default build/dev]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/dev}"
[ -f "$build/compile_commands.json" ] || { echo "lint: configure first: cmake --preset dev" >&2; exit 2; }
git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run --Werror
git ls-files 'src/*.cpp' | xargs -n 4 -P "$(nproc)" clang-tidy -p "$build" --quiet 2>/dev/null |
  grep -E '^/.*(warning|error):' | sort -u | tee /tmp/solscope-tidy.log
[ ! -s /tmp/solscope-tidy.log ] && echo "lint: clean"
