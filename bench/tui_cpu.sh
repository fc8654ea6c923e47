#!/usr/bin/env bash
# CPU and start-up time of the terminal view, measured over a replayed 8-GPU SYNTHETIC trace under tmux.
#
#   bench/tui_cpu.sh [BUILD_DIR] [SECONDS]     (default build/release, 20 s)
#
# Prints: the CPU of `solscope replay` with the view (200x50, 10 frames/s at most), as % of one core from
# /proc/PID/stat utime+stime over SECONDS; the same replay with stdout on /dev/null (the plain line view: one line
# per GPU per second) as the baseline; the time from start to the first frame (the view's own figure, from the command's
# start, and the figure seen from outside: from sending the command to tmux until capture-pane shows the GPUs);
# and the view's mean draw and present times per frame (SOLSCOPE_TUI_STATS).
set -euo pipefail

BUILD=${1:-build/release}
SECONDS_TO_MEASURE=${2:-20}
SOLSCOPE=$(realpath "$BUILD/solscope")
MAKER=$(realpath "$BUILD/tests/solscope_make_synthetic_trace")
TMP=$(mktemp -d /tmp/solscope-tui-cpu.XXXXXX)
SOCKET="solscope-tui-cpu-$$"
trap 'tmux -L "$SOCKET" kill-server 2>/dev/null || true; rm -rf "$TMP"' EXIT

TICKS=$(getconf CLK_TCK)
TRACE="$TMP/t8.sqlite"
"$MAKER" -o "$TRACE" --devices 8 --samples 6000 --seed 3 > /dev/null  # 60 s at 10 ms, played with --loop

cpu_ticks() {  # utime + stime of a PID (fields 14 and 15 of /proc/PID/stat; comm has no spaces here)
  awk '{print $14 + $15}' "/proc/$1/stat"
}

measure() {  # PID -> CPU % of one core over SECONDS_TO_MEASURE
  local pid=$1 t0 t1 c0 c1
  c0=$(cpu_ticks "$pid"); t0=$(date +%s%N)
  sleep "$SECONDS_TO_MEASURE"
  c1=$(cpu_ticks "$pid"); t1=$(date +%s%N)
  awk -v c="$((c1 - c0))" -v hz="$TICKS" -v ns="$((t1 - t0))" 'BEGIN {printf "%.2f", c / hz / (ns / 1e9) * 100}'
}

tmux -L "$SOCKET" new-session -d -s bench -x 200 -y 50 \
  "env -i PATH=$PATH HOME=$TMP TERM=xterm-256color LANG=C.UTF-8 PS1='bench$ ' bash --norc --noprofile"
sleep 0.5
start_ns=$(date +%s%N)
tmux -L "$SOCKET" send-keys -t bench "SOLSCOPE_TUI_STATS=$TMP/stats exec $SOLSCOPE replay $TRACE --loop" Enter
until tmux -L "$SOCKET" capture-pane -p -t bench | grep -q "GPU 7 "; do sleep 0.005; done
seen_ns=$(date +%s%N)
pane=$(tmux -L "$SOCKET" display-message -p -t bench '#{pane_pid}')
sleep 2
view_cpu=$(measure "$pane")
tmux -L "$SOCKET" send-keys -t bench q
sleep 0.5

"$SOLSCOPE" replay "$TRACE" --loop --speed 1 > /dev/null 2>&1 &
engine_pid=$!
sleep 2
engine_cpu=$(measure "$engine_pid")
kill -TERM "$engine_pid"
wait "$engine_pid" || true

echo "solscope terminal view, 8 GPUs (SYNTHETIC trace, 10 ms samples), 200x50, over ${SECONDS_TO_MEASURE} s:"
echo "  CPU, view + engine:            ${view_cpu} % of one core"
echo "  CPU, engine + plain line view: ${engine_cpu} % of one core (baseline: same replay, stdout not a terminal)"
awk -v v="$view_cpu" -v e="$engine_cpu" 'BEGIN {printf "  CPU of the view itself:        %.2f %% of one core\n", v - e}'
awk -v s="$start_ns" -v e="$seen_ns" 'BEGIN {printf "  start to GPUs on screen:       %.0f ms (seen by tmux capture-pane polling, includes exec)\n", (e - s) / 1e6}'
sed 's/^/  view: /' "$TMP/stats"
