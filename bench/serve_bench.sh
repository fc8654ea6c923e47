#!/usr/bin/env bash
# Benchmarks of `solscope serve` on loopback, with Debian's prometheus-node-exporter measured in the same run:
#   1. daemon RSS and CPU from /proc over 30 s while it replays 8 GPUs x 100 Hz in real time (SYNTHETIC trace);
#   2. /metrics latency (p50/p99) at 200 requests/s, solscope and node-exporter, and the ratio; and at a rate
#      both sustain (LOW_RPS, default 20/s: node-exporter gathers its figures afresh on every request);
#   3. the sustained maximum /metrics request rate (closed loop, 4 keep-alive connections), both, and the ratio;
#   4. stream latency: from the moment a replayed sample is due to its `sample` event read by a client;
#   5. memory under long queries: daemon RSS before, at its peak and after 64 concurrent clients each read one
#      hour of 1 s windows from /api/v1/samples (a second daemon replaying 1 GPU x 1 h at full speed).
#
#   bench/serve_bench.sh [SOLSCOPE_BINARY]      (default build/release/solscope, else build/dev/solscope)
# Environment: SECONDS_RATE (20), SECONDS_MAX (10), SECONDS_PROC (30), CONNECTIONS (4), NODE_EXPORTER
# (/usr/bin/prometheus-node-exporter). Needs python3; prints every figure and a summary at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

solscope=${1:-}
if [[ -z "$solscope" ]]; then
  for candidate in build/release/solscope build/dev/solscope; do
    [[ -x "$candidate" ]] && solscope=$candidate && break
  done
fi
[[ -x "${solscope:-}" ]] || { echo "serve_bench: no solscope binary (give its path)" >&2; exit 2; }
# The one SYNTHETIC trace generator, built with the tests next to the binary.
make_trace=${SOLSCOPE_MAKE_TRACE:-$(dirname "$solscope")/tests/solscope_make_synthetic_trace}
[[ -x "$make_trace" ]] || { echo "serve_bench: $make_trace missing (build solscope_make_synthetic_trace)" >&2; exit 2; }
node_exporter=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}
[[ -x "$node_exporter" ]] || { echo "serve_bench: $node_exporter missing (apt install prometheus-node-exporter)" >&2; exit 2; }
rate_s=${SECONDS_RATE:-20}
max_s=${SECONDS_MAX:-10}
proc_s=${SECONDS_PROC:-30}
conns=${CONNECTIONS:-4}

start_workdir bench

echo "== trace: 8 GPUs x 100 Hz, SYNTHETIC (solscope_make_synthetic_trace)"
trace_s=$((proc_s + 4 * rate_s + 2 * max_s + 60))
t0_ns=$(python3 -c 'import time; print(time.time_ns() // 10**9 * 10**9 + 20 * 10**9)')
"$make_trace" -o "$work/bench.sqlite" --force --devices 8 --hz 100 --seconds "$trace_s" \
  --profile phases --start-ns "$t0_ns" --attainable-gpu 0 >/dev/null

echo "== starting solscope serve ($solscope) and node-exporter on loopback"
start_serve "$solscope" "$work/serve.log" "serve_bench: solscope" --replay "$work/bench.sqlite"
solscope_pid=$serve_pid
port=$serve_port
play_start_ns=$(python3 -c 'import time; print(time.time_ns())')
ne_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$node_exporter" --web.listen-address="127.0.0.1:$ne_port" >"$work/node_exporter.log" 2>&1 &
pids+=("$!")
for _ in $(seq 1 100); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$ne_port/metrics', timeout=1)" \
    2>/dev/null && break
  sleep 0.1
done
sleep 3

echo "== 1. solscope serve RSS and CPU over ${proc_s} s (replaying 8 GPUs x 100 Hz, no HTTP load)"
python3 bench/serve_probe.py proc "$solscope_pid" --seconds "$proc_s" | tee "$work/proc.out"

echo "== 2. /metrics at 200 requests/s for ${rate_s} s"
python3 bench/http_latency.py rate "http://127.0.0.1:$port/metrics" --rps 200 --seconds "$rate_s" \
  --connections "$conns" --json | tee "$work/rate_solscope.out"
python3 bench/http_latency.py rate "http://127.0.0.1:$ne_port/metrics" --rps 200 --seconds "$rate_s" \
  --connections "$conns" --json | tee "$work/rate_node.out"

low_rps=${LOW_RPS:-20}
echo "== 2b. /metrics at ${low_rps} requests/s for ${rate_s} s (a rate both sustain)"
python3 bench/http_latency.py rate "http://127.0.0.1:$port/metrics" --rps "$low_rps" --seconds "$rate_s" \
  --connections "$conns" --json | tee "$work/low_solscope.out"
python3 bench/http_latency.py rate "http://127.0.0.1:$ne_port/metrics" --rps "$low_rps" --seconds "$rate_s" \
  --connections "$conns" --json | tee "$work/low_node.out"

