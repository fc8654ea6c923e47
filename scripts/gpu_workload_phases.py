"""The phases of the GPU proof kit's workload (scripts/gpu_workload.py): the full run (--phases) and the short run
for Nsight Compute (--short), and the phase file they write. Standard library only at import time."""

import json
import os
import time

from gpu_workload_device import gpu_info, log, software_info
from gpu_workload_kernels import (COPY_BYTES, DECODE_SHAPES, DECODE_TOKENS, GEMM_N, MARKER_NOTE, TINY_TARGET_LAUNCHES,
                                  make_copy, make_decode, make_gemm, make_marker, make_tiny)

# (name, seconds) of the full run, in order; decode phases are expanded in run_full().
IDLE_S = 2.0
GEMM_S = 4.0
DECODE_S = 2.0
COPY_S = 3.0
TINY_S = 3.0

EXPECT_IDLE = {"bound": "idle", "max_compute_sol_pct": 5, "max_memory_sol_pct": 5}
EXPECT_GEMM = {"bound": "compute", "compute_pipe": "tensor", "min_compute_sol_pct": 50}
EXPECT_COPY = {"bound": "memory", "memory_path": "dram", "min_memory_sol_pct": 50}
EXPECT_TINY = {"bound": "latency", "min_gpu_util_pct": 50, "max_compute_sol_pct": 10}
TOLERANCE_PCT = 15


class PhaseFile:
    def __init__(self, path, torch, short):
        self.path = path
        self.doc = {"format": "solscope-phases-1", "mode": "short" if short else "full", "gpu": gpu_info(torch),
                    "software": software_info(torch), "phases": []}

    def add(self, phase):
        self.doc["phases"].append(phase)
        self.write()

    def write(self):
        if not self.path:
            return
        tmp = f"{self.path}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, self.path)


def stamp_phase(gpu, name, body):
    """Runs body() between two synchronized CLOCK_REALTIME stamps; returns the phase dict body() filled."""
    gpu.sync()
    start_ns = time.time_ns()
    phase = body() or {}
    gpu.sync()
    end_ns = time.time_ns()
    out = {"name": name, "start_ns": start_ns, "end_ns": end_ns}
    out.update(phase)
    log(f"phase {name}: {(end_ns - start_ns) / 1e9:.2f} s")
    return out


def decode_name(in_f, out_f, m):
    return f"decode_m{m}_{in_f}x{out_f}"


def warm_up(gpu):
    """One untimed call of every kernel shape, so cuBLAS heuristics, handle creation and module loads stay out of the
    phases."""
    for maker in (lambda: make_gemm(gpu), lambda: make_copy(gpu)):
        fn, _ = maker()
        fn()
        del fn
        gpu.free()
    for in_f, out_f in DECODE_SHAPES:
        for m in DECODE_TOKENS:
            fn, _ = make_decode(gpu, in_f, out_f, m)
            fn()
            del fn
        gpu.free()


