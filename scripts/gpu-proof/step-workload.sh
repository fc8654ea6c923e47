# shellcheck shell=bash
# Step 3 of the GPU proof kit (sourced by scripts/gpu-proof.sh): the workload of known phases (gpu_workload.py)
# under solscope run, then solscope report --json and report --phases. Sets WORKLOAD_OK.

step_workload() {
  say ""
  say "== 3 workload of known phases"
  WORKLOAD_OK=0
  if step_ready 3 "workload" "solscope python" 150 "$(scaled 70 25 | cut -d. -f1)"; then
    run_cmd workload "$T" "$W/logs/workload.out" "$SOLSCOPE" --interval 10ms run -o "$W/workload.sqlite" \
      --html "$W/workload.html" -- "$PY" "$KIT_DIR/gpu_workload.py" --phases "$W/phases.json" \
      --seconds-scale "$SCALE"
    if [ "$RC" = 0 ]; then
      row 3 "workload run" PASS "solscope run --interval 10ms: exit 0 after $RUN_S s"
    else
      row 3 "workload run" FAIL "$(why_failed workload)"
    fi
    [ -f "$W/workload.sqlite" ] && WORKLOAD_OK=1
    if [ -f "$W/phases.json" ]; then
      summarise achieved "$W/phases.json" | rows 3
    else
      row 3 "workload phases" FAIL "no phase file written (see logs/workload.err)"
    fi
    if [ "$WORKLOAD_OK" = 1 ]; then
      [ -f "$W/workload.sqlite-wal" ] && summarise checkpoint "$W/workload.sqlite"
      if T=$(step_time 60 10); then
        run_cmd report "$T" "$W/report.json" "$SOLSCOPE" report "$W/workload.sqlite" --json
        if [ "$RC" = 0 ]; then
          row 3 "report --json" PASS "$(wc -c <"$W/report.json") bytes"
          summarise report "$W/report.json" | rows 3
        else
          row 3 "report --json" FAIL "$(why_failed report)"
        fi
      else
        row 3 "report --json" SKIP "$(skip_reason)"
      fi
      if [ ! -f "$W/phases.json" ]; then
        row 3 "report --phases" SKIP "no phase file"
      elif T=$(step_time 60 10); then
        run_cmd verdict "$T" "$W/phases_verdict.json" "$SOLSCOPE" report "$W/workload.sqlite" --phases \
          "$W/phases.json" --json
        if [ "$RC" = 2 ] && grep -q 'is not in the trace' "$W/logs/verdict.err" && T=$(step_time 60 10) &&
          summarise drop-uuid "$W/phases.json" "$W/phases_any_gpu.json"; then
          # torch's UUID did not match NVML's: judge against the trace's only GPU instead (and say so).
          row 3 "phase file GPU" FAIL "$(why_failed verdict); judged again without the UUID"
          run_cmd verdict-any-gpu "$T" "$W/phases_verdict.json" "$SOLSCOPE" report "$W/workload.sqlite" --phases \
            "$W/phases_any_gpu.json" --json
        fi
        case "$RC" in
          0 | 6) summarise verdict "$W/phases_verdict.json" "$W/phases.json" | rows 3 || row 3 "report --phases" FAIL "exit $RC; output unreadable" ;;
          2) row 3 "report --phases" FAIL "exit 2 (bad command line or phase file; does this solscope know --phases?): $(why_failed verdict)" ;;
          *) row 3 "report --phases" FAIL "$(why_failed verdict)" ;;
        esac
      else
        row 3 "report --phases" SKIP "$(skip_reason)"
      fi
    else
      row 3 "report" SKIP "no trace was written"
    fi
  fi
}
