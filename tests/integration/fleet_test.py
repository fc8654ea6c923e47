#!/usr/bin/env python3
"""`solscope fleet` against the real Prometheus server, backfilled from SYNTHETIC OpenMetrics.

  fleet_test.py --solscope BIN --workdir DIR [--prometheus /usr/bin/prometheus] [--promtool /usr/bin/promtool]

tests/data/synthetic/fleet/make_fleet_openmetrics.py writes solscope's and dcgm-exporter's series (one host of
solscope series, two of dcgm-exporter's with a straggler and a busy-idle GPU, and a decoy in another cluster);
`promtool tsdb create-blocks-from openmetrics` backfills them; Prometheus serves that TSDB. Then
`solscope fleet --prometheus URL --selector '{cluster="a"}' --since 1h --at END --json` must give, per GPU, the
figures computed here from the fixture's values, both as Prometheus reduces the window (the default) and as solscope
reduces every GPU's step series (--step-series) (docs/fleet.md: the value at each 15 s step, means over the 241
steps, busy-idle GPU-hours, stragglers against the job's or host's median). Also: the GPU limit's note, a bad
selector (exit 2 with Prometheus' message) and a URL that is not Prometheus (exit 1). And the workload roll-up
(`--by namespace|pod|job --selector '{cluster="w"}'`, docs/fleet.md "Workloads"): per group, the GPUs, allocated,
idle, busy-idle and wasted GPU-hours and the mean Compute SOL computed here from the fixture's host sol-w. And the
iteration stragglers (`--selector '{cluster="t"}'`, with `--job-label training_job` and without, docs/fleet.md
"Iteration stragglers"): per GPU the iteration, compute ratio, exposed communication and compute (iteration x
compute ratio), per group the straggler and the spreads, computed here from the fixture's hosts sol-t1 and sol-t2.
"""

import argparse
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import harness as h
from harness import check, fail

sys.path.insert(0, os.path.join(h.ROOT, "tests", "data", "synthetic", "fleet"))
import make_fleet_openmetrics as fixture  # noqa: E402

END_S = 1717200000  # 2024-06-01T00:00:00Z, a multiple of 15 s
WINDOW_S = 3600
STEP_S = 15
BUSY_UTIL_PCT = 80.0
IDLE_SOL_PCT = 20.0
STRAGGLER_GAP_PCT = 10.0
PIPES = ("TENSOR", "FP64", "FP32", "FP16")


