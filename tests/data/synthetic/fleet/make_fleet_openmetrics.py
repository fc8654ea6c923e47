#!/usr/bin/env python3
"""SYNTHETIC fleet for the fleet view's integration test: OpenMetrics text of solscope's and dcgm-exporter's
per-GPU series, one sample every 15 s, for `promtool tsdb create-blocks-from openmetrics`. Nothing here was
measured on a GPU: the values come from fixed formulas below.

Hosts (all with cluster="a", except the decoy and sol-w):
  sol-a   solscope series (solscope_compute_sol_ratio{pipe}, solscope_memory_sol_ratio{path},
          solscope_gpu_utilization_ratio; label `hostname`), GPUs 0-3
  dgx-b   dcgm-exporter series (DCGM_FI_PROF_PIPE_{TENSOR,FP64,FP32,FP16}_ACTIVE, DCGM_FI_PROF_DRAM_ACTIVE,
          DCGM_FI_DEV_GPU_UTIL; label `Hostname`), GPUs 0-3 of one job (namespace ml, pod train-42);
          GPU 2 is the straggler (its busiest pipe stays far below the others')
  dgx-c   dcgm-exporter series, GPUs 0-1, no job; GPU 1 is busy-idle (utilization 95 %, pipes about 5 %) on two
          steps of three
  other-x dcgm-exporter series with cluster="b": left out by --selector '{cluster="a"}'
  sol-w   cluster="w", for `--by namespace|pod|job`: solscope series, GPUs 0-3, each held by one workload for the
          whole span (the per-GPU series carry its `namespace`, `pod`, `container` or `hpc_job`), and the
          counter solscope_workload_gpu_seconds_total{..., sharing, bound}: 15 s per step in the step's bound
          class (`idle` below 5 % utilization). GPU 0 team-a/a-1 busy; GPU 1 team-a/a-2 busy-idle (utilization
          95 %, Compute SOL 6 %) on two steps of three; GPU 2 team-b/b-1 idle on one step of four; GPU 3 Slurm job
          slurm-77 (no namespace) busy-idle on two steps of five
  sol-t1, sol-t2   cluster="t", for the iteration stragglers (docs/fleet.md "Iteration stragglers"): solscope
          series of a training job (label training_job="llm-7"; one pod per host, ml/llm-7-0 and ml/llm-7-1):
          GPUs 0-1 of sol-t1 and 0-2 of sol-t2. solscope_iteration_seconds (the same on every rank: they wait for
          one another), solscope_iteration_compute_ratio (the share the SMs work: about 0.8; about 0.864 on sol-t2
          GPU 1, the straggler, whose compute = iteration x compute ratio is about 8 % longer) and
          solscope_iteration_exposed_communication_ratio (about 0.15; about 0.086 on the straggler: every rank
          idles about 5 % of its iteration, so 1 - exposed is not the compute) while periodic: sol-t1 GPU 1 only
          on the last 81 steps, sol-t2 GPU 2 never (no iteration series)

Usage: make_fleet_openmetrics.py --end UNIX_SECONDS -o FILE.om   (also importable: series(end) gives the values)
"""

import argparse

STEP_S = 15
SPAN_S = 3600 + 600  # the 1 h window and 10 min before it
SOL_GPUS = 4
MODEL = "NVIDIA H100 80GB HBM3"


