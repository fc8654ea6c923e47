# shellcheck shell=bash
# Step 2 of the GPU proof kit (sourced by scripts/gpu-proof.sh): solscope check --json.

step_check() {
  say ""
  say "== 2 solscope check"
  if step_ready 2 "solscope check" "solscope" 170 60; then
    run_cmd check "$T" "$W/check.json" "$SOLSCOPE" check --json --seconds "$(scaled 1.5 0.5)" -o "$W/check.sqlite"
    case "$RC" in
      0 | 6)
        summarise check "$W/check.json" | rows 2 || row 2 "solscope check" FAIL "exit $RC; check.json unreadable"
        ;;
      3) row 2 "solscope check" FAIL "exit 3 (no driver or GPU) although nvidia-smi works: $(why_failed check)" ;;
      *) row 2 "solscope check" FAIL "$(why_failed check)" ;;
    esac
    say "  ($RUN_S s)"
  fi
}
