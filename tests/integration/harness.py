"""Shared helpers of the integration tests and HTTP benchmarks (Python standard library only).

Starts `solscope serve` on an ephemeral loopback port, reads the port from its stderr line
"solscope: listening on http://127.0.0.1:PORT", fetches URLs, parses the Prometheus text format, and stops the
daemon with SIGTERM (it must exit 0). A test that lacks a tool exits with SKIP (77, ctest SKIP_RETURN_CODE);
every other problem fails loudly with exit status 1 and says what differed.
"""

import http.client
import json
import math
import os
import re
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

SKIP = 77
LISTEN_RE = re.compile(r"listening on (https?)://([0-9.]+):([0-9]+)")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class TestFailure(Exception):
    """A check that failed: the message says what was expected and what came."""


def fail(message):
    raise TestFailure(message)


def check(condition, message):
    if not condition:
        fail(message)


def skip(message):
    print(f"SKIP: {message}", flush=True)
    sys.exit(SKIP)


def run_main(main):
    """Runs `main()`; a TestFailure prints FAIL and exits 1."""
    try:
        main()
    except TestFailure as err:
        print(f"FAIL: {err}", file=sys.stderr, flush=True)
        sys.exit(1)
    print("PASS", flush=True)


def require_tool(path_or_name):
    """The absolute path of a tool, or SKIP when it is not installed."""
    if os.path.isabs(path_or_name):
        if os.access(path_or_name, os.X_OK):
            return path_or_name
        skip(f"{path_or_name} is not installed (scripts/setup.sh installs it)")
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, path_or_name)
        if os.access(p, os.X_OK):
            return p
    skip(f"{path_or_name} is not installed (scripts/setup.sh installs it)")
    return None


