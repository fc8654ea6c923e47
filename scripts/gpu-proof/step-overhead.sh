# shellcheck shell=bash
# Step 5 of the GPU proof kit (sourced by scripts/gpu-proof.sh): the GEMM's and the copy's throughput with no
# solscope and under solscope record at 100/10/1 ms (gpu_workload.py --overhead).

step_overhead() {
  say ""
  say "== 5 overhead"
  if step_ready 5 "overhead" "solscope python" 130 "$(scaled 45 20 | cut -d. -f1)"; then
    run_cmd overhead "$T" "$W/logs/overhead.out" "$PY" "$KIT_DIR/gpu_workload.py" --overhead --solscope "$SOLSCOPE" \
      --out "$W/overhead.json" --measure-seconds "$(scaled 1 0.1)"
    [ "$RC" = 0 ] || row 5 "overhead run" FAIL "$(why_failed overhead)"
    if [ -f "$W/overhead.json" ]; then
      summarise overhead "$W/overhead.json" | rows 5
    else
      row 5 "overhead" FAIL "no overhead.json"
    fi
    say "  ($RUN_S s)"
  fi
}
