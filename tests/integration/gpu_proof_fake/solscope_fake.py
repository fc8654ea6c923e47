#!/usr/bin/env python3
"""A stand-in for solscope on a GPU machine, for the GPU proof kit's test without a GPU.

It answers the commands scripts/gpu-proof.sh runs, with the exit codes and JSON shapes of the real one (README,
docs/accuracy.md, docs/report.md, the `report --phases` contract in docs/gpu-proof.md), and canned figures. One
declared phase, `tiny_kernels`, is made to FAIL, so that the test sees a FAIL row and exit code 1.
Self-contained (the kit copies the binary alone for its unprivileged run).
"""

import http.server
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

VERSION = "solscope 0.1.0-fake"
UUID = "GPU-8a3c2b1e-0000-4000-8000-00000000fake"
NAME = "NVIDIA H100 80GB HBM3 (fake)"
KERNELS = {
    "gemm_bf16_8192": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_fake_cublas",
    "copy_d2d_4gib": "void at::native::vectorized_elementwise_kernel<4, at::native::neg_kernel_cuda>(int)",
    "decode": "void gemv2T_kernel_val<int, int, __nv_bfloat16, float, 128, 16, 4, 4, false>(cublasGemvParams<float>)",
    "tiny_kernels": "at::cuda::(anonymous namespace)::spin_kernel(long)",
}
FIGURES = {
    "gemm_bf16_8192": dict(compute_sol_pct=88.0, compute_pipe="tensor", memory_sol_pct=30.0, memory_path="dram",
                           bound="compute", tensor_pipe_pct=88.0, fma_pipe_pct=1.0, dram_pct=30.0, l2_pct=40.0),
    "copy_d2d_4gib": dict(compute_sol_pct=3.0, compute_pipe="lsu", memory_sol_pct=90.0, memory_path="dram",
                          bound="memory", tensor_pipe_pct=0.0, fma_pipe_pct=0.5, dram_pct=90.0, l2_pct=45.0),
    "decode": dict(compute_sol_pct=9.0, compute_pipe="fma", memory_sol_pct=75.0, memory_path="dram",
                   bound="memory", tensor_pipe_pct=0.0, fma_pipe_pct=9.0, dram_pct=75.0, l2_pct=33.0),
    "tiny_kernels": dict(compute_sol_pct=0.1, compute_pipe="issue", memory_sol_pct=0.1, memory_path="l2",
                         bound="latency", tensor_pipe_pct=0.0, fma_pipe_pct=0.0, dram_pct=0.1, l2_pct=0.1),
    "idle": dict(compute_sol_pct=0.0, compute_pipe="tensor", memory_sol_pct=0.2, memory_path="dram",
                 bound="idle", tensor_pipe_pct=0.0, fma_pipe_pct=0.0, dram_pct=0.2, l2_pct=0.1),
}


def key(name):
    if name.startswith("decode"):
        return "decode"
    if name.startswith("idle"):
        return "idle"
    return name


def err(msg, code):
    print(f"solscope: error: {msg}", file=sys.stderr)
    sys.exit(code)


def make_trace(path, samples=10):
    if os.path.exists(path):
        err(f"{path} exists. give --force to replace it", 2)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("CREATE TABLE samples (id INTEGER PRIMARY KEY, device INTEGER, t_start_ns INTEGER, t_end_ns INTEGER)")
    con.execute("CREATE TABLE kernels (id INTEGER PRIMARY KEY, device INTEGER, start_ns INTEGER, end_ns INTEGER, "
                "name TEXT)")
    now = time.time_ns()
    con.executemany("INSERT INTO samples (device, t_start_ns, t_end_ns) VALUES (0, ?, ?)",
                    [(now + i * 10**7, now + (i + 1) * 10**7) for i in range(samples)])
    con.commit()
    return con


def devices(args):
    root = os.getuid() == 0
    d = {"index": 0, "name": NAME, "uuid": UUID, "pci_bus_id": "00000000:00:05.0", "memory_total_bytes": 85 * 10**9,
         "source": "pm_sampling" if root else "gpm",
         "reason": "" if root else "CUPTI PM sampling needs the profiling permission",
         "hint": "" if root else "run as root, or grant CAP_SYS_ADMIN or CAP_PERFMON",
         "gpm_supported": True, "mig_enabled": False, "lost": False}
    j = {"driver_version": "580.65.06", "profiling_allowed": root,
         "profiling_reason": "" if root else "RmProfilingAdminOnly: 1 and no CAP_SYS_ADMIN or CAP_PERFMON",
         "profiling_fix": "" if root else "options nvidia NVreg_RestrictProfilingToAdminUsers=0", "devices": [d]}
    if "--json" in args:
        print(json.dumps(j))
    else:
        print(f"GPU 0  {NAME}  {UUID}\n  source: {d['source']}")
    return 0


