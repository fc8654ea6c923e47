#!/usr/bin/env python3
"""Integration test: the real Prometheus server scrapes `solscope serve` and gets the trace's means back.

  prometheus_test.py --solscope BIN --workdir DIR [--prometheus /usr/bin/prometheus] [--seconds 40]

The daemon replays, in real time, a SYNTHETIC trace of constant load (solscope_make_synthetic_trace --profile constant: every GPU
runs one load for the whole trace, different per GPU). Prometheus (Debian's package, loopback only, data in
DIR) scrapes it every second and evaluates deploy/prometheus/solscope-rules.yml every second. Then, through the
query API:
- `up` is 1 and every busy-seconds series is present for every GPU, with the daemon's labels;
- rate(x[R]) of the Compute SOL, Memory SOL, tensor-pipe, DRAM-path and classic-utilization busy seconds equals
  the trace's mean within 1 % (R = the scraped span), and so does rate(x[R]) / rate(sampled seconds[R]);
- the recording rule gpu:solscope_compute_sol_ratio:mean5m equals the trace's Compute SOL within 1 %.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import harness as h
from harness import check, fail

sys.path.insert(0, h.HERE)

GPUS, HZ = 2, 100


def expected_means(trace, gpu):
    """Ratios (0-1) of the constant load of `gpu`, as the daemon derives them from the trace's counters."""
    v = h.trace_load(trace, gpu)
    pipes = {"tensor": v["tensor_pipe_pct"], "fma": v["fma_pipe_pct"], "alu": v["alu_pipe_pct"],
             "issue": v["issue_pct"]}
    paths = {"dram": v["dram_pct"], "l2": v["l2_pct"], "l1": v["l1_pct"]}
    return {"solscope_compute_sol_seconds_total": max(pipes.values()) / 100,
            "solscope_memory_sol_seconds_total": max(paths.values()) / 100,
            'solscope_pipe_busy_seconds_total{pipe="tensor"}': pipes["tensor"] / 100,
            'solscope_memory_path_busy_seconds_total{path="dram"}': paths["dram"] / 100,
            "solscope_gpu_utilization_seconds_total": v["gpu_util_pct"] / 100,
            "solscope_sm_active_seconds_total": v["sm_active_pct"] / 100}


def write_config(path, target, rules):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 900ms
  evaluation_interval: 1s
rule_files:
  - {rules}
scrape_configs:
  - job_name: solscope
    static_configs:
      - targets: ['{target}']
