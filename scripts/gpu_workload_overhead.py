"""The overhead mode of the GPU proof kit's workload (scripts/gpu_workload.py --overhead): the GEMM's TFLOP/s and
the copy's GB/s with no solscope and under `solscope record` at 100 ms, 10 ms and 1 ms, and the SM clock meanwhile.
Standard library only at import time."""

import json
import os
import signal
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time

from gpu_workload_device import gpu_info, log, software_info
from gpu_workload_kernels import make_copy, make_gemm


class ClockSampler:
    """Samples the SM clock (MHz) through pynvml every 20 ms while active; no pynvml: no figures."""

    def __init__(self, uuid):
        self.handle = None
        self.error = None
        self.nvml = None
        try:
            import pynvml  # noqa: PLC0415 - optional
            pynvml.nvmlInit()
            self.nvml = pynvml
            handle = None
            for key in (uuid, uuid.encode() if uuid else None):
                if handle is None and key:
                    try:
                        handle = pynvml.nvmlDeviceGetHandleByUUID(key)
                    except Exception:  # noqa: BLE001 - str or bytes by version; else index 0
                        handle = None
            self.handle = handle if handle is not None else pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception as err:  # noqa: BLE001 - optional
            self.error = f"pynvml unavailable: {err}"
        self.values = []
        self._stop = threading.Event()
        self._thread = None

    def read(self):
        if self.handle is None:
            return None
        try:
            return float(self.nvml.nvmlDeviceGetClockInfo(self.handle, self.nvml.NVML_CLOCK_SM))
        except Exception as err:  # noqa: BLE001
            self.error = f"nvmlDeviceGetClockInfo: {err}"
            return None

    def start(self):
        self.values = []
        self._stop.clear()
        if self.handle is None:
            return

        def loop():
            while not self._stop.wait(0.02):
                v = self.read()
                if v is not None:
                    self.values.append(v)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        return statistics.mean(self.values) if self.values else None


def trace_samples(path):
    if not os.path.exists(path):
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return int(con.execute("SELECT COUNT(*) FROM samples").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return None


def start_recorder(solscope, interval, trace, logf, reaper):
    cmd = [solscope, "--interval", interval, "record", "-o", trace]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)
    reaper.proc = proc
    t0 = time.monotonic()
    # At least 1 s, until the first sample is in the file (at most 5 s).
    while time.monotonic() - t0 < 5.0:
        time.sleep(0.2)
        if proc.poll() is not None:
            break
        if time.monotonic() - t0 >= 1.0 and (trace_samples(trace) or 0) > 0:
            break
    return proc, cmd


def stop_recorder(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
            return "killed after SIGINT left it running 15 s"
    return proc.returncode


class Reaper:
    """Stops a recorder left running when the measurement between start and stop raises (or SIGTERM ends us)."""

    def __init__(self):
        self.proc = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            stop_recorder(self.proc)
        return False


def run_overhead(gpu, solscope, out_path, repetitions, seconds):
    info = gpu_info(gpu.torch)
    clocks = ClockSampler(info.get("uuid"))
    gemm_fn, gemm_info = make_gemm(gpu)
    copy_fn, copy_info = make_copy(gpu)
    gemm_fn()
    copy_fn()
    gemm_per = gpu.seconds_per_call(gemm_fn, 3)
    copy_per = gpu.seconds_per_call(copy_fn, 2)
    intervals = [None, "100ms", "10ms", "1ms"]
    runs = []
    tmp = tempfile.mkdtemp(prefix="solscope-overhead-")
    doc = {"format": "solscope-overhead-1", "gpu": info, "software": software_info(gpu.torch),
           "solscope": solscope, "repetitions": repetitions, "seconds_per_measurement": seconds,
           "order": "per repetition: off, 100ms, 10ms, 1ms", "clock_note": clocks.error, "runs": runs}

    def write():
        with open(out_path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(out_path + ".tmp", out_path)

    try:
        for rep in range(repetitions):
            for interval in intervals:
                run = {"repetition": rep, "interval": interval or "off"}
                proc = None
                logpath = os.path.join(tmp, f"record-{rep}-{interval}.log")
                trace = os.path.join(tmp, f"record-{rep}-{interval}.sqlite")
                with open(logpath, "wb") as logf, Reaper() as reaper:
                    if interval:
                        try:
                            proc, cmd = start_recorder(solscope, interval, trace, logf, reaper)
                            run["recorder_command"] = " ".join(cmd)
                            if proc.poll() is not None:
                                run["recorder_error"] = f"recorder exited {proc.returncode} before the measurement"
                        except OSError as err:
                            run["recorder_error"] = f"cannot start {solscope}: {err}"
                    clocks.start()
                    calls, gpu_s = gpu.run_for(gemm_fn, seconds, gemm_per)
                    run["gemm_sm_clock_mhz"] = clocks.stop()
                    run["gemm_tflop_per_s"] = gemm_info["flop"] * calls / gpu_s / 1e12
                    clocks.start()
                    calls, gpu_s = gpu.run_for(copy_fn, seconds, copy_per)
                    run["copy_sm_clock_mhz"] = clocks.stop()
                    run["copy_gb_per_s"] = copy_info["bytes"] * calls / gpu_s / 1e9
                    if proc is not None:
                        run["recorder_exit"] = stop_recorder(proc)
                        run["recorder_samples"] = trace_samples(trace)
                with open(logpath, "rb") as logf:
                    text = logf.read().decode("utf-8", "replace").strip()
                if text:
                    run["recorder_log_tail"] = text[-600:]
                runs.append(run)
                log(f"overhead rep {rep} {run['interval']}: GEMM {run['gemm_tflop_per_s']:.1f} TFLOP/s, "
                    f"copy {run['copy_gb_per_s']:.0f} GB/s, recorder {run.get('recorder_exit', '-')}, "
                    f"samples {run.get('recorder_samples', '-')}")
                write()
    finally:
        for name in os.listdir(tmp):
            try:
                os.unlink(os.path.join(tmp, name))
            except OSError:
                pass
        try:
            os.rmdir(tmp)
        except OSError:
            pass
    doc["summary"] = summarize_overhead(runs, intervals)
    write()


def summarize_overhead(runs, intervals):
    def median(key, interval):
        vals = [r[key] for r in runs if r["interval"] == interval and isinstance(r.get(key), (int, float))]
        return statistics.median(vals) if vals else None

    base_gemm = median("gemm_tflop_per_s", "off")
    base_copy = median("copy_gb_per_s", "off")
    out = []
    for interval in intervals:
        name = interval or "off"
        g, c = median("gemm_tflop_per_s", name), median("copy_gb_per_s", name)
        out.append({"interval": name, "gemm_tflop_per_s": g, "copy_gb_per_s": c,
                    "gemm_ratio": g / base_gemm if g and base_gemm else None,
                    "copy_ratio": c / base_copy if c and base_copy else None,
                    "gemm_sm_clock_mhz": median("gemm_sm_clock_mhz", name),
                    "copy_sm_clock_mhz": median("copy_sm_clock_mhz", name),
                    "recorder_samples": [r.get("recorder_samples") for r in runs if r["interval"] == name]
                    if interval else None})
    return out
