#!/usr/bin/env python3
"""Probes of a running `solscope serve` for bench/serve_bench.sh (Python standard library only).

  serve_probe.py proc PID [--seconds 30]
      RSS (VmRSS, KiB -> MiB) and CPU% (utime + stime, 100 % = one core) of PID from /proc, sampled every
      second: mean and max RSS, mean CPU%.
  serve_probe.py stream URL --t0-ns T0 --play-start-ns P [--seconds 10]
      Reads URL (/api/v1/stream) and, for every `sample` event, the delay between the moment the replayed sample
      became due and the moment the event's data line was read here. The replay makes a sample due when its
      interval has ended in replay time: due = P + (t_end_ns - T0), P being when the replay started (the
      bench takes the time the daemon printed its "listening" line) and T0 the trace's first t_start_ns.
      P is only known to within the daemon's start-up (it starts the replay before it listens), so the
      figures are also given relative to the fastest sample ("above min"): the sample that became due just
      before the daemon polled its source travels with almost no delay, so the delays above it are the
      latency, polling interval included, to within that sample's own (small) delay.
  serve_probe.py queries PID URL [--clients 64]
      RSS of PID before, at its peak (sampled every 20 ms) and 1 s after CLIENTS concurrent clients each read
      one hour of windows from URL (/api/v1/samples?device=0&since=-1h), following next_since_ns to the end.
"""

import argparse
import http.client
import threading
import urllib.error
import urllib.request
import json
import os
import sys
import time
import urllib.parse


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round((len(s) - 1) * p / 100.0)))]


def read_proc(pid):
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of proc(5))
    rss_kib = 0
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kib = int(line.split()[1])
    return ticks, rss_kib


def probe_proc(pid, seconds):
    hz = os.sysconf("SC_CLK_TCK")
    ticks0, _ = read_proc(pid)
    t0 = time.monotonic()
    rss = []
    for _ in range(int(seconds)):
        time.sleep(1.0)
        rss.append(read_proc(pid)[1])
    ticks1, _ = read_proc(pid)
    elapsed = time.monotonic() - t0
    cpu_pct = 100.0 * (ticks1 - ticks0) / hz / elapsed
    r = {"pid": pid, "seconds": elapsed, "cpu_pct": cpu_pct, "rss_mib_mean": sum(rss) / len(rss) / 1024,
         "rss_mib_max": max(rss) / 1024}
    print(f"pid {pid} over {elapsed:.1f} s: CPU {cpu_pct:.1f} % of one core, RSS mean {r['rss_mib_mean']:.1f} MiB, "
          f"max {r['rss_mib_max']:.1f} MiB")
    print(json.dumps(r))


def probe_stream(url, t0_ns, play_start_ns, seconds):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request("GET", u.path + (f"?{u.query}" if u.query else ""), headers={"Accept": "text/event-stream"})
    res = conn.getresponse()
    if res.status != 200:
        sys.exit(f"{url}: HTTP {res.status}")
    delays, event, dropped = [], None, 0
    end = time.time() + seconds
    while time.time() < end:
        line = res.fp.readline()
        if not line:
            break
        now_ns = time.time_ns()
        line = line.decode("utf-8").rstrip("\r\n")
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:") and event == "sample":
            s = json.loads(line[5:])
            delays.append((now_ns - (play_start_ns + s["t_end_ns"] - t0_ns)) / 1e6)
        elif line.startswith("data:") and event == "dropped":
            dropped += json.loads(line[5:]).get("dropped", 0)
    conn.close()
    low = min(delays, default=0.0)
    above = [d - low for d in delays]
    r = {"events": len(delays), "events_per_s": len(delays) / seconds, "dropped": dropped,
         "p50_ms": percentile(delays, 50), "p99_ms": percentile(delays, 99), "max_ms": max(delays, default=0.0),
         "min_ms": low, "p50_above_min_ms": percentile(above, 50), "p99_above_min_ms": percentile(above, 99),
         "max_above_min_ms": max(above, default=0.0)}
    print(f"stream: {r['events']} samples ({r['events_per_s']:.0f}/s), {dropped} dropped; due -> received "
          f"(play start taken at the 'listening' line): p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
          f"min {low:.1f} ms; above the fastest sample: p50 {r['p50_above_min_ms']:.1f} ms, "
          f"p99 {r['p99_above_min_ms']:.1f} ms, max {r['max_above_min_ms']:.1f} ms")
    print(json.dumps(r))


def probe_queries(pid, url, clients):
    done = threading.Event()
    peak = [read_proc(pid)[1]]
    windows = []
    errors = []
    retries = [0]

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], read_proc(pid)[1])
            time.sleep(0.02)

    def client():
        since, got, pages = "-1h", 0, 0
        try:
            while since is not None and pages < 100:
                try:
                    with urllib.request.urlopen(f"{url}&since={since}", timeout=120) as r:
                        doc = json.loads(r.read())
                except urllib.error.HTTPError as e:
                    if e.code != 503 or retries[0] >= 1000:
                        raise
                    retries[0] += 1  # busy: the daemon renders a few answers at once; Retry-After: 1
                    time.sleep(float(e.headers.get("Retry-After", "1")))
                    continue
                got += len(doc["samples"])
                pages += 1
                nxt = doc.get("next_since_ns")
                since = None if nxt is None else str(nxt)
            windows.append(got)
        except Exception as e:  # noqa: BLE001 - reported, counted
            errors.append(str(e))

    before = read_proc(pid)[1]
    w = threading.Thread(target=watch)
    w.start()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    time.sleep(1.0)
    done.set()
    w.join()
    after = read_proc(pid)[1]
    r = {"clients": clients, "seconds": elapsed, "windows_per_client": max(windows, default=0),
         "errors": len(errors), "busy_retries": retries[0], "rss_mib_before": before / 1024, "rss_mib_peak": peak[0] / 1024,
         "rss_mib_after": after / 1024}
    print(f"{clients} clients x 1 h of windows ({r['windows_per_client']} each, {len(errors)} errors, "
          f"{retries[0]} retries after 503) in "
          f"{elapsed:.1f} s: RSS {r['rss_mib_before']:.1f} -> peak {r['rss_mib_peak']:.1f} -> after "
          f"{r['rss_mib_after']:.1f} MiB")
    print(json.dumps(r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    p = sub.add_parser("proc")
    p.add_argument("pid", type=int)
    p.add_argument("--seconds", type=float, default=30)
    s = sub.add_parser("stream")
    s.add_argument("url")
    s.add_argument("--t0-ns", type=int, required=True)
    s.add_argument("--play-start-ns", type=int, required=True)
    s.add_argument("--seconds", type=float, default=10)
    q = sub.add_parser("queries")
    q.add_argument("pid", type=int)
    q.add_argument("url")
    q.add_argument("--clients", type=int, default=64)
    args = ap.parse_args()
    if args.mode == "proc":
        probe_proc(args.pid, args.seconds)
    elif args.mode == "queries":
        probe_queries(args.pid, args.url, args.clients)
    else:
        probe_stream(args.url, args.t0_ns, args.play_start_ns, args.seconds)


if __name__ == "__main__":
    main()
