"""A stand-in for nvidia-ml-py's pynvml, for the GPU proof kit's test without a GPU: one GPU at 1980 MHz."""

import os

NVML_CLOCK_SM = 1


def nvmlInit():  # noqa: N802 - NVML's spelling
    if os.environ.get("SOLSCOPE_FAKE_NO_NVML"):
        raise RuntimeError("NVML Shared Library Not Found (fake)")


def nvmlDeviceGetHandleByUUID(uuid):  # noqa: N802
    if not isinstance(uuid, bytes):
        raise TypeError("this version wants bytes")  # the kit's caller must try both spellings
    return ("handle", uuid)


def nvmlDeviceGetHandleByIndex(index):  # noqa: N802
    return ("handle", index)


def nvmlDeviceGetClockInfo(handle, clock):  # noqa: N802
    return 1980


def nvmlDeviceGetCount():  # noqa: N802
    return 1


def nvmlDeviceGetUUID(handle):  # noqa: N802
    return b"GPU-8a3c2b1e-0000-4000-8000-00000000fake"
