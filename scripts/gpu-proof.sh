#!/usr/bin/env bash
# The GPU proof kit: proves solscope on this machine's GPU in one run of at most 8 minutes, and packs the results
# for a bug report or a review (docs/gpu-proof.md).
#
#   scripts/gpu-proof.sh OUT_DIR
#
# OUT_DIR must be new or empty. Steps (each under its own timeout; a step that fails never stops the kit; a tool
# that is missing makes its steps SKIP with the reason):
#   1 environment: nvidia-smi, solscope --version, solscope devices as root and as an unprivileged user
#   2 solscope check --json (calibrated kernels per counter source, and the sampling overhead)
#   3 a workload of known phases (scripts/gpu_workload.py, PyTorch) under solscope run --interval 10ms, then
#     solscope report --json and solscope report --phases (each phase against what it must show)
#   4 Nsight Compute (ncu --clock-control none) on a short run of the same kernels, joined with step 3's figures
#   5 overhead: the GEMM's and the copy's throughput with no solscope and under solscope record at 100/10/1 ms
#   6 solscope serve for 15 s on a loopback port: /metrics, /api/v1/devices, /healthz
#   7 summary: a table of every check, printed last and written to OUT_DIR/summary.txt
# OUT_DIR then holds at most 6 files, each under 16 MB: summary.txt, results.tar.gz (logs, JSON, CSV, HTML,
# check.sqlite, ...), workload.sqlite, phases.json, phases_verdict.json. They name this host and its GPUs' UUIDs.
#
# Exit codes: 0 every check PASS, INFO or SKIP; 1 at least one FAIL; 2 bad usage (no OUT_DIR, or OUT_DIR not empty).
#
# Environment: SOLSCOPE (the binary; else <kit>/../../../bin/solscope in an unpacked bundle, the newest
# <repo>/dist/solscope-*-linux-x86_64/bin/solscope, <repo>/build/release/solscope, then PATH), PYTHON (a Python with
# PyTorch and CUDA; else python3), NCU (else ncu on PATH, /opt/nvidia/nsight-compute, /usr/local/cuda*/bin),
# SOLSCOPE_PROOF_BUDGET_S (total seconds, default 480), SOLSCOPE_PROOF_SCALE (shortens every timed part by this
# factor, for tests; default 1).
set -u
umask 022

usage() {
  sed -n '2,/^set -u$/p' "$0" | sed -e '/^set -u$/d' -e 's/^# \{0,1\}//'
}

if [ $# -ne 1 ] || [ -z "${1:-}" ]; then
  usage >&2
  echo "gpu-proof: error: give one argument, the output folder (OUT_DIR)" >&2
  exit 2
fi
case "$1" in
  -h | --help)
    usage
    exit 0
    ;;
  -*)
    usage >&2
    echo "gpu-proof: error: unknown option $1" >&2
    exit 2
    ;;
esac

# The steps live beside this script, in gpu-proof/ (also in an unpacked bundle's share/solscope/scripts/).
KIT_DIR=$(cd "$(dirname "$0")" && pwd)
PARTS=$KIT_DIR/gpu-proof
for part in common.sh probe.sh step-env.sh step-check.sh step-workload.sh step-ncu.sh step-overhead.sh \
  step-serve.sh summary.sh summarise.py; do
  if [ ! -r "$PARTS/$part" ]; then
    echo "gpu-proof: error: $PARTS/$part is missing: install gpu-proof.sh with its folder gpu-proof/" >&2
    exit 2
  fi
done
# shellcheck source=SCRIPTDIR/gpu-proof/common.sh
. "$PARTS/common.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/probe.sh
. "$PARTS/probe.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/step-env.sh
. "$PARTS/step-env.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/step-check.sh
. "$PARTS/step-check.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/step-workload.sh
. "$PARTS/step-workload.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/step-ncu.sh
. "$PARTS/step-ncu.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/step-overhead.sh
. "$PARTS/step-overhead.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/step-serve.sh
. "$PARTS/step-serve.sh"
# shellcheck source=SCRIPTDIR/gpu-proof/summary.sh
. "$PARTS/summary.sh"

OUT=$1
if [ -e "$OUT" ] && [ ! -d "$OUT" ]; then
  echo "gpu-proof: error: $OUT exists and is not a folder. give a new or empty folder" >&2
  exit 2
fi
if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
  echo "gpu-proof: error: $OUT is not empty. give a new or empty folder (the kit packs everything it holds)" >&2
  exit 2
fi
if ! mkdir -p "$OUT" 2>/dev/null || ! OUT=$(cd "$OUT" && pwd); then
  echo "gpu-proof: error: cannot create $OUT" >&2
  exit 2
fi

KIT_COMMAND="$0 $*"
REPO=$(cd "$KIT_DIR/.." && pwd)
W=$OUT/results
mkdir -p "$W/logs" || exit 2
CHECKS=$W/checks.tsv
: >"$CHECKS"
KIT_LOG=$W/kit.log
TMP=$(mktemp -d "${TMPDIR:-/tmp}/solscope-proof.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

BUDGET=${SOLSCOPE_PROOF_BUDGET_S:-480}
case "$BUDGET" in '' | *[!0-9]*) BUDGET=480 ;; esac
SCALE=${SOLSCOPE_PROOF_SCALE:-1}
case "$SCALE" in '' | *[!0-9.]* | *.*.*) SCALE=1 ;; esac
RESERVE=45 # seconds kept for the summary and the packing (a large trace is compressed or thinned)
T0=$(date +%s)
INTERRUPTED=0
CURRENT_PID=
export CUDA_DEVICE_ORDER=PCI_BUS_ID # CUDA's device 0 is NVML's device 0
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
trap on_signal INT TERM
TIMEOUT_BIN=$(command -v timeout || true)
# The summariser reads the JSON files and prints rows (standard library; any Python 3).
PYH=$(command -v python3 || command -v python || true)
HELPER=$PARTS/summarise.py

say "solscope GPU proof kit: $(date -u '+%Y-%m-%dT%H:%M:%SZ'), budget $BUDGET s, output $OUT"
say ""
probe_solscope
probe_driver
probe_python

step_env
step_check
step_workload
step_ncu
step_overhead
step_serve
step_summary
pack_trace
pack_results

echo
cat "$OUT/summary.txt"
exit "$EXIT"
