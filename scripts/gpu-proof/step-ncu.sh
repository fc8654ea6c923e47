# shellcheck shell=bash
# Step 4 of the GPU proof kit (sourced by scripts/gpu-proof.sh): Nsight Compute on a short run of the same kernels,
# joined with step 3's figures (gpu_proof_ncu.py).

# find_ncu: prints the ncu to use ($NCU, PATH, /opt/nvidia/nsight-compute, /usr/local/cuda*/bin)
find_ncu() {
  local c
  for c in "${NCU:-}" "$(command -v ncu 2>/dev/null)"; do
    [ -n "$c" ] && [ -x "$c" ] && {
      echo "$c"
      return 0
    }
  done
  # shellcheck disable=SC2012 # the paths have no spaces
  for c in $(ls -1d /opt/nvidia/nsight-compute/*/ncu /opt/nvidia/nsight-compute/ncu /usr/local/cuda/bin/ncu \
    /usr/local/cuda-*/bin/ncu /usr/local/NVIDIA-Nsight-Compute*/ncu 2>/dev/null | sort -rV); do
    [ -x "$c" ] && {
      echo "$c"
      return 0
    }
  done
  return 1
}

step_ncu() {
  say ""
  say "== 4 Nsight Compute cross-check"
  if [ "$DRIVER_OK" != 1 ]; then
    row 4 "ncu cross-check" SKIP "$NO_DRIVER"
  elif [ -z "$PY" ]; then
    row 4 "ncu cross-check" SKIP "$PY_REASON"
  elif ! NCU_BIN=$(find_ncu); then
    row 4 "ncu cross-check" SKIP "ncu not found (NCU, PATH, /opt/nvidia/nsight-compute, /usr/local/cuda*/bin)"
  elif ! T=$(step_time 45 20); then
    row 4 "ncu cross-check" SKIP "$(skip_reason)"
  else
    run_cmd ncu-version 20 "$W/logs/ncu-version.out" "$NCU_BIN" --version
    run_cmd ncu-query "$T" "$W/ncu_query_metrics.txt" "$NCU_BIN" --query-metrics
    known() { grep -q -E "^[[:space:]]*$1([[:space:]]|$)" "$W/ncu_query_metrics.txt"; }
    if ! grep -q -E '^[[:space:]]*dram__throughput([[:space:]]|$)' "$W/ncu_query_metrics.txt" && [ -n "$GPU_NAME" ]; then
      case "$GPU_NAME" in
        *H100* | *H20* | *H800*) chip=gh100 ;; # H20 also matches H200 and GH200
        *A100* | *A800* | *A30*) chip=ga100 ;;
        *) chip= ;;
      esac
      [ -n "$chip" ] && run_cmd ncu-query-chip "$T" "$W/ncu_query_metrics.txt" "$NCU_BIN" --query-metrics --chip "$chip"
    fi
    WANT=
    NOTE=
    if grep -q -E '^[[:space:]]*dram__throughput([[:space:]]|$)' "$W/ncu_query_metrics.txt"; then
      tensor=
      for m in sm__pipe_tensor_cycles_active sm__inst_executed_pipe_tensor sm__pipe_tensor_op_hmma_cycles_active; do
        if known "$m"; then
          tensor=$m
          break
        fi
      done
      [ -n "$tensor" ] && WANT="$tensor.avg.pct_of_peak_sustained_elapsed"
      [ -n "$tensor" ] || NOTE="no tensor-pipe metric known;"
      known sm__pipe_tensor_op_gmma_cycles_active && WANT="$WANT,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
      for m in sm__pipe_fma_cycles_active dram__throughput lts__t_sectors; do
        if known "$m"; then WANT="$WANT,$m.avg.pct_of_peak_sustained_elapsed"; else NOTE="$NOTE $m unknown;"; fi
      done
      known gpu__time_duration && WANT="$WANT,gpu__time_duration.sum"
    else
      NOTE="ncu --query-metrics listed nothing usable (see ncu_query_metrics.txt); the metrics are asked unfiltered;"
      WANT="sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum"
    fi
    WANT=${WANT#,}
    printf '%s\n' "$WANT" | tr ',' '\n' >"$W/ncu_metrics_used.txt"
    row 4 "ncu metrics" INFO "$(head -n 1 "$W/logs/ncu-version.out" 2>/dev/null | one_line); used: $WANT${NOTE:+; $NOTE}"
    if ! T=$(step_time 150 45); then
      row 4 "ncu profile" SKIP "$(skip_reason)"
    else
      ncu_run() { # ncu_run NAME METRICS
        rm -f "$W/ncu_raw.csv" "$W/ncu_phases.json"
        run_cmd "$1" "$T" "$W/logs/$1.out" "$NCU_BIN" --clock-control none --target-processes all --csv --page raw \
          --metrics "$2" --log-file "$W/ncu_raw.csv" "$PY" "$KIT_DIR/gpu_workload.py" --short --phases "$W/ncu_phases.json"
      }
      ncu_errors() { grep -h -m 2 '==ERROR==' "$W/ncu_raw.csv" "$W/logs/$1.out" "$W/logs/$1.err" 2>/dev/null | one_line | cut -c1-200; }
      ncu_run ncu "$WANT"
      FIRST=
      if [ "$RC" != 0 ] && ncu_errors ncu | grep -qi 'metric' && T=$(step_time 150 45); then
        # One metric ncu does not know fails the whole run: once more with the ones every chip since Volta has.
        FIRST="$(why_failed ncu); $(ncu_errors ncu)"
        [ -f "$W/ncu_raw.csv" ] && mv "$W/ncu_raw.csv" "$W/ncu_raw_first.csv"
        errs="$(ncu_errors ncu) $(grep -h -i 'metric' "$W/logs/ncu.err" "$W/ncu_raw_first.csv" 2>/dev/null | head -n 5 | one_line)"
        keep=
        for m in $(printf '%s' "$WANT" | tr ',' ' '); do
          case "$errs" in *"${m%%.*}"*) ;; *) keep="$keep,$m" ;; esac
        done
        keep=${keep#,}
        if [ "$keep" = "$WANT" ] || [ -z "$keep" ]; then
          keep=dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
        fi
        WANT=$keep
        printf '%s\n' "$WANT" | tr ',' '\n' >"$W/ncu_metrics_used.txt"
        ncu_run ncu-retry "$WANT"
        cp "$W/logs/ncu-retry.out" "$W/logs/ncu.out" 2>/dev/null
      fi
      if [ "$RC" = 0 ]; then
        row 4 "ncu profile" PASS "exit 0 after $RUN_S s; $(grep -c '^"[0-9]' "$W/ncu_raw.csv" 2>/dev/null) kernel rows${FIRST:+; only with $WANT: the first list failed: $FIRST}"
      else
        row 4 "ncu profile" FAIL "$(why_failed "$([ -n "$FIRST" ] && echo ncu-retry || echo ncu)"); $(ncu_errors ncu)${FIRST:+; the first list failed too: $FIRST}"
      fi
      if [ -f "$W/ncu_phases.json" ] && { [ -f "$W/ncu_raw.csv" ] || [ -s "$W/logs/ncu.out" ]; }; then
        csvf=$W/ncu_raw.csv # where --log-file put the CSV; else ncu's stdout
        grep -q '^"ID"' "$csvf" || ! grep -q '^"ID"' "$W/logs/ncu.out" || csvf=$W/logs/ncu.out
        args=(--ncu-csv "$csvf" --short-phases "$W/ncu_phases.json" --out "$W/ncu_vs_solscope.csv" --rows)
        [ -f "$W/phases_verdict.json" ] && args+=(--verdict "$W/phases_verdict.json")
        [ -f "$W/workload.sqlite" ] && args+=(--trace "$W/workload.sqlite")
        if [ -n "$PYH" ]; then
          "$PYH" "$KIT_DIR/gpu_proof_ncu.py" "${args[@]}" 2>>"$W/logs/ncu-join.err" | rows 4 ||
            row 4 "ncu join" FAIL "gpu_proof_ncu.py printed nothing (see logs/ncu-join.err)"
        else
          row 4 "ncu join" SKIP "no python3 for gpu_proof_ncu.py"
        fi
      else
        row 4 "ncu join" SKIP "no ncu CSV or no short-run phase file"
      fi
    fi
  fi
}
