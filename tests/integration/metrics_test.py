#!/usr/bin/env python3
"""Integration test: `solscope serve` over a replayed SYNTHETIC trace exports /metrics and the API correctly.

  metrics_test.py --solscope BIN --workdir DIR [--locale C|de_DE.UTF-8]

1. Writes a trace (solscope_make_synthetic_trace: 2 GPUs x 100 Hz x 10 s, phases profile, GPU 0 with an attainable SOL).
2. Serves it under LC_ALL=<locale> and waits until every sample has been played (the replay does not loop, so
   the daemon's state stops at the trace's end and is deterministic).
3. `promtool check metrics` must accept the live /metrics (no error and no lint problem), and every value must be
   a Prometheus float (a German locale must never print a decimal comma).
4. The figures must equal the trace's, computed here from `solscope export --format jsonl`:
   - counters: samples, sampled seconds, and busy seconds of Compute/Memory SOL, every pipe and path, SM active,
     classic utilization, DRAM bytes = sums over every sample (relative 1e-9);
   - gauges of the latest window = that window of the trace (core::WindowAccumulator rule, mirrored in
     harness.py), with the pipe/path/bound labels; /api/v1/devices latest_window and /api/v1/samples windows
     likewise;
   - every per-GPU series carries gpu, UUID, modelName and hostname;
   - every solscope_* name the Grafana dashboard and the Prometheus rules use is exported.
5. SIGTERM: the daemon exits 0.
"""

import argparse
import os
import re
import subprocess
import time

import harness as h
from harness import check, fail

GPUS, HZ, SECONDS = 2, 100, 10.0
WINDOW_NS = 1_000_000_000
PCT = 0.01
PER_GPU_LABELS = ("gpu", "UUID", "modelName", "hostname")


def wait_until_played(daemon, expected_counts, timeout_s):
    deadline = time.time() + timeout_s
    last = None
    while time.time() < deadline:
        check(daemon.alive(), "solscope serve exited while replaying:\n" + "".join(daemon.stderr_lines[-20:]))
        text, _ = daemon.get_text("/metrics")
        series = h.parse_prometheus(text)
        counts = {g: [v for _, v in h.find_series(series, "solscope_samples_total", gpu=g)] for g in expected_counts}
        if all(c == [float(n)] for c, n in zip(counts.values(), expected_counts.values())):
            return text
        last = counts
        time.sleep(0.25)
    fail(f"the replay did not finish within {timeout_s:.0f} s: solscope_samples_total {last}, "
         f"want {expected_counts}")
    return None


CAMEL_CASE_LINT = "label names should be written in 'snake_case' not 'camelCase'"
PM_PAUSE_REASONS = ("manual", "profiler", "dcgm", "counters_busy", "policy")  # core::PmPauseReason but none
DCGM_LABELS = {"UUID", "modelName"}  # dcgm-exporter's spelling, kept so that the two join (docs/http-api.md)


def promtool_check(promtool, text, series):
    """promtool must find no error (status 1) and no lint problem other than the dcgm-exporter label names."""
    res = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, check=False)
    problems = [l for l in (res.stdout + res.stderr).splitlines() if l.strip() and CAMEL_CASE_LINT not in l]
    check(res.returncode in (0, 3) and not problems,
          f"promtool check metrics: status {res.returncode}\n" + "\n".join(problems[:40]))
    camel = {k for _, labels, _ in series for k in labels if re.search(r"[A-Z]", k)}
    check(camel <= DCGM_LABELS, f"camelCase labels besides dcgm-exporter's {sorted(DCGM_LABELS)}: {sorted(camel)}")
    if res.returncode == 3:
        check(camel, f"promtool reports camelCase labels but none were found:\n{res.stdout}{res.stderr}")


def check_counters(series, samples, gpu):
    sec = lambda s: (s["t_end_ns"] - s["t_start_ns"]) / 1e9  # noqa: E731

    def busy(value_of):
        return sum(value_of(s) * PCT * sec(s) for s in samples if value_of(s) is not None)

    want = {
        ("solscope_samples_total", None): float(len(samples)),
        ("solscope_sampled_seconds_total", None): sum(sec(s) for s in samples),
        ("solscope_compute_sol_seconds_total", None): busy(lambda s: s["compute_sol_pct"]),
        ("solscope_memory_sol_seconds_total", None): busy(lambda s: s["memory_sol_pct"]),
        ("solscope_sm_active_seconds_total", None): busy(lambda s: s["sm_active_pct"]),
        ("solscope_gpu_utilization_seconds_total", None): busy(lambda s: s["gpu_util_pct"]),
        ("solscope_dram_bytes_total", None): sum(s["dram_bytes_per_s"] * sec(s) for s in samples),
        ("solscope_sample_gaps_total", None): float(sum(1 for s in samples if s["flags"] & 1)),
    }
    # Seconds paused per reason, every reason from 0 (an export from before pm_pause reads as not paused).
    for reason in PM_PAUSE_REASONS:
        want[("solscope_pm_paused_seconds_total", ("reason", reason))] = sum(
            sec(s) for s in samples if s.get("pm_pause", "none") == reason)
    for pipe in samples[0]["pipes"]:
        if any(s["pipes"][pipe] is not None for s in samples):
            want[("solscope_pipe_busy_seconds_total", ("pipe", pipe))] = busy(lambda s, p=pipe: s["pipes"][p])
    for path in samples[0]["paths"]:
        if any(s["paths"][path] is not None for s in samples):
            want[("solscope_memory_path_busy_seconds_total", ("path", path))] = busy(
                lambda s, p=path: s["paths"][p])
    for (name, label), expected in want.items():
        extra = {label[0]: label[1]} if label else {}
        got = h.one_value(series, name, gpu=gpu, **extra)
        check(h.close(got, expected, rel=1e-9, abs_tol=1e-9),
              f"{name}{{gpu={gpu}{', ' + str(extra) if extra else ''}}} = {got!r}, the trace gives {expected!r}")


