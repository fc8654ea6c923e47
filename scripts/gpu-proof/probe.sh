# shellcheck shell=bash
# The tools the GPU proof kit needs (sourced by scripts/gpu-proof.sh): solscope, the NVIDIA driver, and a Python with
# PyTorch and CUDA. Sets SOLSCOPE, SOLSCOPE_HOW, SOLSCOPE_VERSION; NVSMI, DRIVER_OK, NO_DRIVER; PY, PY_REASON,
# TORCH_INFO.

# find_solscope: $SOLSCOPE, the bundle around the kit, the newest bundle in dist/, the release build, then PATH
find_solscope() {
  local c newest
  if [ -n "${SOLSCOPE:-}" ]; then
    if [ -x "$SOLSCOPE" ]; then
      SOLSCOPE_HOW="\$SOLSCOPE"
      return 0
    fi
    say "gpu-proof: \$SOLSCOPE=$SOLSCOPE is not an executable file; looking elsewhere"
  fi
  c="$KIT_DIR/../../../bin/solscope"
  if [ -x "$c" ] && [ -f "$c" ]; then
    SOLSCOPE=$(cd "$(dirname "$c")" && pwd)/solscope
    SOLSCOPE_HOW="the bundle around the kit"
    return 0
  fi
  # shellcheck disable=SC2012 # newest first; the names are the bundle's own
  newest=$(ls -1td "$REPO"/dist/solscope-*-linux-x86_64/bin/solscope 2>/dev/null | head -n 1)
  if [ -n "$newest" ] && [ -x "$newest" ]; then
    SOLSCOPE=$newest
    SOLSCOPE_HOW="the newest unpacked bundle in dist/"
    return 0
  fi
  if [ -x "$REPO/build/release/solscope" ]; then
    SOLSCOPE=$REPO/build/release/solscope
    SOLSCOPE_HOW="the release build"
    return 0
  fi
  if c=$(command -v solscope 2>/dev/null) && [ -n "$c" ]; then
    SOLSCOPE=$c
    SOLSCOPE_HOW="PATH"
    return 0
  fi
  SOLSCOPE=
  return 1
}

# probe_solscope: finds solscope and reads its version
probe_solscope() {
  SOLSCOPE_HOW=
  find_solscope
  SOLSCOPE_VERSION=n/a
  if [ -n "$SOLSCOPE" ]; then
    run_cmd version 20 "$W/logs/version.out" "$SOLSCOPE" --version
    SOLSCOPE_VERSION=$(head -n 1 "$W/logs/version.out" | one_line)
    [ -n "$SOLSCOPE_VERSION" ] || SOLSCOPE_VERSION="n/a ($(why_failed version))"
    say "solscope: $SOLSCOPE (from $SOLSCOPE_HOW): $SOLSCOPE_VERSION"
  else
    say "solscope: not found (\$SOLSCOPE, $KIT_DIR/../../../bin, $REPO/dist, $REPO/build/release, PATH)"
  fi
}

# probe_driver: the NVIDIA driver (nvidia-smi -L)
probe_driver() {
  NVSMI=$(command -v nvidia-smi || true)
  DRIVER_OK=0
  NO_DRIVER="no NVIDIA driver"
  if [ -z "$NVSMI" ]; then
    NO_DRIVER="no NVIDIA driver (nvidia-smi is not on PATH)"
  else
    run_cmd nvidia-smi-L 30 "$W/nvidia-smi-L.txt" "$NVSMI" -L
    if [ "$RC" = 0 ] && grep -q '^GPU ' "$W/nvidia-smi-L.txt"; then
      DRIVER_OK=1
    else
      NO_DRIVER="no NVIDIA driver (nvidia-smi -L: $(why_failed nvidia-smi-L))"
    fi
  fi
  say "driver: $([ "$DRIVER_OK" = 1 ] && head -n 4 "$W/nvidia-smi-L.txt" | one_line || echo "$NO_DRIVER")"
}

# probe_python: a Python with PyTorch and CUDA (only where there is a driver)
probe_python() {
  PY=
  PY_REASON="no NVIDIA driver"
  TORCH_INFO=
  if [ "$DRIVER_OK" = 1 ]; then
    PY_REASON=
    tried=
    for cand in ${PYTHON:-} python3; do
      p=$(command -v "$cand" 2>/dev/null || true)
      [ -n "$p" ] || {
        PY_REASON="$PY_REASON $cand: not found;"
        continue
      }
      case " $tried " in *" $p "*) continue ;; esac
      tried="$tried $p"
      run_cmd torch-probe 90 "$W/logs/torch-probe.out" "$p" -c \
        'import sys, torch; ok = torch.cuda.is_available(); print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0) if ok else "-", sys.version.split()[0]); sys.exit(0 if ok else 3)'
      if [ "$RC" = 0 ]; then
        PY=$p
        TORCH_INFO=$(one_line <"$W/logs/torch-probe.out")
        break
      fi
      PY_REASON="$PY_REASON $p: $(why_failed torch-probe);"
    done
    if [ -n "$PY" ]; then
      say "python: $PY (torch, CUDA, GPU, python: $TORCH_INFO)"
    else
      say "python with torch: none ($PY_REASON)"
    fi
  fi
  PY_REASON="no Python with PyTorch and CUDA:${PY_REASON}"
}
