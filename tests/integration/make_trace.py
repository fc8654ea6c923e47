#!/usr/bin/env python3
"""Writes a SYNTHETIC solscope trace (schema 1, docs/trace-format.md) for the integration tests and benchmarks.

Nothing here was measured on a GPU: the file says so (meta.synthetic = 1, source_description "synthetic: ...",
device names start with "SYNTHETIC"). Python standard library only, so that tests need no extra build.

  make_trace.py OUT.sqlite [--gpus 2] [--hz 100] [--seconds 10] [--profile phases|constant]
                [--start-ns NS] [--attainable-gpu 0]

Profiles:
  constant  every GPU runs one constant load for the whole trace; GPU g has the values of constant_load(g).
            A monitoring system's rate() of a busy-seconds counter must equal these values exactly.
  phases    each GPU cycles through idle, tensor-bound, memory-bound and latency-bound phases (4 s each, shifted
            by GPU), with a deterministic wobble on every sample, so windows differ from one another.

Each sample's derived columns (compute_sol_pct, bound, ...) follow core::derive(): Compute SOL is the busiest of
the pipes written here, Memory SOL the busiest path, the bound class core::classify_bound() with GR active.
"""

import argparse
import math
import os
import socket
import sqlite3
import struct
import sys

# Catalog names (src/core/metric_catalog.cpp) and their units; readers match metrics by name.
METRICS = [
    ("tensor_pipe_pct", "pct"), ("fma_pipe_pct", "pct"), ("alu_pipe_pct", "pct"), ("issue_pct", "pct"),
    ("dram_pct", "pct"), ("l2_pct", "pct"), ("l1_pct", "pct"), ("sm_active_pct", "pct"),
    ("sm_occupancy_pct", "pct"), ("gr_active_pct", "pct"), ("gpu_util_pct", "pct"), ("sm_clock_mhz", "mhz"),
    ("mem_clock_mhz", "mhz"), ("power_w", "w"), ("power_limit_w", "w"), ("temperature_c", "c"),
    ("memory_used_bytes", "bytes"), ("memory_total_bytes", "bytes"),
]
PIPES = {"tensor_pipe_pct": "tensor", "fma_pipe_pct": "fma", "alu_pipe_pct": "alu", "issue_pct": "issue"}
PATHS = {"dram_pct": "dram", "l2_pct": "l2", "l1_pct": "l1"}
DRAM_PEAK_BYTES_PER_S = 3.35e12  # the SYNTHETIC device's DRAM peak (H100 SXM's published 3.35 TB/s)
MEMORY_TOTAL_BYTES = 85899345920
IDLE_THRESHOLD_PCT = 5.0   # core/derive.hpp kIdleThresholdPct
BOUND_THRESHOLD_PCT = 60.0  # core/derive.hpp kBoundThresholdPct
DEFAULT_START_NS = 1767225600000000000  # 2026-01-01T00:00:00Z

# The trace format comes from the bundled demo trace, which the C++ trace::Writer wrote (tools/
# make_demo_trace.cpp): this helper keeps no copy of the schema (src/trace/schema.hpp is the one list of
# columns; tests/trace/columns_test.cpp checks that the demo trace has this build's schema).
DEMO_TRACE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "demo-trace.sqlite")


