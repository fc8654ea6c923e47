#!/usr/bin/env python3
"""HTTP GET latency of one URL: a fixed request rate, or the sustained maximum (Python standard library only).

  http_latency.py rate URL [--rps 200] [--seconds 20] [--connections 4] [--header 'Authorization: Bearer T']
  http_latency.py max  URL [--seconds 10] [--connections 4]

rate: open loop. Requests are scheduled every 1/rps s and handed to `connections` keep-alive connections (one
      thread each). Latency is measured from the *scheduled* time to the end of the response body, so a server
      that stalls is charged for the requests queued behind it (no coordinated omission). If the client cannot
      keep up, the run says so (late starts).
max:  closed loop. `connections` processes, each with one keep-alive connection, send the next request as soon
      as the previous answer arrived; prints the sustained requests/s and the latency percentiles.

Every answer must be HTTP 200 (others are counted as errors and make the exit status 1). Prints one
human-readable line and, with --json, a JSON object. The client is Python: its own cost (about 0.1 ms per request
on one core) is part of every figure, equally for every server measured in the same way.
"""

import argparse
import http.client
import json
import multiprocessing
import queue
import sys
import threading
import time
import urllib.parse


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


class Client:
    """One keep-alive connection; reconnects when the server closes it."""

    def __init__(self, url, headers):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port or (443 if u.scheme == "https" else 80)
        self.path = (u.path or "/") + (f"?{u.query}" if u.query else "")
        self.https = u.scheme == "https"
        self.headers = headers
        self.conn = None
        self.bytes = 0

    def get(self):
        """HTTP status of one GET (the body is read to its end)."""
        for attempt in (0, 1):
            if self.conn is None:
                cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
                self.conn = cls(self.host, self.port, timeout=10)
            try:
                self.conn.request("GET", self.path, headers=self.headers)
                res = self.conn.getresponse()
                self.bytes = len(res.read())
                if res.getheader("connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return res.status
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        return 0


def parse_headers(items):
    out = {}
    for item in items or []:
        name, _, value = item.partition(":")
        out[name.strip()] = value.strip()
    return out


def run_rate(url, rps, seconds, connections, headers):
    tickets = queue.Queue()
    latencies, late, errors, sizes = [], [0], [0], []
    lock = threading.Lock()

    def worker():
        client = Client(url, headers)
        while True:
            t = tickets.get()
            if t is None:
                return
            now = time.perf_counter()
            if now - t > 0.005:
                with lock:
                    late[0] += 1
            try:
                status = client.get()
            except (http.client.HTTPException, OSError):
                status = 0
            done = time.perf_counter()
            with lock:
                latencies.append(done - t)
                sizes.append(client.bytes)
                if status != 200:
                    errors[0] += 1

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(connections)]
    for th in threads:
        th.start()
    start = time.perf_counter() + 0.05
    n = int(rps * seconds)
    for i in range(n):
        t = start + i / rps
        delay = t - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        tickets.put(t)
    for _ in threads:
        tickets.put(None)
    for th in threads:
        th.join()
    lat = sorted(latencies)
    return {"mode": "rate", "url": url, "rps": rps, "seconds": seconds, "requests": len(lat), "errors": errors[0],
            "late_starts": late[0], "bytes": sizes[-1] if sizes else 0,
            "p50_ms": percentile(lat, 50) * 1e3, "p90_ms": percentile(lat, 90) * 1e3,
            "p99_ms": percentile(lat, 99) * 1e3, "max_ms": lat[-1] * 1e3 if lat else float("nan")}


def max_worker(args):
    url, seconds, headers, start = args
    client = Client(url, headers)
    while time.time() < start:
        time.sleep(0.001)
    end = start + seconds
    lat, errors = [], 0
    while True:
        t0 = time.perf_counter()
        if time.time() >= end:
            break
        try:
            status = client.get()
        except (http.client.HTTPException, OSError):
            status = 0
        lat.append(time.perf_counter() - t0)
        if status != 200:
            errors += 1
    return lat, errors, client.bytes


def run_max(url, seconds, connections, headers):
    start = time.time() + 0.5
    with multiprocessing.Pool(connections) as pool:
        results = pool.map(max_worker, [(url, seconds, headers, start)] * connections)
    lat = sorted(x for r in results for x in r[0])
    errors = sum(r[1] for r in results)
    return {"mode": "max", "url": url, "connections": connections, "seconds": seconds, "requests": len(lat),
            "errors": errors, "bytes": results[0][2], "rps": len(lat) / seconds,
            "p50_ms": percentile(lat, 50) * 1e3, "p99_ms": percentile(lat, 99) * 1e3}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["rate", "max"])
    ap.add_argument("url")
    ap.add_argument("--rps", type=float, default=200.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--header", action="append", help="extra request header, 'Name: value'")
    ap.add_argument("--json", action="store_true", help="also print the result as one JSON object")
    args = ap.parse_args()
    headers = parse_headers(args.header)
    if args.mode == "rate":
        r = run_rate(args.url, args.rps, args.seconds, args.connections, headers)
        print(f"{args.url}: {r['requests']} GETs at {args.rps:g}/s: p50 {r['p50_ms']:.3f} ms, "
              f"p90 {r['p90_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms, max {r['max_ms']:.3f} ms, "
              f"{r['bytes']} bytes, {r['errors']} errors, {r['late_starts']} late starts")
    else:
        r = run_max(args.url, args.seconds, args.connections, headers)
        print(f"{args.url}: {r['rps']:.0f} GETs/s sustained over {args.seconds:g} s with {args.connections} "
              f"connections: p50 {r['p50_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms, {r['bytes']} bytes, "
              f"{r['errors']} errors")
    if args.json:
        print(json.dumps(r))
    return 1 if r["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