def check_gauges(series, window, gpu):
    def gauge(name, pct, **labels):
        if pct is None:
            check(not h.find_series(series, name, gpu=gpu, **labels),
                  f"{name}{{gpu={gpu}}} is exported but the trace's window has no such figure")
            return
        got = h.one_value(series, name, gpu=gpu, **labels)
        check(h.close(got, pct * PCT, rel=1e-9, abs_tol=1e-12),
              f"{name}{{gpu={gpu}, {labels}}} = {got!r}, the trace's window gives {pct * PCT!r}")

    gauge("solscope_compute_sol_ratio", window["compute_sol_pct"], pipe=window["compute_pipe"])
    gauge("solscope_memory_sol_ratio", window["memory_sol_pct"], path=window["memory_path"])
    gauge("solscope_gpu_utilization_ratio", window["gpu_util_pct"])
    gauge("solscope_sm_active_ratio", window["sm_active_pct"])
    gauge("solscope_sm_occupancy_ratio", window["sm_occupancy_pct"])
    gauge("solscope_attainable_compute_sol_ratio", window.get("attainable_compute_sol_pct"))
    gauge("solscope_attainable_memory_sol_ratio", window.get("attainable_memory_sol_pct"))
    for pipe, pct in window["pipes"].items():
        gauge("solscope_pipe_utilization_ratio", pct, pipe=pipe)
    for path, pct in window["paths"].items():
        gauge("solscope_memory_path_utilization_ratio", pct, path=path)
    power = h.one_value(series, "solscope_power_watts", gpu=gpu)
    check(h.close(power, window["power_w"]), f"solscope_power_watts{{gpu={gpu}}} = {power}, want {window['power_w']}")
    clock = h.one_value(series, "solscope_sm_clock_hertz", gpu=gpu)
    check(h.close(clock, window["sm_clock_mhz"] * 1e6),
          f"solscope_sm_clock_hertz{{gpu={gpu}}} = {clock}, want {window['sm_clock_mhz'] * 1e6}")
    bounds = {l["bound"]: v for l, v in h.find_series(series, "solscope_bound", gpu=gpu)}
    check(bounds.get(window["bound"]) == 1.0 and all(v == 0.0 for b, v in bounds.items() if b != window["bound"]),
          f"solscope_bound{{gpu={gpu}}} = {bounds}, the trace's window is {window['bound']}-bound")


def same_window(got, want, what):
    """A window of the API against one computed from the trace (percent fields, pipe, path, bound)."""
    for key in ("t_start_ns", "t_end_ns", "compute_pipe", "memory_path", "bound"):
        check(got.get(key) == want.get(key), f"{what}: {key} = {got.get(key)!r}, the trace gives {want.get(key)!r}")
    for key in ("compute_sol_pct", "memory_sol_pct", "gpu_util_pct", "sm_active_pct", "dram_bytes_per_s",
                "attainable_compute_sol_pct", "attainable_memory_sol_pct", "power_w"):
        g, w = got.get(key), want.get(key)
        check((g is None and w is None) or (g is not None and w is not None and h.close(g, w)),
              f"{what}: {key} = {g!r}, the trace gives {w!r}")


def check_api(daemon, windows, gpu, devices_doc):
    dev = [d for d in devices_doc["devices"] if d["index"] == gpu]
    check(len(dev) == 1, f"/api/v1/devices lists GPU {gpu} {len(dev)} times")
    latest = dev[0]["latest_window"]
    check(latest is not None, f"/api/v1/devices: GPU {gpu} has no latest_window after the replay")
    key = h.window_key(latest, WINDOW_NS)
    check(key in windows and key >= max(windows) - 1,
          f"GPU {gpu}: latest_window starts at {latest['t_start_ns']}, not one of the trace's last two windows")
    same_window(latest, windows[key], f"/api/v1/devices GPU {gpu} latest_window")
    first = min(windows)
    doc = daemon.get_json(f"/api/v1/samples?device={gpu}&since={first * WINDOW_NS - WINDOW_NS}&window=1s")
    check(doc.get("device") == gpu and doc.get("window_ns") == WINDOW_NS, f"/api/v1/samples header: {doc}")
    got = {h.window_key(w, WINDOW_NS): w for w in doc["samples"]}
    # Every complete window, and possibly the newest one still open (here it holds all its samples).
    complete = [k for k in sorted(windows) if k <= key]
    check(sorted(got) in (complete, sorted(windows)),
          f"/api/v1/samples GPU {gpu}: windows {sorted(got)}, the trace's windows {sorted(windows)} "
          f"(latest complete: {key})")
    for k, w in got.items():
        same_window(w, windows[k], f"/api/v1/samples GPU {gpu} window {k}")
    return windows[key]