def run_full(gpu, phases, scale):
    log("warm-up")
    warm_up(gpu)
    tiny_fn, tiny_info = make_tiny(gpu, TINY_S * scale / TINY_TARGET_LAUNCHES)
    gpu.free()

    def idle(seconds):
        def body():
            time.sleep(seconds)
            return {"expect": dict(EXPECT_IDLE)}
        return body

    phases.add(stamp_phase(gpu, "idle_start", idle(IDLE_S * scale)))

    fn, info = make_gemm(gpu)
    per = gpu.seconds_per_call(fn, 3)

    def gemm_body():
        calls, gpu_s = gpu.run_for(fn, GEMM_S * scale, per)
        return {"expect": dict(EXPECT_GEMM),
                "achieved": {"flop_per_s": info["flop"] * calls / gpu_s, "tolerance_pct": TOLERANCE_PCT,
                             "iterations": calls, "gpu_seconds": gpu_s},
                "shape": {"m": GEMM_N, "n": GEMM_N, "k": GEMM_N, "dtype": "bf16"}}

    phases.add(stamp_phase(gpu, "gemm_bf16_8192", gemm_body))
    del fn
    gpu.free()

    for m in DECODE_TOKENS:
        for in_f, out_f in DECODE_SHAPES:
            fn, info = make_decode(gpu, in_f, out_f, m)
            per = gpu.seconds_per_call(fn, 5)

            def decode_body(fn=fn, info=info, per=per, m=m, in_f=in_f, out_f=out_f):
                calls, gpu_s = gpu.run_for(fn, DECODE_S * scale, per)
                # useful_flop_per_s, not flop_per_s: report --phases would hold flop_per_s against the tensor pipe
                # (a FAIL wherever small M pads the tile or runs as a GEMV); these phases only inform.
                return {"expect": {},
                        "achieved": {"useful_flop_per_s": info["flop"] * calls / gpu_s,
                                     "weight_bytes_per_s": info["weight_bytes"] * calls / gpu_s,
                                     "iterations": calls, "gpu_seconds": gpu_s,
                                     "weight_copies": info["weight_copies"]},
                        "shape": {"m": m, "in_features": in_f, "out_features": out_f, "dtype": "bf16",
                                  "op": "torch.nn.functional.linear"}}

            phases.add(stamp_phase(gpu, decode_name(in_f, out_f, m), decode_body))
            del fn
            gpu.free()

    fn, info = make_copy(gpu)
    per = gpu.seconds_per_call(fn, 2)

    def copy_body():
        calls, gpu_s = gpu.run_for(fn, COPY_S * scale, per)
        return {"expect": dict(EXPECT_COPY),
                "achieved": {"dram_bytes_per_s": info["bytes"] * calls / gpu_s, "tolerance_pct": TOLERANCE_PCT,
                             "iterations": calls, "gpu_seconds": gpu_s, "bytes_per_iteration": info["bytes"]},
                "shape": {"bytes": COPY_BYTES, "op": "torch.neg(src, out=dst), float32"}}

    phases.add(stamp_phase(gpu, "copy_d2d_4gib", copy_body))
    del fn
    gpu.free()

    per = tiny_info.get("seconds_per_launch") or gpu.seconds_per_call(tiny_fn, 100)

    def tiny_body():
        calls, gpu_s = gpu.run_for(tiny_fn, TINY_S * scale, per)
        out = {"expect": dict(EXPECT_TINY), "launches": calls, "gpu_seconds": gpu_s}
        out.update({k: v for k, v in tiny_info.items() if k != "seconds_per_launch"})
        return out

    phases.add(stamp_phase(gpu, "tiny_kernels", tiny_body))
    gpu.free()

    phases.add(stamp_phase(gpu, "idle_end", idle(IDLE_S * scale)))


def run_short(gpu, phases):
    """Every input is made first, then the phases run back to back, each after a marker kernel."""
    iterations = 3
    plan = [("gemm_bf16_8192", make_gemm(gpu), {})]
    plan.append(("copy_d2d_4gib", make_copy(gpu), {}))
    for in_f, out_f in DECODE_SHAPES:
        plan.append((decode_name(in_f, out_f, 8), make_decode(gpu, in_f, out_f, 8),
                     {"m": 8, "in_features": in_f, "out_features": out_f}))
    marker, marker_name = make_marker(gpu)
    phases.doc["marker"] = marker_name
    phases.doc["marker_note"] = MARKER_NOTE
    gpu.sync()
    for order, (name, (fn, info), shape) in enumerate(plan):
        marker()

        def body(fn=fn, info=info):
            calls, gpu_s = gpu.run_n(fn, iterations)
            return {"iterations": calls, "gpu_seconds": gpu_s,
                    "work": {k: v for k, v in info.items() if isinstance(v, (int, float))}}

        phase = stamp_phase(gpu, name, body)
        phase["order"] = order
        if shape:
            phase["shape"] = shape
        phases.add(phase)
    marker()
    gpu.sync()
