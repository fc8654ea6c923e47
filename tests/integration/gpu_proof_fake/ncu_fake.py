#!/usr/bin/env python3
"""A stand-in for Nsight Compute's ncu, for the GPU proof kit's test without a GPU.

`--version`; `--query-metrics` (a table of the metrics the kit asks for); and a profiling run: it runs the
application, then writes a `--csv --page raw` table to `--log-file` with one row per kernel the short workload
would launch: a setup kernel, then per phase of the application's `--phases` file a marker kernel and 3 rows of the
phase's kernel, then a last marker. It refuses `--clock-control` values other than `none`, and unknown metrics, as
the kit must never lock clocks and the real ncu fails the whole run on one unknown metric.
"""

import csv
import json
import os
import subprocess
import sys

KNOWN = ["dram__throughput", "gpu__time_duration", "lts__t_sectors", "sm__pipe_fma_cycles_active",
         "sm__pipe_tensor_cycles_active", "sm__pipe_tensor_op_gmma_cycles_active"]
KERNELS = {
    "gemm_bf16_8192": ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_fake_cublas",
                       {"sm__pipe_tensor_cycles_active": 85.5, "dram__throughput": 28.0, "lts__t_sectors": 39.0,
                        "sm__pipe_fma_cycles_active": 1.5, "sm__pipe_tensor_op_gmma_cycles_active": 85.0}),
    "copy_d2d_4gib": ("void at::native::vectorized_elementwise_kernel<4, at::native::neg_kernel_cuda>(int, float*)",
                      {"dram__throughput": 91.0, "lts__t_sectors": 46.0}),
    "decode": ("void gemv2T_kernel_val<int, int, __nv_bfloat16, float, 128, 16, 4, 4, false>(cublasGemvParams<float>)",
               {"dram__throughput": 77.0, "lts__t_sectors": 33.0, "sm__pipe_fma_cycles_active": 8.0}),
}
MARKER = "at::cuda::(anonymous namespace)::spin_kernel(long)"


def main(argv):
    if "--version" in argv:
        print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.0.0 (fake)")
        return 0
    if "--query-metrics" in argv:
        print("Device GH100 (fake)")
        print("Metric Name                     Metric Type   Metric Description")
        for m in KNOWN:
            print(f"{m:<40} Counter       fake {m}")
        return 0
    opts_with_value = {"--clock-control", "--target-processes", "--page", "--metrics", "--log-file", "-o"}
    opts = {}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] in opts_with_value:
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            opts[argv[i]] = True
            i += 1
    app = argv[i:]
    if opts.get("--clock-control") != "none":
        print("==ERROR== the GPU proof kit must pass --clock-control none", file=sys.stderr)
        return 9
    metrics = [m for m in opts.get("--metrics", "").split(",") if m]
    # SOLSCOPE_FAKE_NCU_REJECT: metrics the query lists but the run refuses (the kit then retries with fewer).
    refused = os.environ.get("SOLSCOPE_FAKE_NCU_REJECT", "").split(",")
    unknown = [m for m in metrics if m.split(".", 1)[0] not in KNOWN or m.split(".", 1)[0] in refused]
    if unknown:
        print(f"==ERROR== Failed to find metric {unknown[0]}", file=sys.stderr)
        return 1
    print("==PROF== Connected to process 4242", file=sys.stderr)
    rc = subprocess.call(app)
    phases_path = app[app.index("--phases") + 1] if "--phases" in app else None
    with open(phases_path, encoding="utf-8") as f:
        phases = json.load(f)["phases"]
    out = open(opts["--log-file"], "w", encoding="utf-8", newline="") if "--log-file" in opts else sys.stdout
    out.write("==PROF== Connected to process 4242 (python3)\n")
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Device", "CC"]
               + metrics)
    w.writerow([""] * 9 + ["%" if "pct" in m else "nsecond" for m in metrics])
    seq = [("void at::native::normal_kernel<float>(int)", {})]
    for p in sorted(phases, key=lambda p: p.get("order", 0)):
        seq.append((MARKER, {}))
        name, values = KERNELS["decode" if p["name"].startswith("decode") else p["name"]]
        seq.extend([(name, values)] * 3)
    seq.append((MARKER, {}))
    for n, (name, values) in enumerate(seq):
        vals = []
        for m in metrics:
            base = m.split(".", 1)[0]
            vals.append("1,234,567" if base == "gpu__time_duration" else f"{values.get(base, 0.0):.2f}")
        w.writerow([str(n), "4242", "python3", "127.0.0.1", name, "1", "7", "0", "9.0"] + vals)
    out.write("==PROF== Disconnected from process 4242\n")
    if out is not sys.stdout:
        out.close()
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
