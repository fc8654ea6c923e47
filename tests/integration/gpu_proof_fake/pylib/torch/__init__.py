"""A stand-in for PyTorch with CUDA, for the GPU proof kit's test without a GPU (tests/integration/gpu_proof_test.py).

Only the calls scripts/gpu_workload.py makes exist. No work is done: kernels cost a little wall time, events are
wall-clock stamps. Never on a real user's PYTHONPATH: the test's fake python wrapper adds it.
"""

import os
import time
import types

__version__ = "0.0+fake"
version = types.SimpleNamespace(cuda="13.0")

bfloat16 = "bfloat16"
float32 = "float32"
int16 = "int16"
_launches = {"count": 0}


def _kernel(seconds=2e-6):
    _launches["count"] += 1
    if seconds > 1e-5:
        time.sleep(seconds)


class device:  # noqa: N801 - torch's spelling
    def __init__(self, kind, index=0):
        self.type = kind
        self.index = index


class Tensor:
    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    def __mul__(self, other):
        _kernel()
        return Tensor(self.shape, self.dtype)

    def add_(self, other):
        _kernel()
        return self

    def fill_(self, value):
        _kernel()
        return self


def manual_seed(seed):
    return seed


def _shape(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)


def randn(*shape, device=None, dtype=None):
    _kernel()
    return Tensor(_shape(shape), dtype)


def rand(*shape, device=None, dtype=None):
    _kernel()
    return Tensor(_shape(shape), dtype)


def empty(*shape, device=None, dtype=None):
    return Tensor(_shape(shape), dtype)


def empty_like(t):
    return Tensor(t.shape, t.dtype)


def matmul(a, b, out=None):
    _kernel(2e-4)
    return out


def neg(a, out=None):
    _kernel(2e-4)
    return out


def _linear(x, w, bias=None):
    _kernel(2e-5)
    return Tensor((x.shape[0], w.shape[0]), x.dtype)


nn = types.SimpleNamespace(functional=types.SimpleNamespace(linear=_linear))


class _Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return max((end.t - self.t) * 1000.0, 1e-3)


class _Props:
    name = "NVIDIA H100 80GB HBM3 (fake)"
    uuid = os.environ.get("SOLSCOPE_FAKE_TORCH_UUID", "8a3c2b1e-0000-4000-8000-00000000fake")
    multi_processor_count = 132
    total_memory = 85 * 10**9
    major = 9
    minor = 0


def _sleep(cycles):
    _kernel(cycles / 2e9)


cuda = types.SimpleNamespace(
    is_available=lambda: True,
    synchronize=lambda dev=None: None,
    Event=_Event,
    empty_cache=lambda: None,
    set_device=lambda dev: None,
    get_device_properties=lambda index: _Props(),
    get_device_name=lambda index=0: _Props.name,
    _sleep=_sleep,
)
backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)))
