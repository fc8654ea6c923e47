"""The GPU of the GPU proof kit's workload (scripts/gpu_workload.py): the Gpu helper for timed loops, and what the
phase and overhead files say about the GPU and the software. Standard library only at import time."""

import platform
import sys
import time

CHUNK_SECONDS = 0.02  # GPU work queued per chunk in the timed loops; two chunks are in flight at most


def log(msg):
    print(f"gpu_workload: {msg}", file=sys.stderr, flush=True)


class Gpu:
    """The torch module and device 0, with helpers for the timed loops."""

    def __init__(self, torch):
        self.torch = torch
        self.dev = torch.device("cuda", 0)

    def sync(self):
        self.torch.cuda.synchronize(self.dev)

    def event(self):
        return self.torch.cuda.Event(enable_timing=True)

    def free(self):
        self.sync()
        self.torch.cuda.empty_cache()

    def seconds_per_call(self, fn, calls):
        """Wall seconds of one call, measured over `calls` calls after a sync (the GPU was warmed up before)."""
        self.sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        self.sync()
        return max((time.perf_counter() - t0) / calls, 1e-7)

    def run_for(self, fn, seconds, per_call_s):
        """Calls fn back to back for `seconds` of wall time and returns (calls, GPU seconds by CUDA events).

        Work goes in chunks of about CHUNK_SECONDS; at most two chunks are queued, so the GPU never idles between
        chunks and the loop overshoots its time by one chunk at most."""
        chunk = int(min(max(CHUNK_SECONDS / per_call_s, 1), 100000))
        start, end = self.event(), self.event()
        pending = []
        calls = 0
        deadline = time.monotonic() + seconds
        start.record()
        while True:
            for _ in range(chunk):
                fn()
            calls += chunk
            ev = self.torch.cuda.Event()
            ev.record()
            pending.append(ev)
            if len(pending) > 2:
                pending.pop(0).synchronize()
            if time.monotonic() >= deadline:
                break
        end.record()
        self.sync()
        return calls, start.elapsed_time(end) / 1000.0

    def run_n(self, fn, calls):
        start, end = self.event(), self.event()
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        self.sync()
        return calls, start.elapsed_time(end) / 1000.0



def gpu_info(torch):
    info = {"uuid": None, "name": None, "cuda_device": 0}
    try:
        props = torch.cuda.get_device_properties(0)
        info["name"] = props.name
        uuid = getattr(props, "uuid", None)
        if uuid is not None:
            info["uuid"] = normal_uuid(str(uuid))
            info["uuid_source"] = "torch"
        info["sm_count"] = getattr(props, "multi_processor_count", None)
        info["memory_total_bytes"] = getattr(props, "total_memory", None)
        info["compute_capability"] = f"{props.major}.{props.minor}"
    except Exception as err:  # noqa: BLE001 - informational only
        log(f"device properties unavailable: {err}")
    nvml = nvml_uuids()
    if nvml and info["uuid"] not in nvml and len(nvml) == 1:
        # The trace names GPUs by NVML's UUID; with one GPU there is no doubt which one torch used.
        info["uuid_source"] = f"nvml (the only GPU; torch said {info['uuid']})"
        info["uuid"] = nvml[0]
    return info


def normal_uuid(text):
    """NVML's spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx in lower case."""
    text = text.strip()
    prefix = "GPU-"
    for p in ("GPU-", "MIG-"):
        if text.upper().startswith(p):
            prefix, text = p, text[len(p):]
    hexdigits = text.replace("-", "").lower()
    if len(hexdigits) == 32 and all(c in "0123456789abcdef" for c in hexdigits):
        h = hexdigits
        text = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return prefix + text


def nvml_uuids():
    """The UUIDs NVML lists (pynvml), or [] without it."""
    try:
        import pynvml  # noqa: PLC0415 - optional
        pynvml.nvmlInit()
        out = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            u = pynvml.nvmlDeviceGetUUID(pynvml.nvmlDeviceGetHandleByIndex(i))
            out.append(u.decode() if isinstance(u, bytes) else str(u))
        return out
    except Exception:  # noqa: BLE001 - optional
        return []


def software_info(torch):
    return {"torch": getattr(torch, "__version__", None), "cuda": getattr(torch.version, "cuda", None),
            "python": platform.python_version()}
