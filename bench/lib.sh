# shellcheck shell=bash
# Shell helpers shared by the bench scripts; source it (`. bench/lib.sh`) from the repository root.

# start_workdir NAME: makes the scratch folder `work` (/tmp/solscope-NAME.XXXXXX) and an empty `pids` array, and
# sets an EXIT trap that kills every pid left in `pids`, waits for the children and removes `work`.
start_workdir() {
  work=$(mktemp -d "/tmp/solscope-$1.XXXXXX")
  pids=()
  trap cleanup_workdir EXIT
}
cleanup_workdir() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

# start_serve SOLSCOPE LOG WHAT [SERVE_ARGS...]: starts `SOLSCOPE serve SERVE_ARGS... --listen 127.0.0.1:0` in
# the background with its stderr in LOG, adds its pid to the caller's `pids` array and waits up to 30 s for the
# "listening on" line. Sets serve_pid and serve_port. When no port shows up, prints LOG and "WHAT did not start"
# to stderr and exits 1.
start_serve() {
  local solscope=$1 log=$2 what=$3
  shift 3
  "$solscope" serve "$@" --listen 127.0.0.1:0 2>"$log" &
  serve_pid=$!
  pids+=("$serve_pid")
  serve_port=""
  for _ in $(seq 1 300); do
    serve_port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    [[ -n "$serve_port" ]] && return 0
    sleep 0.1
  done
  cat "$log" >&2
  echo "$what did not start" >&2
  exit 1
}