def locale_available(name):
    """True when `locale -a` lists `name` (de_DE.UTF-8 is listed as de_DE.utf8)."""
    want = name.lower().replace("utf-8", "utf8")
    try:
        out = subprocess.run(["locale", "-a"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return False
    return any(line.strip().lower() == want for line in out.splitlines())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_trace(path, *args):
    """Writes a SYNTHETIC trace with the one generator, solscope_make_synthetic_trace ($SOLSCOPE_MAKE_TRACE, set
    by ctest; tests/data/synthetic/profiles.hpp), and returns `path`. `args` are its options (--devices,
    --hz, --seconds, --profile phases|constant|demo|random, --start-ns, --attainable-gpu)."""
    tool = os.environ.get("SOLSCOPE_MAKE_TRACE", "")
    check(os.path.isfile(tool), "set SOLSCOPE_MAKE_TRACE to build/<preset>/tests/solscope_make_synthetic_trace")
    cmd = [tool, "-o", path, "--force", *[str(a) for a in args]]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    check(res.returncode == 0, f"solscope_make_synthetic_trace failed: {res.stderr}")
    return path


def trace_load(path, device):
    """The raw counters of `device`'s first sample in a trace, by catalog metric name (percent, MHz, W...)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    names = [name for (name,) in db.execute("SELECT name FROM metrics ORDER BY id")]
    (raw,) = db.execute("SELECT c.raw FROM samples AS s JOIN sample_counters AS c ON c.sample_id = s.id "
                        "WHERE s.device = ? ORDER BY s.id LIMIT 1", (device,)).fetchone()
    db.close()
    return dict(zip(names, struct.unpack(f"<{len(names)}d", raw)))


def serve_help(solscope):
    res = subprocess.run([solscope, "serve", "--help"], capture_output=True, text=True, check=False)
    return res.stdout + res.stderr


class Daemon:
    """One `solscope serve` process on 127.0.0.1:<ephemeral>."""

    def __init__(self, solscope, args, env=None, startup_s=30.0, log_path=None):
        self.cmd = [solscope, "serve", "--listen", "127.0.0.1:0", *args]
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.stderr_lines = []
        self.log = open(log_path, "w", encoding="utf-8") if log_path else None
        self.started_at = time.time()
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=full_env,
                                     text=True, errors="replace")
        self._listening = threading.Event()
        self.host = None
        self.port = None
        self.url = None
        threading.Thread(target=self._read_stderr, daemon=True).start()
        if not self._listening.wait(startup_s):
            self.kill()
            fail(f"`{' '.join(self.cmd)}` printed no 'listening on' line within {startup_s:.0f} s; stderr:\n"
                 + "".join(self.stderr_lines[-30:]))
        self.listening_at = time.time()

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line)
            if self.log:
                self.log.write(line)
                self.log.flush()
            m = LISTEN_RE.search(line)
            if m and not self._listening.is_set():
                self.host, self.port = m.group(2), int(m.group(3))
                self.url = f"{m.group(1)}://{self.host}:{self.port}"
                self._listening.set()

    def get(self, path, headers=None, timeout=10.0):
        """(status, headers dict lower-cased, body bytes) of GET path."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers=headers or {})
            res = conn.getresponse()
            return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
        finally:
            conn.close()

    def get_json(self, path):
        status, _, body = self.get(path)
        check(status == 200, f"GET {path}: HTTP {status}: {body[:300]!r}")
        try:
            return json.loads(body)
        except ValueError as err:
            fail(f"GET {path}: not JSON ({err}): {body[:300]!r}")
        return None

    def get_text(self, path):
        status, headers, body = self.get(path)
        check(status == 200, f"GET {path}: HTTP {status}: {body[:300]!r}")
        return body.decode("utf-8"), headers

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout_s=15.0):
        """SIGTERM; the daemon must exit 0 within `timeout_s` (docs/http-api.md)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()
                fail(f"solscope serve did not exit within {timeout_s:.0f} s of SIGTERM")
        rc = self.proc.returncode
        check(rc == 0, f"solscope serve exited with status {rc} (want 0 after SIGTERM); stderr:\n"
              + "".join(self.stderr_lines[-30:]))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------- Prometheus text format

SERIES_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?[0-9]+)?$')
LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')


def parse_labels(text):
    labels = {}
    pos = 0
    while pos < len(text):
        m = LABEL_RE.match(text, pos)
        check(m is not None, f"unparsable label set {{{text}}}")
        labels[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        pos = m.end()
    return labels


def parse_prometheus(text):
    """[(name, labels dict, float)], failing on any line that is not valid text format 0.0.4."""
    series = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        m = SERIES_RE.match(line)
        check(m is not None, f"/metrics line {number} is not text format: {line!r}")
        raw = m.group(4)
        check(re.fullmatch(r"[-+]?([0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?|Inf|NaN)", raw) is not None,
              f"/metrics line {number}: value {raw!r} is not a Prometheus float (decimal comma?)")
        series.append((m.group(1), parse_labels(m.group(3) or ""), float(raw)))
    return series


def find_series(series, name, **labels):
    """The values of every series `name` whose labels include `labels`."""
    return [(l, v) for (n, l, v) in series if n == name and all(l.get(k) == str(x) for k, x in labels.items())]


def one_value(series, name, **labels):
    found = find_series(series, name, **labels)
    check(len(found) == 1, f"want exactly one series {name}{labels}, got {len(found)}: {found[:4]}")
    return found[0][1]


def close(a, b, rel=1e-9, abs_tol=1e-12):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def query_string(**params):
    return urllib.parse.urlencode(params)


# ---------------------------------------------------------------- windows (mirror of core::WindowAccumulator)

IDLE_THRESHOLD_PCT = 5.0    # core/derive.hpp kIdleThresholdPct
BOUND_THRESHOLD_PCT = 60.0  # core/derive.hpp kBoundThresholdPct
NON_METRIC_KEYS = {"device", "uuid", "t_start_ns", "t_end_ns", "source", "flags", "compute_pipe", "memory_path",
                   "bound", "pipes", "paths"}


def classify_bound(compute, memory, engine):
    """core::classify_bound (None = unknown)."""
    if engine is not None and engine < IDLE_THRESHOLD_PCT:
        return "idle"
    if compute is None and memory is None:
        return "unknown"
    c = -1.0 if compute is None else compute
    m = -1.0 if memory is None else memory
    if c >= BOUND_THRESHOLD_PCT and c >= m:
        return "compute"
    if m >= BOUND_THRESHOLD_PCT:
        return "memory"
    if engine is None:
        return "unknown"
    return "latency"


def window_key(sample, window_ns):
    mid = sample["t_start_ns"] + (sample["t_end_ns"] - sample["t_start_ns"]) // 2
    return mid // window_ns


def aggregate(samples):
    """One window of SolSample JSON objects (same device), as core::WindowAccumulator::result()."""
    sums, weights = {}, {}

    def add(key, v, w):
        if v is None:
            return
        sums[key] = sums.get(key, 0.0) + v * w
        weights[key] = weights.get(key, 0.0) + w

    pipe_names, path_names = [], []
    for s in samples:
        w = float(max(s["t_end_ns"] - s["t_start_ns"], 1))
        for k, v in s.items():
            if k not in NON_METRIC_KEYS and (v is None or isinstance(v, (int, float))):
                add(k, v, w)
        for k, v in s["pipes"].items():
            add(("pipe", k), v, w)
            if k not in pipe_names:
                pipe_names.append(k)
        for k, v in s["paths"].items():
            add(("path", k), v, w)
            if k not in path_names:
                path_names.append(k)
    mean = lambda k: sums[k] / weights[k] if weights.get(k, 0.0) > 0 else None  # noqa: E731
    out = {k: mean(k) for k in sums if not isinstance(k, tuple)}
    out["t_start_ns"] = min(s["t_start_ns"] for s in samples)
    out["t_end_ns"] = max(s["t_end_ns"] for s in samples)
    out["pipes"] = {p: mean(("pipe", p)) for p in pipe_names}
    out["paths"] = {p: mean(("path", p)) for p in path_names}

    def argmax(means):
        best, best_value = None, 0.0
        for name, v in means.items():
            if v is not None and (best is None or v > best_value):
                best, best_value = name, v
        return best

    out["compute_pipe"] = argmax(out["pipes"]) if out.get("compute_sol_pct") is not None else None
    out["memory_path"] = argmax(out["paths"]) if out.get("memory_sol_pct") is not None else None
    gr = out.get("gr_active_pct")
    out["bound"] = classify_bound(out.get("compute_sol_pct"), out.get("memory_sol_pct"),
                                  out.get("gpu_util_pct") if gr is None else gr)
    return out


def aggregate_windows(samples, window_ns=1_000_000_000):
    """{window key: window} of one device's samples (core::aggregate_windows)."""
    groups = {}
    for s in samples:
        groups.setdefault(window_key(s, window_ns), []).append(s)
    return {k: aggregate(v) for k, v in sorted(groups.items())}


def export_jsonl(solscope, trace, env=None):
    """{device: [sample JSON, ...]} from `solscope export TRACE --format jsonl` (time order)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    res = subprocess.run([solscope, "export", trace, "--format", "jsonl"], capture_output=True, text=True,
                         env=full_env, check=False)
    check(res.returncode == 0, f"solscope export failed ({res.returncode}): {res.stderr[-500:]}")
    by_device = {}
    for line in res.stdout.splitlines():
        if line.strip():
            s = json.loads(line)
            by_device.setdefault(s["device"], []).append(s)
    check(by_device, "solscope export printed no sample")
    return by_device