def check(args):
    out = args[args.index("-o") + 1] if "-o" in args else None
    if out:
        make_trace(out).close()
    rows = [{"phase": p, "metric": m, "expected_pct": e, "measured_pct": e + 0.4, "difference_pct": 0.4,
             "tolerance_pct": 3.0, "bound": "point", "samples": 130, "result": "PASS", "basis": "fake"}
            for p, m, e in (("idle", "sm_active", 0.0), ("fma", "fma_pipe_pct", 93.1), ("mma_bf16", "tensor_pipe_pct",
                                                                                           71.0))]
    doc = {"result": "pass", "passed": 6, "failed": 0,
           "checks": [{"gpu": 0, "name": NAME, "source": "pm_sampling", "rows": rows, "notes": []},
                      {"gpu": 0, "name": NAME, "source": "gpm", "rows": rows, "notes": ["not measured by gpm: alu"]}],
           "overhead": [{"gpu": 0, "source": "pm_sampling",
                         "rows": [{"kernel": "fma", "interval_ns": iv, "repetitions": 5, "launches_per_s": 800.0,
                                   "ratio": r, "sm_clock_mhz": 1980.0}
                                  for iv, r in ((0, 1.0), (100000000, 0.999), (10000000, 0.995), (1000000, 0.98))]}],
           "notes": []}
    print(json.dumps(doc))
    return 0


def run(args, interval):
    if "--" not in args:
        err("run needs -- CMD", 2)
    cmd = args[args.index("--") + 1:]
    opts = args[:args.index("--")]
    trace = opts[opts.index("-o") + 1] if "-o" in opts else None
    html = opts[opts.index("--html") + 1] if "--html" in opts else None
    con = make_trace(trace) if trace else None
    rc = subprocess.call(cmd)
    if con is not None:
        now = time.time_ns()
        con.executemany("INSERT INTO kernels (device, start_ns, end_ns, name) VALUES (0, ?, ?, ?)",
                        [(now - 10**6, now, v) for v in KERNELS.values()])
        # SOLSCOPE_FAKE_KERNELS=N adds N decode-kernel rows (a trace too large to carry as it is); with
        # SOLSCOPE_FAKE_NOISE=1 each row carries random bytes, so that compression cannot save it either.
        extra = int(os.environ.get("SOLSCOPE_FAKE_KERNELS", "0"))
        if extra:
            con.execute("ALTER TABLE kernels ADD COLUMN noise BLOB")
            noise = os.environ.get("SOLSCOPE_FAKE_NOISE") == "1"
            con.executemany("INSERT INTO kernels (device, start_ns, end_ns, name, noise) VALUES (0, ?, ?, ?, ?)",
                            ((now + i, now + i + 1, KERNELS["decode"], os.urandom(64) if noise else None)
                             for i in range(extra)))
        con.execute("INSERT INTO meta VALUES ('interval', ?)", (interval,))
        con.commit()
        con.close()
    if html:
        with open(html, "w", encoding="utf-8") as f:
            f.write("<!doctype html><title>fake report</title>\n")
    print(f"solscope run: {' '.join(cmd)} exited {rc}", file=sys.stderr)
    return rc


