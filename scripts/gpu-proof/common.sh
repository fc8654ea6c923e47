# shellcheck shell=bash
# The GPU proof kit's helpers (sourced by scripts/gpu-proof.sh): log lines, the time budget, result rows, commands
# under a timeout and the summariser. They use the kit's state that gpu-proof.sh sets: OUT, W, CHECKS, KIT_LOG, T0,
# BUDGET, SCALE, RESERVE, INTERRUPTED, CURRENT_PID, TIMEOUT_BIN, PYH and HELPER.

say() { printf '%s\n' "$*" | tee -a "$KIT_LOG"; }
elapsed() { echo $(($(date +%s) - T0)); }
remaining() { echo $((BUDGET - $(date +%s) + T0)); }
one_line() { tr '\t\r\n' '   ' | sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//' | cut -c1-400; }
# x * SCALE, at least MIN (a number); prints an integer or a decimal for the tools
scaled() { awk -v x="$1" -v s="$SCALE" -v m="${2:-0}" 'BEGIN { v = x * s; if (v < m) v = m; printf "%g", v }'; }

# row STEP CHECK RESULT TEXT: one line of the summary table
row() {
  local text
  text=$(printf '%s' "$4" | one_line)
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$text" >>"$CHECKS"
  say "  $3  $2: $text"
}

# rows STEP: reads "CHECK<TAB>RESULT<TAB>TEXT" lines on stdin
rows() {
  local check result text n=0
  while IFS=$'\t' read -r check result text; do
    [ -n "$check" ] || continue
    case "$result" in PASS | FAIL | SKIP | INFO) ;; *) result=INFO ;; esac
    row "$1" "$check" "$result" "$text"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ]
}

# step_ready STEP NAME NEEDS LIMIT MIN: true, with T set to the step's timeout (step_time LIMIT MIN), when the driver,
# every need in NEEDS ("solscope", "python") and the budget are there; otherwise the step's SKIP row with the
# first reason, and false.
# shellcheck disable=SC2034 # T is read by the step that called it
step_ready() {
  local step=$1 name=$2 needs=$3
  if [ "$DRIVER_OK" != 1 ]; then
    row "$step" "$name" SKIP "$NO_DRIVER"
  elif [[ " $needs " == *" solscope "* ]] && [ -z "$SOLSCOPE" ]; then
    row "$step" "$name" SKIP "no solscope binary"
  elif [[ " $needs " == *" python "* ]] && [ -z "$PY" ]; then
    row "$step" "$name" SKIP "$PY_REASON"
  elif ! T=$(step_time "$4" "$5"); then
    row "$step" "$name" SKIP "$(skip_reason)"
  else
    return 0
  fi
  return 1
}

# step_time LIMIT MIN: the timeout for the next command, or nothing (return 1) when the budget cannot give MIN
step_time() {
  local left=$(($(remaining) - RESERVE))
  [ "$INTERRUPTED" = 0 ] || return 1
  [ "$left" -ge "$2" ] || return 1
  if [ "$left" -lt "$1" ]; then echo "$left"; else echo "$1"; fi
}

# shellcheck disable=SC2317 # called by the trap
on_signal() {
  INTERRUPTED=1
  [ -n "$CURRENT_PID" ] && kill -TERM "$CURRENT_PID" 2>/dev/null
}

# run_cmd NAME SECONDS STDOUT_FILE CMD...: runs CMD under timeout, stderr to logs/NAME.err; sets RC and RUN_S.
# 124 = timed out. Logged in logs/commands.log.
run_cmd() {
  local name=$1 limit=$2 out=$3 t0 pid
  shift 3
  t0=$(date +%s)
  if [ -n "$TIMEOUT_BIN" ]; then
    "$TIMEOUT_BIN" -k 10 "$limit" "$@" >"$out" 2>"$W/logs/$name.err" </dev/null &
  else
    "$@" >"$out" 2>"$W/logs/$name.err" </dev/null &
  fi
  pid=$!
  CURRENT_PID=$pid
  wait "$pid"
  RC=$?
  while [ "$RC" -gt 128 ] && kill -0 "$pid" 2>/dev/null; do
    wait "$pid"
    RC=$?
  done
  CURRENT_PID=
  RUN_S=$(($(date +%s) - t0))
  printf '%s: exit %s after %s s (limit %s s): %s\n' "$name" "$RC" "$RUN_S" "$limit" "$*" >>"$W/logs/commands.log"
  return 0
}

# why_failed NAME: "exit N" or "timed out after N s", plus the last line of its stderr
why_failed() {
  local last
  last=$(grep -v '^[[:space:]]*$' "$W/logs/$1.err" 2>/dev/null | tail -n 1 | one_line | cut -c1-200)
  if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
    printf 'timed out after %s s%s' "$RUN_S" "${last:+: $last}"
  else
    printf 'exit %s%s' "$RC" "${last:+: $last}"
  fi
}

skip_reason() {
  if [ "$INTERRUPTED" != 0 ]; then echo "interrupted"; else echo "budget: $(remaining) s of $BUDGET s left"; fi
}

# summarise KIND FILE... : runs the summariser; prints nothing without Python
summarise() {
  [ -n "$PYH" ] || return 1
  "$PYH" "$HELPER" "$@" 2>>"$W/logs/summarise.err"
}
