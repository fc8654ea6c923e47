# shellcheck shell=bash
# Step 7 of the GPU proof kit (sourced by scripts/gpu-proof.sh): the clock-settings check, provenance.txt, and the
# packing of OUT_DIR (summary.txt, results.tar.gz, the trace and the phase files). Sets EXIT.

# step_summary: the clock settings against the start, and provenance.txt
step_summary() {
  say ""
  say "== 7 summary"
  if [ "$DRIVER_OK" = 1 ]; then
    run_cmd nvidia-smi-clocks-end 30 "$W/nvidia-smi-clocks-end.txt" "$NVSMI" -q -d CLOCK,PERFORMANCE
    # The settings sections of `nvidia-smi -q -d CLOCK` (a header line of 4 spaces, then "name : value" lines);
    # the current clocks are left out, they move with the load.
    settings() {
      awk '/^    [A-Za-z][^:]*$/ { sec = $0; gsub(/^ +| +$/, "", sec); next }
        sec ~ /^(Applications Clocks|Default Applications Clocks|Locked Clocks|Clock Policy)$/ && /:/ { print sec ": " $0 }' "$1" 2>/dev/null
    }
    if [ -s "$W/nvidia-smi-clocks-start.txt" ] && [ -s "$W/nvidia-smi-clocks-end.txt" ]; then
      s0=$(settings "$W/nvidia-smi-clocks-start.txt")
      if [ -z "$s0" ]; then
        row 7 "clock settings unchanged" INFO "nvidia-smi -q -d CLOCK shows no application-clock settings to compare"
      elif [ "$s0" = "$(settings "$W/nvidia-smi-clocks-end.txt")" ]; then
        row 7 "clock settings unchanged" PASS "application clocks and clock policy as at the start: $(printf '%s' "$s0" | one_line | cut -c1-160)"
      else
        row 7 "clock settings unchanged" FAIL "application or locked clocks differ (nvidia-smi-clocks-start.txt vs -end.txt)"
      fi
    fi
  fi

  {
    echo "date_utc: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
    echo "host: $(hostname 2>/dev/null || uname -n)"
    echo "gpu: $GPU_NAME"
    echo "driver: $DRIVER_VER"
    echo "cuda: $CUDA_VER"
    echo "solscope: $SOLSCOPE_VERSION ($SOLSCOPE)"
    echo "kernel: $(uname -r)"
    echo "user: $(id -un 2>/dev/null || id -u)"
    echo "python: ${PY:-none} ${TORCH_INFO:+(torch, CUDA, GPU, python: $TORCH_INFO)}"
    echo "command: $KIT_COMMAND"
    echo "budget_s: $BUDGET, scale: $SCALE"
  } >"$W/provenance.txt"
}

# Packing: OUT holds summary.txt, results.tar.gz, workload.sqlite, phases.json, phases_verdict.json (at most 6).
LIMIT=$((16 * 1000 * 1000))
MAX_LOOSE=$((15 * 1000 * 1000))
size() { wc -c <"$1" 2>/dev/null | tr -d ' ' || echo 0; }
PACK_NOTES=
note() { PACK_NOTES="${PACK_NOTES:+$PACK_NOTES; }$*"; }

