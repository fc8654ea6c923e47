#!/usr/bin/env bash
# Sets everything up on a fresh machine (Debian packages, configure, build) and runs solscope with the given
# arguments: with none, the live view of every GPU, or, on a machine without an NVIDIA GPU, of the bundled trace.
#   scripts/run.sh [solscope arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release >&2
exec build/release/solscope "$@"