echo "== 3. sustained maximum, ${conns} keep-alive connections for ${max_s} s"
python3 bench/http_latency.py max "http://127.0.0.1:$port/metrics" --seconds "$max_s" \
  --connections "$conns" --json | tee "$work/max_solscope.out"
python3 bench/http_latency.py max "http://127.0.0.1:$ne_port/metrics" --seconds "$max_s" \
  --connections "$conns" --json | tee "$work/max_node.out"

echo "== 4. stream latency (sample due -> event read), 10 s"
python3 bench/serve_probe.py stream "http://127.0.0.1:$port/api/v1/stream" --t0-ns "$t0_ns" \
  --play-start-ns "$play_start_ns" --seconds 10 | tee "$work/stream.out"

echo "== 5. RSS under 64 concurrent one-hour /api/v1/samples queries (1 GPU x 1 h replayed at full speed)"
"$make_trace" -o "$work/hour.sqlite" --force --devices 1 --hz 10 --seconds 3700 --profile constant
start_serve "$solscope" "$work/serve_hour.log" "serve_bench: the one-hour daemon" --replay "$work/hour.sqlite" \
  --speed 0 --max-connections-per-address 64
hour_pid=$serve_pid
hour_port=$serve_port
for _ in $(seq 1 600); do  # until the replay has ended (the log says so)
  grep -q "the replay ended" "$work/serve_hour.log" && break
  sleep 0.1
done
python3 bench/serve_probe.py queries "$hour_pid" "http://127.0.0.1:$hour_port/api/v1/samples?device=0" \
  --clients 64 | tee "$work/queries.out"
kill -TERM "$hour_pid"

echo "== solscope serve still alive and answering:"
python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$port/readyz').read().decode())"
kill -TERM "$solscope_pid"
wait "$solscope_pid" && echo "solscope serve exited 0 after SIGTERM" || echo "solscope serve exited with $?"

python3 - "$work" <<'EOF'
import json, sys
w = sys.argv[1]
def load(name):
    with open(f"{w}/{name}.out") as f:
        return json.loads(f.read().strip().splitlines()[-1])
p, rs, rn, ls, ln, ms, mn, st, q = (load(n) for n in ("proc", "rate_solscope", "rate_node", "low_solscope",
                                                       "low_node", "max_solscope", "max_node", "stream", "queries"))
print("\n== summary (loopback; the Python client's own cost is in every latency)")
print(f"daemon at 8 GPUs x 100 Hz: CPU {p['cpu_pct']:.1f} % of a core, RSS {p['rss_mib_mean']:.1f} MiB "
      f"(max {p['rss_mib_max']:.1f})")
print(f"/metrics at 200/s   solscope p50 {rs['p50_ms']:.3f} ms p99 {rs['p99_ms']:.3f} ms ({rs['bytes']} B) | "
      f"node-exporter p50 {rn['p50_ms']:.3f} ms p99 {rn['p99_ms']:.3f} ms ({rn['bytes']} B) | "
      f"ratio solscope/node-exporter p50 {rs['p50_ms'] / rn['p50_ms']:.2f} p99 {rs['p99_ms'] / rn['p99_ms']:.2f}")
print(f"/metrics at {ls['rps']:g}/s    solscope p50 {ls['p50_ms']:.3f} ms p99 {ls['p99_ms']:.3f} ms | "
      f"node-exporter p50 {ln['p50_ms']:.3f} ms p99 {ln['p99_ms']:.3f} ms | "
      f"ratio solscope/node-exporter p50 {ls['p50_ms'] / ln['p50_ms']:.2f} p99 {ls['p99_ms'] / ln['p99_ms']:.2f}")
print(f"/metrics maximum    solscope {ms['rps']:.0f}/s (p99 {ms['p99_ms']:.2f} ms) | node-exporter "
      f"{mn['rps']:.0f}/s (p99 {mn['p99_ms']:.2f} ms) | ratio {ms['rps'] / mn['rps']:.2f}")
print(f"stream              {st['events_per_s']:.0f} events/s, {st['dropped']} dropped; due -> received above the "
      f"fastest sample p50 {st['p50_above_min_ms']:.1f} ms, p99 {st['p99_above_min_ms']:.1f} ms "
      f"(against the 'listening' time: p50 {st['p50_ms']:.1f} ms, p99 {st['p99_ms']:.1f} ms)")
print(f"64 one-hour queries  RSS {q['rss_mib_before']:.1f} -> peak {q['rss_mib_peak']:.1f} -> after "
      f"{q['rss_mib_after']:.1f} MiB ({q['windows_per_client']} windows per client, {q['seconds']:.1f} s, "
      f"{q['errors']} failed)")
errors = sum(x["errors"] for x in (rs, rn, ls, ln, ms, mn, q))
if errors:
    print(f"{errors} requests failed"); sys.exit(1)
EOF
