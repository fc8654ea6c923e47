"""The kernels of the GPU proof kit's workload (scripts/gpu_workload.py): a BF16 GEMM, a device-to-device copy,
decode-shaped GEMMs, one-block kernels and the marker kernel of --short. Standard library only at import time."""

import math

from gpu_workload_device import log

GEMM_N = 8192
COPY_BYTES = 4 << 30  # 4 GiB, read once and written once per iteration: 8 GiB moved
DECODE_SHAPES = [(4096, 6144), (4096, 28672), (14336, 4096)]  # (in_features, out_features), Llama-3.1-8B
DECODE_TOKENS = [1, 8, 64, 256]
DECODE_MIN_WEIGHT_BYTES = 256 << 20  # rotate weight copies so that one pass reads more than any L2 holds
TINY_TARGET_LAUNCHES = 20000


# Kernels. Each maker allocates its inputs (random, never zeros) and returns (fn, info); info holds the work of one
# call. Callers drop the references and call Gpu.free() afterwards.


def make_gemm(gpu):
    t = gpu.torch
    a = t.randn(GEMM_N, GEMM_N, device=gpu.dev, dtype=t.bfloat16)
    b = t.randn(GEMM_N, GEMM_N, device=gpu.dev, dtype=t.bfloat16)
    c = t.empty(GEMM_N, GEMM_N, device=gpu.dev, dtype=t.bfloat16)

    def fn():
        t.matmul(a, b, out=c)

    return fn, {"flop": 2.0 * GEMM_N * GEMM_N * GEMM_N}


def make_copy(gpu):
    """A 4 GiB device-to-device copy as a kernel (an elementwise negation, 4 bytes read and 4 written per element):
    Tensor.copy_ between contiguous tensors is a cudaMemcpy, which neither the kernel log nor ncu sees as a kernel."""
    t = gpu.torch
    n = COPY_BYTES // 4
    src = t.rand(n, device=gpu.dev, dtype=t.float32)
    src.add_(0.5)
    dst = t.empty_like(src)

    def fn():
        t.neg(src, out=dst)

    return fn, {"bytes": 2.0 * COPY_BYTES}


def make_decode(gpu, in_f, out_f, m):
    t = gpu.torch
    f = t.nn.functional
    weight_bytes = in_f * out_f * 2
    copies = max(1, math.ceil(DECODE_MIN_WEIGHT_BYTES / weight_bytes))
    weights = [t.randn(out_f, in_f, device=gpu.dev, dtype=t.bfloat16) * 0.02 for _ in range(copies)]
    x = t.randn(m, in_f, device=gpu.dev, dtype=t.bfloat16)
    state = {"i": 0}

    def fn():
        i = state["i"]
        f.linear(x, weights[i])
        state["i"] = (i + 1) % copies

    return fn, {"flop": 2.0 * m * in_f * out_f, "weight_bytes": float(weight_bytes), "weight_copies": copies}


def make_tiny(gpu, target_launch_s):
    """One-block kernels. torch.cuda._sleep(cycles) launches one thread that spins `cycles` SM clocks: the GPU is
    busy (classic utilization near 100 %) while one SM of many is active and no pipe works. Its length is set so that
    TINY_TARGET_LAUNCHES fill the phase, which keeps the kernel log small. Without _sleep, x.add_(1) on a
    1-element tensor (launch-bound, far more launches)."""
    t = gpu.torch
    sleep = getattr(t.cuda, "_sleep", None)
    if sleep is not None:
        try:
            cycles = 20000
            sleep(cycles)  # first launch loads the module
            gpu.sync()
            per = gpu.seconds_per_call(lambda: sleep(cycles), 50)
            cycles = int(min(max(cycles * target_launch_s / per, 1000), 2e9))
            per = gpu.seconds_per_call(lambda: sleep(cycles), 20)
            return (lambda: sleep(cycles)), {"kernel": "torch.cuda._sleep", "cycles_per_launch": cycles,
                                               "seconds_per_launch": per}
        except Exception as err:  # noqa: BLE001 - any failure: fall back to add_
            log(f"torch.cuda._sleep unusable ({err}); tiny kernels are x.add_(1)")
    x = t.rand(1, device=gpu.dev, dtype=t.float32)

    def fn():
        x.add_(1)

    return fn, {"kernel": "x.add_(1) on 1 element"}


MARKER_NOTE = "a marker kernel runs before each phase: torch.cuda._sleep (spin_kernel), else fill_ on an int16 tensor"


def make_marker(gpu):
    t = gpu.torch
    sleep = getattr(t.cuda, "_sleep", None)
    if sleep is not None:
        return (lambda: sleep(1000)), "spin_kernel"
    m = t.empty(1, device=gpu.dev, dtype=t.int16)
    return (lambda: m.fill_(7)), "FillFunctor<short>"