def check_names_used_by_deploy(series):
    exported = {n for n, _, _ in series}
    used = set()
    for path in ("deploy/grafana/solscope-dashboard.json", "deploy/prometheus/solscope-rules.yml"):
        with open(os.path.join(h.ROOT, path), encoding="utf-8") as f:
            used |= set(re.findall(r"(?<![:\w])(solscope_[a-z_]+)", f.read()))
    used.discard("solscope_gpu_job_info")  # provided by the user (deploy/README.md "Job labels")
    # Exported only while a workload holds a GPU (a replayed trace has none): tests/server/metrics_workload_test.cpp
    # checks it, and tests/integration/prometheus/solscope-rules.test.yml the rules over it.
    used.discard("solscope_workload_gpu_seconds_total")
    # Exported only while a GPU's iteration is periodic (a replayed demo trace is not): the names are
    # src/core/iteration.hpp's kPromIteration*Name, checked by tests/server/metrics_iteration_test.cpp.
    with open(os.path.join(h.ROOT, "src/core/iteration.hpp"), encoding="utf-8") as f:
        used -= set(re.findall(r'"(solscope_iteration_[a-z_]+)"', f.read()))
    used = {n for n in used if not n.endswith("_")}  # a prefix named in a comment ("solscope_iteration_*")
    missing = sorted(n for n in used if n not in exported)
    check(not missing, f"deploy/ uses metrics the daemon does not export: {missing}")


def check_labels(series, devices_doc):
    for name, labels, _ in series:
        if "gpu" in labels or name in ("solscope_compute_sol_ratio", "solscope_samples_total"):
            missing = [l for l in PER_GPU_LABELS if l not in labels]
            check(not missing, f"{name}{labels} lacks the labels {missing}")
    for d in devices_doc["devices"]:
        info = h.find_series(series, "solscope_gpu_info", gpu=d["index"])
        check(len(info) == 1 and info[0][0].get("UUID") == d["uuid"] and info[0][0].get("chip") == d["chip"],
              f"solscope_gpu_info of GPU {d['index']}: {info}, /api/v1/devices says {d['uuid']} {d['chip']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solscope", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--locale", default="C")
    args = ap.parse_args()
    promtool = h.require_tool("promtool")
    if args.locale not in ("C", "POSIX") and not h.locale_available(args.locale):
        h.skip(f"locale {args.locale} is not generated (scripts/setup.sh runs locale-gen)")
    os.makedirs(args.workdir, exist_ok=True)
    env = {"LC_ALL": args.locale, "LANG": args.locale}
    trace = h.make_trace(os.path.join(args.workdir, "trace.sqlite"), "--devices", GPUS, "--hz", HZ, "--seconds",
                         SECONDS, "--profile", "phases", "--attainable-gpu", 0)
    samples = h.export_jsonl(args.solscope, trace, env)
    speed = ["--speed", "0"] if "--speed" in h.serve_help(args.solscope) else []
    daemon = h.Daemon(args.solscope, ["--replay", trace, *speed], env=env,
                      log_path=os.path.join(args.workdir, "serve.log"))
    try:
        text = wait_until_played(daemon, {g: len(samples[g]) for g in range(GPUS)}, SECONDS + 30)
        time.sleep(0.5)
        text, headers = daemon.get_text("/metrics")
        check(headers.get("content-type", "").startswith("text/plain"),
              f"/metrics Content-Type {headers.get('content-type')!r}, want text/plain; version=0.0.4")
        with open(os.path.join(args.workdir, "metrics.txt"), "w", encoding="utf-8") as f:
            f.write(text)
        series = h.parse_prometheus(text)
        promtool_check(promtool, text, series)
        devices_doc = daemon.get_json("/api/v1/devices")
        check(devices_doc.get("synthetic") is True, "/api/v1/devices: a SYNTHETIC trace must say synthetic: true")
        check_labels(series, devices_doc)
        check_names_used_by_deploy(series)
        for gpu in range(GPUS):
            windows = h.aggregate_windows(samples[gpu], WINDOW_NS)
            check_counters(series, samples[gpu], gpu)
            latest = check_api(daemon, windows, gpu, devices_doc)
            check_gauges(series, latest, gpu)
        print(f"checked {len(series)} series of {GPUS} GPUs under LC_ALL={args.locale}")
    finally:
        if daemon.alive():
            daemon.stop()
    check(daemon.proc.returncode == 0, f"solscope serve exited with {daemon.proc.returncode}")


if __name__ == "__main__":
    h.run_main(main)