def times(end):
    return [end - SPAN_S + STEP_S * i for i in range(SPAN_S // STEP_S + 1)]


def wave(i, gpu, period):
    """A repeatable value in [0, 1): a saw tooth over the step index."""
    return ((i * 7 + gpu * 3) % period) / period


def series(end):
    """{(family, labels tuple): [(t, value), ...]} in the order written."""
    out = {}
    ts = times(end)

    def put(family, labels, values):
        out[(family, tuple(labels))] = list(zip(ts, values))

    def put_from(first, family, labels, values):
        """From step index `first` on (a series that starts late)."""
        out[(family, tuple(labels))] = list(zip(ts[first:], values))

    for gpu in range(SOL_GPUS):
        base = [("cluster", "a"), ("gpu", str(gpu)), ("UUID", f"GPU-5a00000{gpu}"), ("modelName", MODEL),
                ("hostname", "sol-a")]
        n = len(ts)
        put("solscope_compute_sol_ratio", base + [("pipe", "tensor")],
            [round(0.30 + 0.5 * wave(i, gpu, 11), 4) for i in range(n)])
        put("solscope_memory_sol_ratio", base + [("path", "dram")],
            [round(0.20 + 0.3 * wave(i, gpu, 13), 4) for i in range(n)])
        put("solscope_gpu_utilization_ratio", base, [round(0.70 + 0.3 * wave(i, gpu, 7), 4) for i in range(n)])

    def dcgm(host, gpu, cluster, job, pipes, dram, util):
        base = [("cluster", cluster), ("gpu", str(gpu)), ("UUID", f"GPU-{host}-{gpu}"), ("modelName", MODEL),
                ("Hostname", host)]
        if job:
            base += [("namespace", job[0]), ("pod", job[1])]
        for name, values in pipes.items():
            put(f"DCGM_FI_PROF_PIPE_{name}_ACTIVE", base, values)
        put("DCGM_FI_PROF_DRAM_ACTIVE", base, dram)
        put("DCGM_FI_DEV_GPU_UTIL", base, util)

    n = len(ts)
    for gpu in range(4):
        scale = 0.15 if gpu == 2 else 1.0  # the straggler
        dcgm("dgx-b", gpu, "a", ("ml", "train-42"),
             {"TENSOR": [round(scale * (0.40 + 0.4 * wave(i, gpu, 9)), 4) for i in range(n)],
              "FP64": [0.0] * n,
              "FP32": [round(scale * (0.30 + 0.6 * wave(i, gpu + 1, 5)), 4) for i in range(n)],
              "FP16": [round(0.01 * (i % 4), 4) for i in range(n)]},
             [round(0.35 + 0.2 * wave(i, gpu, 6), 4) for i in range(n)],
             [float(60 + (i * 13 + gpu) % 41) for i in range(n)])
    for gpu in range(2):
        idle = gpu == 1
        dcgm("dgx-c", gpu, "a", None,
             {"TENSOR": [round((0.04 if idle and i % 3 else 0.5) + 0.01 * (i % 2), 4) for i in range(n)],
              "FP64": [round(0.02 if idle else 0.1, 4)] * n,
              "FP32": [round(0.05 if idle and i % 3 else 0.3, 4) for i in range(n)],
              "FP16": [0.0] * n},
             [round(0.10 + 0.1 * wave(i, gpu, 4), 4) for i in range(n)],
             [95.0 if idle else float(40 + i % 50) for i in range(n)])
    dcgm("other-x", 0, "b", None, {"TENSOR": [0.9] * n, "FP64": [0.0] * n, "FP32": [0.0] * n, "FP16": [0.0] * n},
         [0.5] * n, [99.0] * n)
    workloads(put, n)
    training(put, put_from, n)
    return out


WORKLOAD_GPUS = (  # sol-w's GPUs: (workload labels, step index -> (utilization, Compute SOL, bound class))
    ((("namespace", "team-a"), ("pod", "a-1"), ("container", "main")),
     lambda i: (0.85 + 0.1 * wave(i, 0, 5), 0.55 + 0.3 * wave(i, 0, 9), "compute")),
    ((("namespace", "team-a"), ("pod", "a-2"), ("container", "main")),
     lambda i: (0.95, 0.06, "latency") if i % 3 else (0.85, 0.45, "compute")),
    ((("namespace", "team-b"), ("pod", "b-1"), ("container", "worker")),
     lambda i: (0.02, 0.01, "idle") if i % 4 == 0 else (0.6 + 0.3 * wave(i, 2, 9), 0.25 + 0.2 * wave(i, 2, 6),
                                                        "memory")),
    ((("hpc_job", "slurm-77"),),
     lambda i: (0.97, 0.1, "latency") if i % 5 < 2 else (0.9, 0.5, "compute")),
)


def workloads(put, n):
    """sol-w's labelled per-GPU series and its GPU-seconds counters (cluster="w")."""
    for gpu, (workload, step) in enumerate(WORKLOAD_GPUS):
        gpu_labels = [("cluster", "w"), ("gpu", str(gpu)), ("UUID", f"GPU-5w00000{gpu}"), ("modelName", MODEL),
                      ("hostname", "sol-w")]
        values = [step(i) for i in range(n)]
        base = gpu_labels + list(workload)
        put("solscope_compute_sol_ratio", base + [("pipe", "tensor")], [round(v[1], 4) for v in values])
        put("solscope_memory_sol_ratio", base + [("path", "dram")], [0.3] * n)
        put("solscope_gpu_utilization_ratio", base, [round(v[0], 4) for v in values])
        for bound in sorted({v[2] for v in values}):
            seconds, total = [], 0.0
            for i, v in enumerate(values):
                total += STEP_S if i and v[2] == bound else 0.0  # the step (t[i-1], t[i]] counts in its class
                seconds.append(total)
            put("solscope_workload_gpu_seconds_total",
                base + [("sharing", "exclusive"), ("bound", bound)], seconds)


TRAINING_GPUS = (("sol-t1", 0), ("sol-t1", 1), ("sol-t2", 0), ("sol-t2", 1), ("sol-t2", 2))
TRAINING_STRAGGLER = ("sol-t2", 1)
TRAINING_FIRST_STEP = {("sol-t1", 1): 200, ("sol-t2", 2): None}  # None: never periodic; absent: from step 0


def training(put, put_from, n):
    """sol-t1 and sol-t2: a training job's solscope series and its iteration series (cluster="t")."""
    for host, gpu in TRAINING_GPUS:
        base = [("cluster", "t"), ("gpu", str(gpu)), ("UUID", f"GPU-{host}-{gpu}"), ("modelName", MODEL),
                ("hostname", host), ("namespace", "ml"), ("pod", f"llm-7-{int(host[-1]) - 1}"),
                ("training_job", "llm-7")]
        put("solscope_compute_sol_ratio", base + [("pipe", "tensor")], [0.5] * n)
        put("solscope_memory_sol_ratio", base + [("path", "dram")], [0.3] * n)
        put("solscope_gpu_utilization_ratio", base, [0.9] * n)
        first = TRAINING_FIRST_STEP.get((host, gpu), 0)
        if first is None:
            continue
        straggler = (host, gpu) == TRAINING_STRAGGLER
        compute, exposed = (0.864, 0.086) if straggler else (0.8, 0.15)
        put_from(first, "solscope_iteration_seconds", base,
                 [round(0.125 + 0.002 * wave(i, 0, 5), 4) for i in range(first, n)])
        put_from(first, "solscope_iteration_compute_ratio", base,
                 [round(compute + 0.01 * wave(i, gpu + 1, 4), 4) for i in range(first, n)])
        put_from(first, "solscope_iteration_exposed_communication_ratio", base,
                 [round(exposed + 0.01 * wave(i, gpu, 4), 4) for i in range(first, n)])


def fmt_labels(labels):
    return ",".join(f'{k}="{v}"' for k, v in labels)


def write(path, end):
    data = series(end)
    families = []
    for family, _ in data:
        if family not in families:
            families.append(family)
    with open(path, "w", encoding="ascii") as f:
        for family in families:
            if family.endswith("_total"):  # OpenMetrics names a counter's family without the suffix
                f.write(f"# HELP {family[:-6]} SYNTHETIC test series\n# TYPE {family[:-6]} counter\n")
            else:
                f.write(f"# HELP {family} SYNTHETIC test series\n# TYPE {family} gauge\n")
            for (fam, labels), points in data.items():
                if fam != family:
                    continue
                for t, v in points:
                    f.write(f"{family}{{{fmt_labels(labels)}}} {v!r} {t}\n")
        f.write("# EOF\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--end", type=int, required=True, help="Unix seconds of the last sample (a multiple of 15)")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    write(args.output, args.end)


if __name__ == "__main__":
    main()