def trace_format():
    """(DDL statements, {pragma: value}, schema meta) of the format, read from the demo trace."""
    src = sqlite3.connect(f"file:{DEMO_TRACE}?mode=ro", uri=True)
    ddl = [row[0] for row in src.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL ORDER BY rowid")]
    pragmas = {name: src.execute(f"PRAGMA {name}").fetchone()[0]
               for name in ("page_size", "application_id", "user_version")}
    meta = dict(src.execute("SELECT key, value FROM meta WHERE key IN ('schema_version', "
                            "'oldest_readable_version')"))
    src.close()
    return ddl, pragmas, meta


# idle, tensor-bound GEMM-like, DRAM-bound decode-like, many tiny kernels (busy engine, low SOL)
PHASES = [
    dict(tensor_pipe_pct=0.0, fma_pipe_pct=0.0, alu_pipe_pct=0.1, issue_pct=0.2, dram_pct=0.3, l2_pct=0.3,
         l1_pct=0.1, sm_active_pct=0.5, sm_occupancy_pct=0.1, gr_active_pct=0.5, gpu_util_pct=0.0,
         sm_clock_mhz=345.0, power_w=72.0),
    dict(tensor_pipe_pct=82.0, fma_pipe_pct=6.0, alu_pipe_pct=9.0, issue_pct=31.0, dram_pct=34.0, l2_pct=47.0,
         l1_pct=28.0, sm_active_pct=97.0, sm_occupancy_pct=24.0, gr_active_pct=99.0, gpu_util_pct=100.0,
         sm_clock_mhz=1755.0, power_w=655.0),
    dict(tensor_pipe_pct=5.0, fma_pipe_pct=3.0, alu_pipe_pct=11.0, issue_pct=14.0, dram_pct=86.0, l2_pct=61.0,
         l1_pct=19.0, sm_active_pct=91.0, sm_occupancy_pct=44.0, gr_active_pct=99.0, gpu_util_pct=100.0,
         sm_clock_mhz=1980.0, power_w=455.0),
    dict(tensor_pipe_pct=1.5, fma_pipe_pct=1.0, alu_pipe_pct=3.0, issue_pct=4.5, dram_pct=3.5, l2_pct=5.0,
         l1_pct=2.0, sm_active_pct=34.0, sm_occupancy_pct=5.0, gr_active_pct=97.0, gpu_util_pct=100.0,
         sm_clock_mhz=1980.0, power_w=185.0),
]
PHASE_SECONDS = 4.0


def constant_load(gpu):
    """The constant profile's values of GPU `gpu` (percent): distinct per GPU so label mix-ups show."""
    tensor = 20.0 + 15.0 * (gpu % 5)
    return dict(tensor_pipe_pct=tensor, fma_pipe_pct=5.0, alu_pipe_pct=3.0, issue_pct=12.0,
                dram_pct=10.0 + 7.0 * (gpu % 7), l2_pct=6.0, l1_pct=4.0, sm_active_pct=90.0,
                sm_occupancy_pct=30.0, gr_active_pct=96.0, gpu_util_pct=100.0, sm_clock_mhz=1755.0,
                power_w=400.0 + gpu)


def phase_load(gpu, t_s):
    phase = int((t_s + gpu * PHASE_SECONDS / 2) // PHASE_SECONDS) % len(PHASES)
    base = PHASES[phase]
    out = {}
    for i, (name, value) in enumerate(sorted(base.items())):
        amplitude = 0.05 if phase == 0 else (20.0 if name == "power_w" else 3.0)
        if name.endswith("_mhz"):
            amplitude = 0.0
        wobble = amplitude * math.sin(t_s * 2.3 + gpu + i) * math.cos(t_s * 0.37 + 2 * gpu)
        out[name] = max(0.0, value + wobble)
    out["gr_active_pct"] = min(100.0, out["gr_active_pct"])
    out["gpu_util_pct"] = base["gpu_util_pct"]
    return out


def derive(values):
    """compute/memory SOL, their pipe/path and the bound class, as core::derive() computes them."""
    pipe = max(PIPES, key=lambda n: values[n])
    path = max(PATHS, key=lambda n: values[n])
    compute, memory = values[pipe], values[path]
    engine = values["gr_active_pct"]
    if engine < IDLE_THRESHOLD_PCT:
        bound = "idle"
    elif compute >= BOUND_THRESHOLD_PCT and compute >= memory:
        bound = "compute"
    elif memory >= BOUND_THRESHOLD_PCT:
        bound = "memory"
    else:
        bound = "latency"
    return compute, PIPES[pipe], memory, PATHS[path], bound


def write_meta(db, args, gpus, schema_meta):
    desc = (f"synthetic: generated by tests/integration/make_trace.py ({args.profile} profile, {gpus} GPUs x "
            f"{args.hz} Hz x {args.seconds} s); never measured on a GPU")
    meta = {**schema_meta, "tool_version": "make_trace.py",
            "host": socket.gethostname(), "start_time_ns": str(args.start_ns), "synthetic": "1",
            "source_description": desc, "time_ordered": "1",
            "has_attainable": "1" if args.attainable_gpu >= 0 else "0"}
    db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", meta.items())
    for g in range(gpus):
        db.execute("INSERT INTO devices VALUES (?,?,?,?,?,?,?,?,?,?)",
                   (g, f"GPU-5e1f0000-0000-4000-8000-{g:012d}", "SYNTHETIC test GPU (H100-SXM-like)", "GH100",
                    f"00000000:{0x18 + g:02X}:00.0", 132, 1980.0, 2619.0, MEMORY_TOTAL_BYTES,
                    DRAM_PEAK_BYTES_PER_S))
    db.executemany("INSERT INTO metrics(id, name, unit, help) VALUES (?, ?, ?, ?)",
                   [(i, n, u, "synthetic test metric") for i, (n, u) in enumerate(METRICS)])


def write_samples(db, args, gpus):
    interval_ns = 1_000_000_000 // args.hz
    count = int(round(args.seconds * args.hz))
    rows, blobs = [], []
    sample_id = 0
    for n in range(count):
        t0 = args.start_ns + n * interval_ns
        t_s = n * interval_ns / 1e9
        for g in range(gpus):
            v = constant_load(g) if args.profile == "constant" else phase_load(g, t_s)
            v.update(mem_clock_mhz=2619.0, power_limit_w=700.0, temperature_c=35.0 + v["power_w"] / 20.0,
                     memory_used_bytes=71.3e9 if v["gpu_util_pct"] > 0 else 0.5e9,
                     memory_total_bytes=float(MEMORY_TOTAL_BYTES))
            compute, pipe, memory, path, bound = derive(v)
            att_c = att_m = None
            if g == args.attainable_gpu:
                att_c, att_m = 55.0, 40.0
            sample_id += 1
            rows.append(dict(
                id=sample_id, device=g, t_start_ns=t0, t_end_ns=t0 + interval_ns, source="pm_sampling", flags=0,
                compute_sol_pct=compute, compute_pipe=pipe, memory_sol_pct=memory, memory_path=path, bound=bound,
                sm_active_pct=v["sm_active_pct"], sm_occupancy_pct=v["sm_occupancy_pct"],
                gr_active_pct=v["gr_active_pct"], gpu_util_pct=v["gpu_util_pct"],
                dram_bytes_per_s=v["dram_pct"] / 100.0 * DRAM_PEAK_BYTES_PER_S, sm_clock_mhz=v["sm_clock_mhz"],
                mem_clock_mhz=v["mem_clock_mhz"], power_w=v["power_w"], temperature_c=v["temperature_c"],
                memory_used_bytes=v["memory_used_bytes"], attainable_compute_sol_pct=att_c,
                attainable_memory_sol_pct=att_m))
            blobs.append((sample_id, struct.pack(f"<{len(METRICS)}d", *(v[name] for name, _ in METRICS))))
    # By column name: a column this helper does not know stays NULL; one the schema lacks fails loudly.
    columns = list(rows[0])
    db.executemany(f"INSERT INTO samples({', '.join(columns)}) VALUES ({', '.join(':' + c for c in columns)})",
                   rows)
    db.executemany("INSERT INTO sample_counters(sample_id, raw) VALUES (?, ?)", blobs)
    return sample_id


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--hz", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--profile", choices=["phases", "constant"], default="phases")
    ap.add_argument("--start-ns", type=int, default=DEFAULT_START_NS)
    ap.add_argument("--attainable-gpu", type=int, default=-1, help="GPU whose samples carry an attainable SOL")
    args = ap.parse_args()
    if args.gpus < 1 or args.hz < 1 or args.hz > 10000 or args.seconds <= 0:
        sys.exit("make_trace.py: --gpus, --hz (1-10000) and --seconds must be positive")
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(args.out + suffix):
            os.remove(args.out + suffix)
    ddl, pragmas, schema_meta = trace_format()
    db = sqlite3.connect(args.out)
    for name, value in pragmas.items():
        db.execute(f"PRAGMA {name} = {int(value)}")
    for statement in ddl:
        db.execute(statement)
    with db:
        write_meta(db, args, args.gpus, schema_meta)
        total = write_samples(db, args, args.gpus)
    db.close()
    print(f"make_trace.py: wrote {total} SYNTHETIC samples to {args.out}")


if __name__ == "__main__":
    main()
