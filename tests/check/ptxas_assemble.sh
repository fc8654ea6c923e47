#!/bin/sh
# Assembles every calibration kernel (src/check/kernels/*.ptx) with the CUDA toolkit's ptxas for each GPU
# architecture `solscope check` supports and this ptxas knows: sm_80, sm_86, sm_89, sm_90, sm_100, sm_120, from
# the file's own .target up (a file for sm_90a only for sm_90a). Warnings count as errors. It first proves that
# a broken file fails, so a ptxas that accepted anything could not pass, and checks that every kernel with a
# .maxntid directive needs enough registers to run one block per SM. Exit 77 (ctest SKIP_RETURN_CODE) when
# there is no ptxas.
# Usage: ptxas_assemble.sh PTXAS KERNEL_DIR WORK_DIR
ptxas=$1
kernels=$2
work=$3
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  echo "SKIPPED: no ptxas found (install the CUDA toolkit, or put ptxas on PATH or in /usr/local/cuda/bin)"
  exit 77
fi
mkdir -p "$work" || exit 1
"$ptxas" --version | tail -n 2
known=$("$ptxas" --help)
archs=""
for arch in sm_80 sm_86 sm_89 sm_90 sm_100 sm_120; do
  if printf '%s' "$known" | grep -q "'$arch'"; then
    archs="$archs $arch"
  else
    echo "note: this ptxas does not know $arch; not assembled for it"
  fi
done

# A file with an error must fail: an undeclared register.
printf '.version 7.0\n.target sm_80\n.address_size 64\n.visible .entry broken()\n{\n  mov.u32 %%r_missing, 1;\n  ret;\n}\n' \
  >"$work/broken.ptx"
if "$ptxas" -arch=sm_80 --warning-as-error -o "$work/broken.cubin" "$work/broken.ptx" >/dev/null 2>&1; then
  echo "FAIL: ptxas accepted a broken PTX file, so this test could not catch an error"
  exit 1
fi

failed=0
count=0
for file in "$kernels"/*.ptx; do
  name=$(basename "$file" .ptx)
  target=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*\(sm_[0-9]*a\{0,1\}\).*/\1/p' "$file" | head -n 1)
  if [ -z "$target" ]; then
    echo "FAIL: $file has no .target line"
    failed=1
    continue
  fi
  case "$target" in
    *a) list="$target" ;;
    *) list="$archs" ;;
  esac
  floor=$(printf '%s' "$target" | tr -dc '0-9')
  for arch in $list; do
    level=$(printf '%s' "$arch" | tr -dc '0-9')
    [ "$level" -lt "$floor" ] && continue
    if "$ptxas" -arch="$arch" -v --warning-as-error -o "$work/$name.$arch.cubin" "$file" >"$work/$name.$arch.log" 2>&1; then
      registers=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$work/$name.$arch.log" | head -n 1)
      echo "ok: $name.ptx for $arch ($registers registers)"
      count=$((count + 1))
      # A kernel with .maxntid T must need more than 32768 / T registers per thread, so that a second block never
      # fits beside the first on an SM of 64 K registers: a grid of N blocks then runs on N distinct SMs.
      threads=$(sed -n 's/^[[:space:]]*\.maxntid[[:space:]]*\([0-9]*\).*/\1/p' "$file" | head -n 1)
      if [ -n "$threads" ] && [ $((registers * threads)) -le 32768 ]; then
        echo "FAIL: $name.ptx for $arch: $registers registers x $threads threads would let two blocks share an SM"
        failed=1
      fi
    else
      echo "FAIL: $name.ptx for $arch:"
      cat "$work/$name.$arch.log"
      failed=1
    fi
  done
done
echo "$count assemblies"
[ "$count" -gt 0 ] || failed=1
exit $failed