# pack_trace: workload.sqlite and the phase files into OUT, the trace compressed or thinned when too large
pack_trace() {
  if [ -f "$W/workload.sqlite" ]; then
    [ -f "$W/workload.sqlite-wal" ] && summarise checkpoint "$W/workload.sqlite"
    [ -s "$W/workload.sqlite-wal" ] || rm -f "$W/workload.sqlite-wal" "$W/workload.sqlite-shm"
    tsize=$(size "$W/workload.sqlite")
    if [ -f "$W/workload.sqlite-wal" ]; then
      note "workload.sqlite kept a write-ahead log that could not be merged: results.tar.gz holds both"
    elif [ "$tsize" -le "$MAX_LOOSE" ]; then
      mv "$W/workload.sqlite" "$OUT/workload.sqlite"
    else
      # Too large to carry as it is (10 ms samples plus a kernel log of every decode GEMM): compressed, else thinned.
      if command -v xz >/dev/null 2>&1; then
        z=$OUT/workload.sqlite.xz
        run_cmd compress-trace 120 "$z" xz -T0 -6 -c "$W/workload.sqlite"
      else
        z=$OUT/workload.sqlite.gz
        run_cmd compress-trace 120 "$z" gzip -6 -c "$W/workload.sqlite"
      fi
      if [ "$RC" = 0 ] && [ "$(size "$z")" -le "$MAX_LOOSE" ]; then
        note "workload.sqlite ($tsize bytes) is packed as $(basename "$z")"
        rm -f "$W/workload.sqlite"
      else
        rm -f "$z"
        thin=
        if [ -n "$PYH" ]; then
          run_cmd thin-trace 150 "$TMP/thin.out" "$PYH" "$HELPER" thin "$W/workload.sqlite" "$OUT/workload.sqlite" "$MAX_LOOSE"
          [ "$RC" = 0 ] && thin=$(one_line <"$TMP/thin.out")
        fi
        if [ -n "$thin" ]; then
          note "workload.sqlite ($tsize bytes, $(basename "$z") too) was too large: $thin"
          run_cmd report-thinned 60 "$W/logs/report-thinned.json" "$SOLSCOPE" report "$OUT/workload.sqlite" --json
          [ "$RC" = 0 ] || note "solscope report of the thinned trace: $(why_failed report-thinned)"
          rm -f "$W/workload.sqlite"
        else
          rm -f "$OUT/workload.sqlite"
          note "workload.sqlite ($tsize bytes) could not be made small enough; it is left out"
          rm -f "$W/workload.sqlite"
        fi
      fi
    fi
  fi
  for f in phases.json phases_verdict.json; do
    [ -f "$W/$f" ] && cp "$W/$f" "$OUT/$f"
  done
}

# write_summary: OUT/summary.txt, the table of every check
write_summary() {
  {
    echo "solscope GPU proof kit summary"
    sed 's/^/  /' "$W/provenance.txt"
    echo "  elapsed_s: $(elapsed)"
    echo
    printf '%-4s %-34s %-6s %s\n' step check result "figures / reason"
    printf '%-4s %-34s %-6s %s\n' ---- ---------------------------------- ------ ----------------
    awk -F'\t' '{ printf "%-4s %-34s %-6s %s\n", $1, $2, $3, $4 }' "$CHECKS"
    echo
    echo "totals: $(awk -F'\t' '{ n[$3]++ } END { printf "%d PASS, %d FAIL, %d SKIP, %d INFO", n["PASS"], n["FAIL"], n["SKIP"], n["INFO"] }' "$CHECKS"); exit code $EXIT"
    if [ -n "$PACK_NOTES" ]; then echo "note: $PACK_NOTES"; fi
    files=
    for f in "$OUT"/*; do
      [ "$f" = "$W" ] || [ ! -e "$f" ] || files="$files$(basename "$f") "
    done
    echo "files: $files(results.tar.gz holds the logs, JSON, CSV, HTML and check.sqlite; they name this host and its GPUs' UUIDs)"
  } >"$OUT/summary.txt"
}

# pack: results/ into OUT/results.tar.gz
pack() { tar -czf "$OUT/results.tar.gz" -C "$OUT" results 2>>"$KIT_LOG"; }

# pack_results: the exit code, summary.txt and results.tar.gz
pack_results() {
  fails=$(awk -F'\t' '$3 == "FAIL"' "$CHECKS" | wc -l)
  EXIT=0
  [ "$fails" -gt 0 ] && EXIT=1

  write_summary
  cp "$OUT/summary.txt" "$W/summary.txt"

  # The tarball; while it is too large, the largest file goes (named in the summary).
  pack
  while [ "$(size "$OUT/results.tar.gz")" -ge "$LIMIT" ]; do
    big=$(find "$W" -type f ! -name summary.txt ! -name checks.tsv ! -name kit.log ! -name provenance.txt \
      -printf '%s %p\n' 2>/dev/null | sort -rn | head -n 1 | cut -d' ' -f2-)
    [ -n "$big" ] || break
    note "left out of results.tar.gz to stay under 16 MB: ${big#"$W"/} ($(size "$big") bytes)"
    rm -f "$big"
    write_summary
    cp "$OUT/summary.txt" "$W/summary.txt"
    pack
  done
  write_summary
  rm -rf "$W"
}