def report(args):
    trace = args[0]
    if not os.path.exists(trace):
        err(f"{trace}: no such trace", 5)
    base = {"report_version": 1,
            "trace": {"path": trace, "host": "fakehost", "tool_version": VERSION, "synthetic": False,
                      "kernel_log": "cupti", "kernels_dropped": 0, "command": "python3 gpu_workload.py",
                      "exit_status": "exit 0"},
            "gpus": [{"index": 0, "uuid": UUID, "name": NAME, "source": "pm_sampling", "samples": 4100,
                      "duration_s": 41.0, "compute_sol_pct": 35.2, "compute_pipe": "tensor", "memory_sol_pct": 41.0,
                      "memory_path": "dram", "gpu_util_pct": 88.0, "sm_active_pct": 70.0, "energy_j": 21000,
                      "kernels": {"calls": 61234, "names": 9, "total_s": 30.1, "top": []}}]}
    if "--phases" not in args:
        print(json.dumps(base))
        return 0
    path = args[args.index("--phases") + 1]
    try:
        with open(path, encoding="utf-8") as f:
            declared = json.load(f)
    except (OSError, ValueError) as e:
        err(f"{path}: {e}", 2)
    uuid = (declared.get("gpu") or {}).get("uuid")
    if uuid not in (None, UUID):
        err(f"the phase file's GPU {uuid} is not in the trace", 2)
    phases = []
    for p in declared.get("phases", []):
        k = key(p["name"])
        figures = dict(FIGURES.get(k, FIGURES["idle"]), gpu_util_pct=100 if k != "idle" else 0, sm_active_pct=50,
                       dram_bytes_per_s=1e12, sm_clock_mhz=1980, implied_flop_per_s=7.7e14)
        expect = p.get("expect") or {}
        checks = []
        if "bound" in expect:
            checks.append({"what": "bound", "expected": expect["bound"], "measured": figures["bound"],
                           "result": "PASS" if expect["bound"] == figures["bound"] else "FAIL"})
        if p["name"] == "tiny_kernels":
            checks.append({"what": "gpu_util_pct", "expected": ">= 50", "measured": "12", "result": "FAIL"})
        result = "INFO" if not checks else ("FAIL" if any(c["result"] == "FAIL" for c in checks) else "PASS")
        phases.append({"name": p["name"], "start_ns": p.get("start_ns"), "end_ns": p.get("end_ns"), "samples": 200,
                       "result": result, "figures": figures,
                       "kernel": {"name": KERNELS[k], "calls": 100, "busy_pct": 97.0} if k in KERNELS else None,
                       "checks": checks})
    overall = "FAIL" if any(p["result"] in ("FAIL", "NO DATA") for p in phases) else "PASS"
    base["declared_phases"] = {"file": os.path.basename(path), "device": 0, "result": overall, "phases": phases}
    print(json.dumps(base))
    return 6 if overall == "FAIL" else 0


def record(args, interval):
    trace = args[args.index("-o") + 1]
    con = make_trace(trace, samples=1)
    stop = threading.Event()
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda *_: stop.set())
    step = {"1ms": 0.001, "10ms": 0.01, "100ms": 0.1}.get(interval, 0.1)
    while not stop.wait(max(step, 0.05)):
        now = time.time_ns()
        con.execute("INSERT INTO samples (device, t_start_ns, t_end_ns) VALUES (0, ?, ?)", (now, now + 1))
        con.commit()
    con.close()
    return 0


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's spelling
        body, ctype = {
            "/healthz": (b"ok\n", "text/plain"),
            "/metrics": (b"# HELP solscope_compute_sol_ratio x\nsolscope_compute_sol_ratio{gpu=\"0\"} 0.1\n"
                         b"solscope_memory_sol_ratio{gpu=\"0\"} 0.2\n", "text/plain; version=0.0.4"),
            "/api/v1/devices": (json.dumps({"devices": [{"index": 0, "name": NAME, "uuid": UUID,
                                                         "source": "pm_sampling"}]}).encode(), "application/json"),
        }.get(self.path, (b"not found\n", None))
        self.send_response(200 if ctype else 404)
        self.send_header("Content-Type", ctype or "text/plain")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def serve(args):
    listen = args[args.index("--listen") + 1] if "--listen" in args else "127.0.0.1:9741"
    host, port = listen.rsplit(":", 1)
    srv = http.server.ThreadingHTTPServer((host, int(port)), Handler)
    print(f"solscope: listening on http://{host}:{srv.server_address[1]}", file=sys.stderr, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown).start())
    srv.serve_forever()
    return 0


def main(argv):
    interval = "100ms"
    while argv and argv[0].startswith("--"):
        if argv[0] == "--version":
            print(VERSION)
            return 0
        if argv[0] in ("--interval", "--devices"):
            interval = argv[1] if argv[0] == "--interval" else interval
            argv = argv[2:]
        else:
            argv = argv[1:]
    if not argv:
        err("the fake solscope has no live view", 2)
    cmd, rest = argv[0], argv[1:]
    table = {"devices": lambda: devices(rest), "check": lambda: check(rest), "run": lambda: run(rest, interval),
             "report": lambda: report(rest), "record": lambda: record(rest, interval), "serve": lambda: serve(rest)}
    if cmd not in table:
        err(f"unknown command {cmd}", 2)
    return table[cmd]()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
