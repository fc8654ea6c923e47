#!/usr/bin/env bash
# CPU of `solscope fleet` (the terminal view) over 4,096 GPUs at one refresh per 5 s, against a local fake
# Prometheus (tests/support/fake_prometheus.hpp, SYNTHETIC series), under tmux at 200x50.
#
#   bench/fleet_tui_cpu.sh [BUILD_DIR] [SECONDS]     (default build/release, 30 s; at most 120 s)
#
# Prints: the view's CPU as % of one core (/proc/PID/stat utime+stime over SECONDS, refresh 5 s); the baseline,
# the CPU of the same number of `solscope fleet --json` snapshots (the same queries, parsing and arithmetic,
# plus a process start each) spread over the same SECONDS; and the view's own figures from SOLSCOPE_TUI_STATS
# (fetches, mean fetch, render and present time). The fake's own CPU is not counted (another process).
set -euo pipefail

BUILD=${1:-build/release}
SECONDS_TO_MEASURE=${2:-30}
(( SECONDS_TO_MEASURE >= 10 && SECONDS_TO_MEASURE <= 120 )) || { echo "SECONDS: 10 to 120" >&2; exit 2; }
SOLSCOPE=$(realpath "$BUILD/solscope")
FAKE=$(realpath "$BUILD/bench/solscope_fleet_fake_prometheus")
TMP=$(mktemp -d /tmp/solscope-fleet-cpu.XXXXXX)
SOCKET="solscope-fleet-cpu-$$"
FAKE_PID=""
trap 'tmux -L "$SOCKET" kill-server 2>/dev/null || true; [[ -n "$FAKE_PID" ]] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
TICKS=$(getconf CLK_TCK)
AT=1717200000  # the fake's window end (kFakeEndNs)

"$FAKE" 512 $((SECONDS_TO_MEASURE * 2 + 60)) > "$TMP/port" &
FAKE_PID=$!
for _ in $(seq 1 600); do grep -q '^port' "$TMP/port" 2>/dev/null && break; sleep 0.1; done
PORT=$(awk '/^port/ {print $2}' "$TMP/port")
[[ -n "$PORT" ]] || { echo "the fake Prometheus did not start" >&2; exit 1; }
URL="http://127.0.0.1:$PORT"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

tmux -L "$SOCKET" new-session -d -s bench -x 200 -y 50 \
  "env -i PATH=$PATH HOME=$TMP TERM=xterm-256color LANG=C.UTF-8 PS1='bench$ ' bash --norc --noprofile"
sleep 0.5
tmux -L "$SOCKET" send-keys -t bench \
  "SOLSCOPE_TUI_STATS=$TMP/stats exec $SOLSCOPE fleet --prometheus $URL --at $AT --refresh 5s" Enter
until tmux -L "$SOCKET" capture-pane -p -t bench | grep -q "4096 GPUs"; do sleep 0.05; done
pane=$(tmux -L "$SOCKET" display-message -p -t bench '#{pane_pid}')
c0=$(cpu_ticks "$pane"); t0=$(date +%s%N)
sleep "$SECONDS_TO_MEASURE"
c1=$(cpu_ticks "$pane"); t1=$(date +%s%N)
view_cpu=$(awk -v c="$((c1 - c0))" -v hz="$TICKS" -v ns="$((t1 - t0))" 'BEGIN {printf "%.2f", c / hz / (ns / 1e9) * 100}')
tmux -L "$SOCKET" send-keys -t bench q
for _ in $(seq 1 100); do [[ -s "$TMP/stats" ]] && break; sleep 0.1; done

snapshots=$((SECONDS_TO_MEASURE / 5))
TIMEFORMAT='%3U %3S'
cpu_s=$( { time (for _ in $(seq 1 "$snapshots"); do
  "$SOLSCOPE" fleet --prometheus "$URL" --at "$AT" --json > /dev/null; done) ; } 2>&1 | awk '{print $1 + $2}')
json_cpu=$(awk -v s="$cpu_s" -v t="$SECONDS_TO_MEASURE" 'BEGIN {printf "%.2f", s / t * 100}')

echo "solscope fleet, 4,096 GPUs (SYNTHETIC, fake Prometheus on loopback), 200x50, refresh 5 s, over ${SECONDS_TO_MEASURE} s:"
echo "  CPU of the terminal view:              ${view_cpu} % of one core"
echo "  baseline, ${snapshots} x fleet --json in ${SECONDS_TO_MEASURE} s: ${json_cpu} % of one core (${cpu_s} s CPU)"
awk -v v="$view_cpu" -v j="$json_cpu" 'BEGIN {printf "  ratio view / baseline:                 %.2f\n", (j > 0 ? v / j : 0)}'
echo "  the view's own figures (SOLSCOPE_TUI_STATS):"
sed 's/^/    /' "$TMP/stats"
