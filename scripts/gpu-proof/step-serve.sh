# shellcheck shell=bash
# Step 6 of the GPU proof kit (sourced by scripts/gpu-proof.sh): solscope serve on a loopback port; /healthz,
# /metrics and /api/v1/devices.

# fetch URL FILE: prints the HTTP status (000 when there was no answer)
fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -sS -m 5 -o "$2" -w '%{http_code}' "$1" 2>>"$W/logs/serve-fetch.err" || true
  elif [ -n "$PYH" ]; then
    "$PYH" - "$1" "$2" 2>>"$W/logs/serve-fetch.err" <<'PYEOF' || echo 000
import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
        open(sys.argv[2], "wb").write(r.read()); print(r.status)
except urllib.error.HTTPError as e:
    open(sys.argv[2], "wb").write(e.read()); print(e.code)
PYEOF
  else
    echo 000
  fi
}

# served_row PATH HTTP_CODE WHAT FILE EMPTY_REASON NO_PYTHON: the row of one answer of serve: FAIL on a code other
# than 200; else `summarise WHAT FILE` says "COUNT<tab>TEXT", PASS when COUNT is not 0 (FAIL with EMPTY_REASON)
served_row() {
  local summary
  if [ "$2" != 200 ]; then
    row 6 "serve $1" FAIL "HTTP $2"
    return
  fi
  summary=$(summarise "$3" "$4" || echo "1	$6")
  if [ "${summary%%$'\t'*}" != 0 ]; then
    row 6 "serve $1" PASS "${summary#*$'\t'}"
  else
    row 6 "serve $1" FAIL "$5: ${summary#*$'\t'}"
  fi
}

# shellcheck disable=SC2034 # T only gates the step on the budget; on_signal (common.sh) reads CURRENT_PID
step_serve() {
  say ""
  say "== 6 serve"
  if step_ready 6 "serve" "solscope" 45 "$(scaled 15 3 | cut -d. -f1)"; then
    PORT=
    [ -n "$PYH" ] && PORT=$("$PYH" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null)
    PORT=${PORT:-19741}
    SERVE_S=$(scaled 15 3 | cut -d. -f1)
    "$SOLSCOPE" serve --listen "127.0.0.1:$PORT" >"$W/logs/serve.out" 2>"$W/logs/serve.err" </dev/null &
    SPID=$!
    CURRENT_PID=$SPID
    t0=$(date +%s)
    up=000
    while [ $(($(date +%s) - t0)) -lt "$SERVE_S" ] && kill -0 "$SPID" 2>/dev/null; do
      if [ "$up" != 200 ]; then up=$(fetch "http://127.0.0.1:$PORT/healthz" "$W/serve-healthz.txt"); fi
      sleep 1
    done
    if kill -0 "$SPID" 2>/dev/null; then
      hz=$(fetch "http://127.0.0.1:$PORT/healthz" "$W/serve-healthz.txt")
      mc=$(fetch "http://127.0.0.1:$PORT/metrics" "$W/serve-metrics.txt")
      dc=$(fetch "http://127.0.0.1:$PORT/api/v1/devices" "$W/serve-devices.json")
      kill -TERM "$SPID" 2>/dev/null
      for _ in $(seq 1 20); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.5; done
      kill -0 "$SPID" 2>/dev/null && { kill -KILL "$SPID" 2>/dev/null; say "  serve ignored SIGTERM for 10 s: killed"; }
      wait "$SPID"
      SRC=$?
      CURRENT_PID=
      if [ "$hz" = 200 ]; then
        row 6 "serve /healthz" PASS "HTTP 200: $(head -c 120 "$W/serve-healthz.txt" | one_line)"
      else
        row 6 "serve /healthz" FAIL "HTTP $hz"
      fi
      served_row "/metrics" "$mc" metrics "$W/serve-metrics.txt" "no solscope_ series" "(no python3 to count)"
      served_row "/api/v1/devices" "$dc" serve-devices "$W/serve-devices.json" "no devices" "(no python3 to read it)"
      if [ "$SRC" = 0 ]; then
        row 6 "serve exit on SIGTERM" PASS "exit 0 (port $PORT)"
      else
        row 6 "serve exit on SIGTERM" FAIL "exit $SRC (0 expected): $(tail -n 1 "$W/logs/serve.err" | one_line)"
      fi
    else
      wait "$SPID"
      SRC=$?
      CURRENT_PID=
      row 6 "serve" FAIL "exited $SRC within $SERVE_S s: $(grep -v '^[[:space:]]*$' "$W/logs/serve.err" | tail -n 1 | one_line)"
    fi
  fi
}