""")


class Prometheus:
    def __init__(self, binary, workdir, target):
        self.port = h.free_port()
        config = os.path.join(workdir, "prometheus.yml")
        write_config(config, target, os.path.join(h.ROOT, "deploy/prometheus/solscope-rules.yml"))
        data = os.path.join(workdir, "tsdb")
        shutil.rmtree(data, ignore_errors=True)
        self.log = open(os.path.join(workdir, "prometheus.log"), "w", encoding="utf-8")
        self.proc = subprocess.Popen([binary, f"--config.file={config}", f"--storage.tsdb.path={data}",
                                      f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            check(self.proc.poll() is None, f"prometheus exited with {self.proc.returncode}: see {self.log.name}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        fail("prometheus did not become ready within 30 s")

    def query(self, expr, at=None):
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        url = f"http://127.0.0.1:{self.port}/api/v1/query?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                doc = json.load(r)
        except urllib.error.HTTPError as err:
            fail(f"prometheus query {expr!r}: HTTP {err.code}: {err.read()[:300]!r}")
        check(doc.get("status") == "success", f"prometheus query {expr!r}: {doc}")
        return {int(s["metric"].get("gpu", "-1")): (s["metric"], float(s["value"][1]))
                for s in doc["data"]["result"]}

    def first_scrape(self, at):
        """Unix time of the oldest stored sample of solscope_sampled_seconds_total (any GPU)."""
        url = (f"http://127.0.0.1:{self.port}/api/v1/query?"
               + urllib.parse.urlencode({"query": "solscope_sampled_seconds_total[10m]", "time": f"{at:.3f}"}))
        with urllib.request.urlopen(url, timeout=10) as r:
            doc = json.load(r)
        stamps = [float(v[0]) for s in doc["data"]["result"] for v in s["values"]]
        check(stamps, "prometheus stored no sample of solscope_sampled_seconds_total")
        return min(stamps), len(stamps)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def check_series_present(prom, at):
    up = prom.query('up{job="solscope"}', at)
    check(up and all(v == 1.0 for _, v in up.values()), f"up{{job=solscope}} = {up}: the scrape fails")
    for name in ("solscope_compute_sol_seconds_total", "solscope_sampled_seconds_total",
                 "solscope_compute_sol_ratio", "solscope_gpu_info"):
        got = prom.query(name, at)
        check(sorted(got) == list(range(GPUS)), f"{name}: series of GPUs {sorted(got)}, want {list(range(GPUS))}")
        for gpu, (labels, _) in got.items():
            missing = [l for l in ("UUID", "modelName", "hostname") if l not in labels]
            check(not missing, f"{name}{{gpu={gpu}}} in Prometheus lacks {missing}")


def check_rates(prom, at, range_s, trace):
    checked = 0
    for gpu in range(GPUS):
        for series, want in expected_means(trace, gpu).items():
            name, _, rest = series.partition("{")
            selector = f'{name}{{gpu="{gpu}"{"," + rest[:-1] if rest else ""}}}'
            for expr in (f"rate({selector}[{range_s}s])",
                         f"rate({selector}[{range_s}s]) / ignoring(pipe, path) group_left() "
                         f'rate(solscope_sampled_seconds_total{{gpu="{gpu}"}}[{range_s}s])'):
                got = prom.query(expr, at)
                check(gpu in got, f"{expr}: no result")
                value = got[gpu][1]
                check(abs(value - want) <= 0.01 * want,
                      f"{expr} = {value:.6f}, the trace's mean is {want:.6f} (off by "
                      f"{100 * (value - want) / want:+.2f} %, limit 1 %)")
                print(f"  {expr} = {value:.6f} (trace {want:.6f}, {100 * (value - want) / want:+.3f} %)")
                checked += 1
        rule = prom.query(f'gpu:solscope_compute_sol_ratio:mean5m{{gpu="{gpu}"}}', at)
        want = expected_means(trace, gpu)["solscope_compute_sol_seconds_total"]
        check(gpu in rule and abs(rule[gpu][1] - want) <= 0.01 * want,
              f"recording rule gpu:solscope_compute_sol_ratio:mean5m{{gpu={gpu}}} = {rule.get(gpu)}, want {want}")
    return checked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solscope", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--prometheus", default="/usr/bin/prometheus")
    ap.add_argument("--seconds", type=int, default=40, help="how long Prometheus scrapes before the queries")
    args = ap.parse_args()
    prometheus_bin = h.require_tool(args.prometheus)
    os.makedirs(args.workdir, exist_ok=True)
    trace = h.make_trace(os.path.join(args.workdir, "constant.sqlite"), "--devices", GPUS, "--hz", HZ, "--seconds",
                         args.seconds + 60, "--profile", "constant")
    daemon = h.Daemon(args.solscope, ["--replay", trace], log_path=os.path.join(args.workdir, "serve.log"))
    prom = None
    try:
        prom = Prometheus(prometheus_bin, args.workdir, f"127.0.0.1:{daemon.port}")
        time.sleep(args.seconds + 3)
        check(daemon.alive(), "solscope serve exited during the scrape")
        at = time.time()
        check_series_present(prom, at)
        first, stored = prom.first_scrape(at)
        # A range the scrapes cover from end to end: rate() over a range that starts before the first scrape
        # would only be extrapolated half an interval back, and read low.
        range_s = int(at - first) - 1
        check(range_s >= args.seconds - 5, f"only {at - first:.1f} s of scrapes ({stored} samples) were stored")
        checked = check_rates(prom, at, range_s, trace)
        print(f"{checked} rates over {range_s} s of 1 s scrapes match the trace within 1 %")
    finally:
        if prom:
            prom.stop()
        daemon.stop()


if __name__ == "__main__":
    h.run_main(main)