def expected_rows(selector_cluster="a"):
    """{(host, gpu): figures} computed from the fixture's values, as docs/fleet.md defines them."""
    data = fixture.series(END_S)
    steps = [END_S - WINDOW_S + STEP_S * k for k in range(WINDOW_S // STEP_S + 1)]
    per_gpu = {}
    for (family, labels), points in data.items():
        lab = dict(labels)
        if lab["cluster"] != selector_cluster:
            continue
        host = lab.get("Hostname") or lab.get("hostname")
        g = per_gpu.setdefault((host, lab["gpu"]), {"labels": lab, "values": {}})
        g["values"][family] = dict(points)
    rows = {}
    for key, g in per_gpu.items():
        v = g["values"]
        compute, memory, util = [], [], []
        for t in steps:
            if "solscope_compute_sol_ratio" in v:
                compute.append(100 * v["solscope_compute_sol_ratio"][t])
                memory.append(100 * v["solscope_memory_sol_ratio"][t])
                util.append(100 * v["solscope_gpu_utilization_ratio"][t])
            else:
                compute.append(100 * max(v[f"DCGM_FI_PROF_PIPE_{p}_ACTIVE"][t] for p in PIPES))
                memory.append(100 * v["DCGM_FI_PROF_DRAM_ACTIVE"][t])
                util.append(v["DCGM_FI_DEV_GPU_UTIL"][t])
        busy_idle = sum(1 for c, u in zip(compute, util) if u > BUSY_UTIL_PCT and c < IDLE_SOL_PCT)
        lab = g["labels"]
        job = f"{lab['namespace']}/{lab['pod']}" if "pod" in lab else ""
        rows[key] = {"compute_sol_pct": compute[-1], "compute_sol_mean_pct": sum(compute) / len(compute),
                     "memory_sol_pct": memory[-1], "memory_sol_mean_pct": sum(memory) / len(memory),
                     "gpu_util_pct": util[-1], "gpu_util_mean_pct": sum(util) / len(util),
                     "busy_idle_gpu_hours": busy_idle * STEP_S / 3600.0, "job": job,
                     "series": "solscope" if "solscope_compute_sol_ratio" in v else "dcgm"}
    groups = {}
    for (host, gpu), r in rows.items():
        groups.setdefault(r["job"] and "job:" + r["job"] or "host:" + host, []).append(r["compute_sol_mean_pct"])
    for (host, gpu), r in rows.items():
        members = groups[r["job"] and "job:" + r["job"] or "host:" + host]
        gap = r["compute_sol_mean_pct"] - statistics.median(members) if len(members) >= 2 else None
        r["straggler_gap_pct"] = gap
        r["straggler"] = gap is not None and gap < -STRAGGLER_GAP_PCT
    return rows


ITERATION_FIELDS = {"solscope_iteration_seconds": "iteration_s",  # the series the fleet reads: its JSON field
                    "solscope_iteration_compute_ratio": "compute_ratio",
                    "solscope_iteration_exposed_communication_ratio": "exposed_communication_ratio"}


def expected_iterations(job_label):
    """The iteration stragglers of cluster "t" (docs/fleet.md "Iteration stragglers"): ({(host, gpu): row figures},
    {group: verdict}) computed from the fixture's values. Each figure is the mean over the window's steps where
    the series has a sample (one every 15 s, on the steps)."""
    data = fixture.series(END_S)
    steps = [END_S - WINDOW_S + STEP_S * k for k in range(WINDOW_S // STEP_S + 1)]
    rows = {}
    for (family, labels), points in data.items():
        lab = dict(labels)
        if lab["cluster"] != "t" or not family.startswith("solscope_iteration_"):
            continue
        by_t = dict(points)
        values = [by_t[t] for t in steps if t in by_t]
        field = ITERATION_FIELDS[family]
        row = rows.setdefault((lab["hostname"], lab["gpu"]), {"labels": lab})
        row[field] = sum(values) / len(values)
    groups = {}
    for key, r in rows.items():
        r["iteration_compute_s"] = r["iteration_s"] * r["compute_ratio"]  # the one rule (core::rank_steps)
        lab = r.pop("labels")
        group = f"{job_label}={lab[job_label]}" if job_label else f"job:{lab['namespace']}/{lab['pod']}"
        r["iteration_group"] = group
        groups.setdefault(group, []).append(key)
    verdicts = {}
    for group, keys in groups.items():
        computes = [rows[k]["iteration_compute_s"] for k in keys]
        iterations = [rows[k]["iteration_s"] for k in keys]
        straggler = max(keys, key=lambda k: rows[k]["iteration_compute_s"])
        median = statistics.median(computes)
        verdicts[group] = {"gpus": len(keys), "straggler": straggler, "median_compute_s": median,
                           "straggler_compute_s": rows[straggler]["iteration_compute_s"],
                           "spread_pct": (rows[straggler]["iteration_compute_s"] - median) / median * 100,
                           "iteration_spread_pct": (max(iterations) - min(iterations))
                           / statistics.median(iterations) * 100}
        for k in keys:
            rows[k]["iteration_straggler"] = k == straggler
    return rows, verdicts


def check_iterations(solscope, url, job_label):
    """`fleet --selector '{cluster="t"}' [--job-label L] --json`: every GPU's iteration figures and each group's
    straggler and spreads equal those computed from the fixture; the GPU that is never periodic has none."""
    extra = ["--job-label", job_label] if job_label else []
    rc, out, err = fleet(solscope, url, "--selector", '{cluster="t"}', *extra)
    check(rc == 0, f"solscope fleet --job-label {job_label!r} exited {rc}: {err}")
    doc = json.loads(out)
    want_rows, want_groups = expected_iterations(job_label)
    got = {(r["host"], r["gpu"]): r for r in doc["rows"]}
    check(sorted(got) == sorted(list(want_rows) + [("sol-t2", "2")]), f"cluster t rows {sorted(got)}")
    for key, w in want_rows.items():
        for field, value in w.items():
            ok = close(got[key][field], value) if isinstance(value, float) else got[key][field] == value
            check(ok, f"--job-label {job_label!r} {key} {field}: got {got[key][field]!r}, computed {value!r}")
    never = got[("sol-t2", "2")]
    check(never["iteration_s"] is None and never["compute_ratio"] is None and never["iteration_group"] == ""
          and not never["iteration_straggler"],
          f"the GPU that is never periodic: {never}")
    groups = {g["group"]: g for g in doc["iteration_groups"]}
    check(sorted(groups) == sorted(want_groups), f"groups {sorted(groups)} != {sorted(want_groups)}")
    for name, w in want_groups.items():
        g = groups[name]
        check(len(g["gpus"]) == w["gpus"] and (g["straggler"]["host"], g["straggler"]["gpu"]) == w["straggler"],
              f"group {name}: {g}, computed {w}")
        for field in ("median_compute_s", "straggler_compute_s", "spread_pct", "iteration_spread_pct"):
            check(close(g[field], w[field]), f"group {name} {field}: got {g[field]}, computed {w[field]}")
    check(doc["job_label"] == job_label, f"job_label {doc['job_label']!r}")
    return want_groups


GROUP_LABELS = {"namespace": ("namespace",), "pod": ("namespace", "pod"), "job": ("hpc_job",)}


def workload_group(by, lab):
    """The group's name as solscope prints it, or None where the series lacks the group's label."""
    values = [lab.get(name, "") for name in GROUP_LABELS[by]]
    return "/".join(values) if values[-1] else None


def expected_workloads(by, selector_cluster="w"):
    """{group: figures} as docs/fleet.md defines them. Every series covers the whole window with a sample on each
    15 s step, so increase() over the closed window [END - 1 h, END] is the last sample less the first (no
    extrapolation) and the subqueries see the 241 steps' own samples."""
    data = fixture.series(END_S)
    steps = [END_S - WINDOW_S + STEP_S * k for k in range(WINDOW_S // STEP_S + 1)]
    seconds, idle, figures = {}, {}, {}
    for (family, labels), points in data.items():
        lab = dict(labels)
        group = workload_group(by, lab)
        if lab["cluster"] != selector_cluster or group is None:
            continue
        gpu = (lab["hostname"], lab["gpu"], lab["UUID"])
        v = dict(points)
        if family == "solscope_workload_gpu_seconds_total":
            inc = v[steps[-1]] - v[steps[0]]
            seconds.setdefault(group, {}).setdefault(gpu, 0.0)
            seconds[group][gpu] += inc
            idle[group] = idle.get(group, 0.0) + (inc if lab["bound"] == "idle" else 0.0)
        elif family in ("solscope_compute_sol_ratio", "solscope_gpu_utilization_ratio"):
            figures.setdefault(group, {}).setdefault(gpu, {})[family] = [100 * v[t] for t in steps]
    want = {}
    for group, per_gpu in seconds.items():
        busy_steps, sol = 0, []
        for f in figures.get(group, {}).values():
            compute, util = f["solscope_compute_sol_ratio"], f["solscope_gpu_utilization_ratio"]
            busy_steps += sum(1 for c, u in zip(compute, util) if u > BUSY_UTIL_PCT and c < IDLE_SOL_PCT)
            sol += compute
        busy_idle = busy_steps * STEP_S / 3600.0
        want[group] = {"gpus": sum(1 for s in per_gpu.values() if s > 0),
                       "allocated_gpu_hours": sum(per_gpu.values()) / 3600.0,
                       "idle_gpu_hours": idle[group] / 3600.0, "busy_idle_gpu_hours": busy_idle,
                       "wasted_gpu_hours": idle[group] / 3600.0 + busy_idle,
                       "compute_sol_mean_pct": sum(sol) / len(sol) if sol else None}
    return want


class Prometheus:
    """The real server on the backfilled TSDB (no scrape targets)."""

    def __init__(self, binary, promtool, workdir):
        om = os.path.join(workdir, "synthetic-fleet.om")
        fixture.write(om, END_S)
        data = os.path.join(workdir, "tsdb")
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(data)
        res = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", om, data],
                             capture_output=True, text=True, check=False)
        check(res.returncode == 0, f"promtool backfill failed: {res.stderr[-2000:]}")
        config = os.path.join(workdir, "prometheus.yml")
        with open(config, "w", encoding="utf-8") as f:
            f.write("global:\n  scrape_interval: 15s\n")
        self.port = h.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(workdir, "prometheus.log"), "w", encoding="utf-8")
        self.proc = subprocess.Popen([binary, f"--config.file={config}", f"--storage.tsdb.path={data}",
                                      "--storage.tsdb.retention.time=100y",
                                      f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            check(self.proc.poll() is None, f"prometheus exited with {self.proc.returncode}: see {self.log.name}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.3)
        fail("prometheus did not become ready within 30 s")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class TokenPrometheus(http.server.BaseHTTPRequestHandler):
    """A stand-in that wants `Authorization: Bearer TOKEN`: 401 without it, empty API answers with it."""

    TOKEN = "fleet-test-token-0123456789"

    def do_GET(self):  # noqa: N802 (http.server's spelling)
        if self.headers.get("Authorization") != f"Bearer {self.TOKEN}":
            self.send_response(401)
            self.end_headers()
            self.wfile.write(b"Unauthorized")
            return
        kind = "matrix" if self.path.startswith("/api/v1/query_range") else "vector"
        body = json.dumps({"status": "success", "data": {"resultType": kind, "result": []}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):  # noqa: N802 (solscope sends its queries as form-encoded POSTs, as Prometheus takes them)
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.do_GET()

    def log_message(self, *args):
        pass


def check_token(solscope, workdir):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), TokenPrometheus)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        rc, out, err = fleet(solscope, url)
        check(rc == 1 and "HTTP 401" in err and "--prometheus-token-file" in err,
              f"without a token: exit {rc} (want 1) naming --prometheus-token-file: {err}")
        token = os.path.join(workdir, "token")
        if os.path.exists(token):  # left by an earlier run, perhaps with another mode: O_CREAT keeps it
            os.unlink(token)
        with open(os.open(token, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="ascii") as f:
            f.write(TokenPrometheus.TOKEN + "\n")
        rc, out, err = fleet(solscope, url, "--prometheus-token-file", token)
        check(rc == 0 and json.loads(out)["rows"] == [], f"with the token file: exit {rc}: {err}")
    finally:
        server.shutdown()
        server.server_close()


def fleet(solscope, url, *extra, as_json=True):
    at = [] if "--at" in extra else ["--at", str(END_S)]
    cmd = [solscope, "fleet", "--prometheus", url, "--since", "1h", *at, *(["--json"] if as_json else []), *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=60)
    return res.returncode, res.stdout, res.stderr


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def check_table(doc, want):
    got = {(r["host"], r["gpu"]): r for r in doc["rows"]}
    check(sorted(got) == sorted(want), f"rows {sorted(got)} != expected {sorted(want)}")
    for key, w in want.items():
        g = got[key]
        for field, value in w.items():
            if isinstance(value, float) or value is None:
                check(close(g[field], value), f"{key} {field}: got {g[field]}, computed {value}")
            else:
                check(g[field] == value, f"{key} {field}: got {g[field]!r}, computed {value!r}")
    check(doc["step_ns"] == STEP_S * 10**9, f"step {doc['step_ns']} ns, want 15 s")
    check(doc["window_end_ns"] == END_S * 10**9, f"window end {doc['window_end_ns']}")
    stragglers = sorted(k for k, w in want.items() if w["straggler"])
    busy = sorted(k for k, w in want.items() if w["busy_idle_gpu_hours"] > 0)
    # dgx-b/2 against its job's median; dgx-c/1 (busy-idle, low SOL) against its host's two-GPU median.
    check(stragglers == [("dgx-b", "2"), ("dgx-c", "1")], f"the fixture's stragglers: {stragglers}")
    check(("dgx-c", "1") in busy, f"the fixture's busy-idle GPU: {busy}")
    check(doc["totals"]["stragglers"] == 2, f"totals {doc['totals']}")
    print(f"fleet: {len(got)} GPUs equal the fixture's figures; stragglers {stragglers}, busy-idle "
          f"{want[('dgx-c', '1')]['busy_idle_gpu_hours']:.4f} GPU-h on dgx-c/1", flush=True)


def check_workloads(solscope, url, by):
    """`--by BY --json` over sol-w equals the groups computed from the fixture, most wasted first."""
    rc, out, err = fleet(solscope, url, "--selector", '{cluster="w"}', "--by", by)
    check(rc == 0, f"solscope fleet --by {by} exited {rc}: {err}")
    doc = json.loads(out)
    want = expected_workloads(by)
    got = {r["group"]: r for r in doc["rows"]}
    check(sorted(got) == sorted(want), f"--by {by}: groups {sorted(got)} != expected {sorted(want)}")
    for group, w in want.items():
        for field, value in w.items():
            check(close(got[group][field], value), f"--by {by} {group} {field}: got {got[group][field]}, "
                                                   f"computed {value}")
    order = sorted(want, key=lambda g: (-want[g]["wasted_gpu_hours"], g))
    check([r["group"] for r in doc["rows"]] == order, f"--by {by}: order {[r['group'] for r in doc['rows']]}")
    totals = doc["totals"]
    for field in ("gpus", "allocated_gpu_hours", "idle_gpu_hours", "busy_idle_gpu_hours", "wasted_gpu_hours"):
        check(close(totals[field], sum(w[field] for w in want.values())), f"--by {by} totals {field}: {totals}")
    means = [w["compute_sol_mean_pct"] for w in want.values()]
    check(close(totals["compute_sol_mean_pct"], sum(means) / len(means)), f"--by {by} totals: {totals}")
    check(doc["by"] == by and doc["notes"] == [] and doc["window_end_ns"] == END_S * 10**9,
          f"--by {by}: by {doc['by']}, notes {doc['notes']}, end {doc['window_end_ns']}")
    print(f"fleet --by {by}: {len(want)} groups equal the fixture's figures: " +
          ", ".join(f"{g} wasted {want[g]['wasted_gpu_hours']:.4f} GPU-h" for g in order), flush=True)
    return want


def check_workload_table(solscope, url, want):
    """The text form of `--by namespace`: one line per group, most wasted first, and the total, printed for the
    log."""
    rc, out, err = fleet(solscope, url, "--selector", '{cluster="w"}', "--by", "namespace", as_json=False)
    check(rc == 0, f"solscope fleet --by namespace (text) exited {rc}: {err}")
    lines = out.splitlines()
    check(lines[0].startswith("GPUs by namespace, most wasted first:") and lines[1].split()[0] == "NAMESPACE",
          f"the table's head:\n{out}")
    order = sorted(want, key=lambda g: (-want[g]["wasted_gpu_hours"], g))
    check([line.split()[0] for line in lines[2:]] == order + ["total"], f"the table's rows:\n{out}")
    print(out, end="", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solscope", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--prometheus", default="/usr/bin/prometheus")
    ap.add_argument("--promtool", default="/usr/bin/promtool")
    args = ap.parse_args()
    prometheus_bin = h.require_tool(args.prometheus)
    promtool = h.require_tool(args.promtool)
    os.makedirs(args.workdir, exist_ok=True)
    prom = Prometheus(prometheus_bin, promtool, args.workdir)
    try:
        rc, out, err = fleet(args.solscope, prom.url, "--selector", '{cluster="a"}')
        check(rc == 0, f"solscope fleet exited {rc}: {err}")
        doc = json.loads(out)
        check_table(doc, expected_rows())
        check(doc["notes"] == [], f"notes {doc['notes']}")
        rc, out, err = fleet(args.solscope, prom.url, "--selector", '{cluster="a"}', "--step-series")
        check(rc == 0, f"solscope fleet --step-series exited {rc}: {err}")
        check_table(json.loads(out), expected_rows())  # every GPU's 241 steps, reduced by solscope

        rc, out, err = fleet(args.solscope, prom.url, "--selector", '{cluster="a"}', "--gpu-limit", "5")
        check(rc == 0, f"with --gpu-limit 5: exit {rc}: {err}")
        doc = json.loads(out)
        hosts = sorted({r["host"] for r in doc["rows"]})
        check(hosts == ["sol-a"] and len(doc["rows"]) == 4, f"--gpu-limit 5 kept {hosts}, {len(doc['rows'])} rows")
        check(doc["notes"] == ["series limit 5 reached: 6 GPUs not shown"], f"notes {doc['notes']}")

        rc, out, err = fleet(args.solscope, prom.url)
        check(rc == 0, f"without a selector: exit {rc}: {err}")
        hosts = sorted({r["host"] for r in json.loads(out)["rows"]})
        check(hosts == ["dgx-b", "dgx-c", "other-x", "sol-a", "sol-t1", "sol-t2", "sol-w"],
              f"without a selector: hosts {hosts}")

        job = check_iterations(args.solscope, prom.url, "training_job")["training_job=llm-7"]
        check(job["straggler"] == ("sol-t2", "1") and job["gpus"] == 4, f"the fixture's straggler: {job}")
        print(f"fleet --job-label training_job: 4 ranks on 2 hosts, straggler sol-t2/1, compute "
              f"{job['straggler_compute_s'] * 1e3:.3f} ms against a median of {job['median_compute_s'] * 1e3:.3f} ms: "
              f"spread {job['spread_pct']:.3f} %", flush=True)
        by_pod = check_iterations(args.solscope, prom.url, "")
        check(by_pod["job:ml/llm-7-1"]["straggler"] == ("sol-t2", "1"), f"by pod: {by_pod}")
        rc, out, err = fleet(args.solscope, prom.url, "--job-label", "training-job")
        check(rc == 2 and "--job-label training-job is not a Prometheus label name" in err,
              f"a bad --job-label: exit {rc} (want 2): {err}")

        by_namespace = check_workloads(args.solscope, prom.url, "namespace")
        check_workloads(args.solscope, prom.url, "pod")
        check_workloads(args.solscope, prom.url, "job")
        check_workload_table(args.solscope, prom.url, by_namespace)

        rc, out, err = fleet(args.solscope, prom.url, "--selector", '{cluster=~"a"')
        check(rc == 2 and "parse error" in err and "--selector" in err,
              f"a bad selector: exit {rc} (want 2) with Prometheus' message: {err}")

        rc, out, err = fleet(args.solscope, prom.url + "/graph")
        check(rc == 1 and "not Prometheus' API" in err, f"a URL that is not the API: exit {rc}: {err}")

        rc, out, err = fleet(args.solscope, prom.url, "--at", "yesterday")
        check(rc == 2 and "--at yesterday is not a time" in err, f"a bad --at: exit {rc}: {err}")
        rc, out, err = fleet(args.solscope, prom.url, "--at", "2024-06-01T00:00:00Z", "--selector", '{cluster="a"}')
        check(rc == 0 and json.loads(out)["window_end_ns"] == END_S * 10**9, f"--at as UTC: exit {rc}: {err}")
        res = subprocess.run([args.solscope, "fleet", "--json"], capture_output=True, text=True, check=False)
        check(res.returncode == 2 and "--prometheus" in res.stderr, f"no --prometheus: {res.returncode} {res.stderr}")
        check_token(args.solscope, args.workdir)
    finally:
        prom.stop()


if __name__ == "__main__":
    h.run_main(main)
