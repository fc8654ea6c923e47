#!/usr/bin/env python3
"""A GPU workload of known phases for the GPU proof kit (scripts/gpu-proof.sh, docs/gpu-proof.md).

Modes (PyTorch with CUDA; pynvml from nvidia-ml-py is optional, for SM clocks):
  gpu_workload.py --phases FILE [--seconds-scale F]
      the full run: idle 2 s; BF16 GEMM 8192^3 4 s; decode-shaped GEMMs (Llama-3.1-8B layer shapes 4096->6144,
      4096->28672, 14336->4096 at M = 1, 8, 64, 256 tokens, as torch.nn.functional.linear does them) 2 s each;
      a device-to-device copy of 4 GiB 3 s; one-block kernels back to back 3 s (about 20,000 launches); idle 2 s.
      FILE gets each phase's window (CLOCK_REALTIME ns, taken after torch.cuda.synchronize() at both ends), what
      solscope must show in it and what it achieved (format "solscope-phases-1", read by
      `solscope report TRACE --phases FILE`). FILE is rewritten after every phase, so a run cut short keeps the
      phases it finished.
  gpu_workload.py --short --phases FILE
      for Nsight Compute: only the GEMM, the copy and the M = 8 decode GEMMs, 3 iterations each, no idle and no
      time loops. A marker kernel runs before each phase, so that ncu's kernel rows can be split into phases
      (scripts/gpu_proof_ncu.py).
  gpu_workload.py --overhead --solscope PATH --out FILE
      in this one process, 3 repetitions of [no solscope, `solscope record` at 100 ms, 10 ms, 1 ms]: the GEMM's
      TFLOP/s and the copy's GB/s for about 1 s each (CUDA events), the SM clock sampled meanwhile, and the ratios
      to the unsampled runs (median of the repetitions).

Exit codes: 0 done; 1 a failure (message on stderr); 2 bad command line; 3 no CUDA device (or no torch).
Standard library only at import time (torch is imported in main), so `python3 -m py_compile` works anywhere.
"""

import argparse
import math
import os
import signal
import sys

# The parts of this script are the gpu_workload_*.py modules beside it (also in an unpacked bundle's
# share/solscope/scripts/), whatever the working directory.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from gpu_workload_device import Gpu, log  # noqa: E402 - after the path
from gpu_workload_overhead import run_overhead  # noqa: E402
from gpu_workload_phases import PhaseFile, run_full, run_short  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--short", action="store_true", help="ncu mode: 3 iterations per kernel, no idle phases")
    mode.add_argument("--overhead", action="store_true", help="throughput with and without solscope record")
    p.add_argument("--phases", help="write the phase file (solscope-phases-1) here")
    p.add_argument("--seconds-scale", type=float, default=1.0, help="scale every phase length (default 1.0)")
    p.add_argument("--solscope", help="--overhead: the solscope binary")
    p.add_argument("--out", help="--overhead: the JSON result file")
    p.add_argument("--repetitions", type=int, default=3, help="--overhead: repetitions (default 3)")
    p.add_argument("--measure-seconds", type=float, default=1.0, help="--overhead: seconds per measurement")
    args = p.parse_args(argv)
    if not math.isfinite(args.seconds_scale) or not 0.01 <= args.seconds_scale <= 100:
        p.error("--seconds-scale must be between 0.01 and 100")
    if args.overhead and (not args.solscope or not args.out):
        p.error("--overhead needs --solscope PATH and --out FILE")
    if not args.overhead and not args.phases and not args.short:
        p.error("give --phases FILE (full run), --short or --overhead")
    if not 1 <= args.repetitions <= 20 or not 0.1 <= args.measure_seconds <= 30:
        p.error("--repetitions 1-20, --measure-seconds 0.1-30")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # SIGTERM (the kit's timeout) unwinds like Ctrl-C, so that a recorder started by --overhead is stopped.
    signal.signal(signal.SIGTERM, lambda signo, frame: sys.exit(128 + signo))
    try:
        import torch  # noqa: PLC0415 - torch only where it runs, so py_compile works without it
    except ImportError as err:
        log(f"PyTorch is not installed for {sys.executable}: {err}")
        return 3
    if not torch.cuda.is_available():
        log("torch.cuda.is_available() is False: no CUDA device for PyTorch")
        return 3
    torch.manual_seed(1234)
    torch.backends.cuda.matmul.allow_tf32 = False
    gpu = Gpu(torch)
    torch.cuda.set_device(gpu.dev)
    if args.overhead:
        run_overhead(gpu, args.solscope, args.out, args.repetitions, args.measure_seconds)
        return 0
    phases = PhaseFile(args.phases, torch, args.short)
    if args.short:
        run_short(gpu, phases)
    else:
        phases.doc["seconds_scale"] = args.seconds_scale
        run_full(gpu, phases, args.seconds_scale)
    phases.doc["complete"] = True
    phases.write()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)
