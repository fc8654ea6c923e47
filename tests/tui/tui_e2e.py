#!/usr/bin/env python3
"""End-to-end test of solscope's terminal view under tmux.

Replays an 8-GPU SYNTHETIC trace in a detached tmux session (200x50), pauses it, reads the screen with
capture-pane and checks every GPU panel's Compute SOL (and pipe), Memory SOL (and path) and classic
utilization against the trace's 1-s windows computed here from `solscope export --format jsonl` (the
duration-weighted means LiveState shows). Then: resize to 80x24 and back, views and keys, seek and speed,
quit with q (terminal restored: alternate screen off, prompt back, stty unchanged), SIGTERM, Ctrl-Z/fg,
`--connect` to a `solscope serve` and the automatic attach to one on the default port, and
the bundled trace shown by plain `solscope` without a GPU. `--screenshots DIR` also writes captures of the
bundled trace at 80x24 and 200x50 (docs/screenshots).
"""
import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

WINDOW_NS = 1_000_000_000
PROMPT = "e2e$ "


class Tmux:
    def __init__(self, cols, rows):
        self.socket = f"solscope-tui-e2e-{os.getpid()}"
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"),
               "LANG": "C.UTF-8", "PS1": PROMPT, "TERM": "xterm-256color"}
        self.run("new-session", "-d", "-s", "e2e", "-x", str(cols), "-y", str(rows),
                 "env", "-i", *[f"{k}={v}" for k, v in env.items()], "bash", "--norc", "--noprofile")
        self.run("set-option", "-g", "default-terminal", "xterm-256color")
        self.wait_for(lambda s: PROMPT.strip() in s, "the shell prompt")

    def run(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True,
                              text=True).stdout

    def keys(self, *keys):
        self.run("send-keys", "-t", "e2e", *keys)

    def type(self, text):
        self.run("send-keys", "-t", "e2e", "-l", text)
        self.keys("Enter")

    def capture(self):
        return self.run("capture-pane", "-p", "-t", "e2e")

    def display(self, fmt):
        return self.run("display-message", "-p", "-t", "e2e", fmt).strip()

    def wait_for(self, predicate, what, timeout=15.0):
        deadline = time.time() + timeout
        text = ""
        while time.time() < deadline:
            text = self.capture()
            if predicate(text):
                return text
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{text}")

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def check(condition, message, screen=""):
    if not condition:
        raise AssertionError(message + ("\nscreen:\n" + screen if screen else ""))


def trace_windows(solscope, trace):
    """{(device, window index): figures} from the exported samples: NaN-skipping duration-weighted means."""
    out = subprocess.run([solscope, "export", trace, "--format", "jsonl"], check=True, capture_output=True,
                         text=True).stdout
    acc = collections.defaultdict(lambda: collections.defaultdict(lambda: [0.0, 0.0]))
    for line in out.splitlines():
        s = json.loads(line)
        mid = s["t_start_ns"] + (s["t_end_ns"] - s["t_start_ns"]) // 2
        key = (s["device"], mid // WINDOW_NS)
        w = max(s["t_end_ns"] - s["t_start_ns"], 1)
        fields = {"compute": s["compute_sol_pct"], "memory": s["memory_sol_pct"], "util": s["gpu_util_pct"]}
        fields.update({"pipe:" + k: v for k, v in s["pipes"].items()})
        fields.update({"path:" + k: v for k, v in s["paths"].items()})
        for name, v in fields.items():
            if v is not None:
                acc[key][name][0] += v * w
                acc[key][name][1] += w
    windows = {}
    for key, sums in acc.items():
        mean = {name: total / weight for name, (total, weight) in sums.items() if weight > 0}
        pipes = {n[5:]: v for n, v in mean.items() if n.startswith("pipe:")}
        paths = {n[5:]: v for n, v in mean.items() if n.startswith("path:")}
        mean["pipe"] = max(pipes, key=pipes.get) if pipes else None
        mean["path"] = max(paths, key=paths.get) if paths else None
        windows[key] = mean
    return windows


def shown(value):
    return round(min(max(value, 0.0), 100.0), 1)


def panel_figures(screen, device, width):
    """Compute %, pipe, memory %, path and util % of one GPU's full panel on the screen."""
    lines = screen.splitlines()
    for row, line in enumerate(lines):
        m = re.search(rf"GPU {device} ", line)
        if not m:
            continue
        col = max(m.start() - 2, 0)
        seg = [lines[row + k][col:col + width] for k in (1, 2, 3)]
        c = re.search(r"Compute SOL.*?(\d+\.\d)% (\w+)", seg[0])
        mem = re.search(r"Memory SOL.*?(\d+\.\d)% (\w+)", seg[1])
        u = re.search(r"Util \(smi\).*?(\d+\.\d)%", seg[2])
        check(c and mem and u, f"GPU {device}: panel lines not found", screen)
        return float(c.group(1)), c.group(2), float(mem.group(1)), mem.group(2), float(u.group(1))
    raise AssertionError(f"GPU {device} not on screen:\n{screen}")


def matching_windows(windows, device, figures):
    compute, pipe, memory, path, util = figures
    found = set()
    for (d, k), w in windows.items():
        if d != device:
            continue
        if (abs(shown(w["compute"]) - compute) <= 0.051 and w["pipe"] == pipe
                and abs(shown(w["memory"]) - memory) <= 0.051 and w["path"] == path
                and abs(shown(w["util"]) - util) <= 0.051):
            found.add(k)
    return found


def child_pid_of(pane_pid):
    with open(f"/proc/{pane_pid}/task/{pane_pid}/children") as f:
        children = f.read().split()
    check(len(children) == 1, f"expected one child of the shell, got {children}")
    return int(children[0])


def restored(t, screen_before_stty):
    t.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()), "the prompt after quitting")
    check(t.display("#{alternate_on}") == "0", "the alternate screen is still on", t.capture())
    t.type("stty -g > stty.after; echo STTY-$?")
    t.wait_for(lambda s: "STTY-0" in s, "stty")


def test_replay(args, t, tmp):
    trace = os.path.join(tmp, "t8.sqlite")
    subprocess.run([args.make_trace, "-o", trace, "--devices", "8", "--samples", "6000", "--seed", "11"],
                   check=True, capture_output=True)
    windows = trace_windows(args.solscope, trace)
    t.type(f"cd {tmp} && stty -g > stty.before")
    t.type(f"{args.solscope} replay {trace}; echo EXIT=$?")
    t.wait_for(lambda s: "GPU 7" in s and "0:03/" in s, "three seconds of replay")
    t.keys("p")
    screen = t.wait_for(lambda s: "PAUSED" in s, "the pause")
    time.sleep(0.3)
    screen = t.capture()
    check("SYNTHETIC" in screen and "8 GPUs" in screen, "header lacks SYNTHETIC / 8 GPUs", screen)
    common = None
    for device in range(8):
        figures = panel_figures(screen, device, 99)
        found = matching_windows(windows, device, figures)
        check(found, f"GPU {device}: {figures} matches no 1-s window of the trace", screen)
        common = found if common is None else common & found
    check(common, "the GPUs show figures of different windows", screen)
    print(f"replay: 8 panels match trace window(s) {sorted(common)}")
    return trace


def test_keys_and_resize(t):
    t.run("resize-window", "-t", "e2e", "-x", "80", "-y", "24")
    screen = t.wait_for(lambda s: all(f"GPU {i} " in s for i in range(8)) and max(map(len, s.splitlines())) <= 80,
                        "the 80x24 layout with 8 GPUs")
    t.run("resize-window", "-t", "e2e", "-x", "200", "-y", "50")
    t.wait_for(lambda s: "Memory SOL " in s and max(map(len, s.splitlines())) > 100, "the 200x50 layout")
    for key, text in (("2", "GPU-Util"), ("3", "SMACT"), ("4", "Compute pipes"), ("Escape", "SMACT"), ("1", "Memory SOL "),
                      ("5", "GPU share"), ("u", "SM active"),
                      ("?", "keys of the solscope view"), ("x", "Compute SOL GPU 0"), ("w", "chart 5m"),
                      ("Down", "\u25b6 GPU 2 "), ("Enter", "\n iteration ")):
        t.keys(key)
        t.wait_for(lambda s, text=text: text in s, f"'{text}' after key {key}")
    t.keys("Escape")
    t.wait_for(lambda s: "Memory SOL " in s and "Compute pipes" not in s, "back from detail")

    def position(s):
        m = re.search(r"(\d+):(\d\d)/\d", s)
        return int(m.group(1)) * 60 + int(m.group(2)) if m else -1

    before = position(t.capture())
    t.keys("]")
    t.wait_for(lambda s: "PAUSED" not in s and position(s) >= before + 9, "a 10 s seek")
    t.keys("+")
    t.wait_for(lambda s: " x2" in s, "speed x2")
    print("keys, views, resize, seek and speed: ok")


def test_quit_and_signals(args, t, trace):
    t.keys("q")
    screen = t.wait_for(lambda s: "EXIT=0" in s, "exit status 0 after q")
    restored(t, screen)
    t.type("cmp stty.before stty.after && echo SAME-STTY")
    t.wait_for(lambda s: "SAME-STTY" in s, "unchanged terminal modes", 5)
    # SIGTERM ends it cleanly too.
    t.type("clear; " + f"{args.solscope} replay {trace}; echo EXIT=$?")
    t.wait_for(lambda s: "GPU 7" in s, "the view again")
    os.kill(child_pid_of(int(t.display("#{pane_pid}"))), signal.SIGTERM)
    t.wait_for(lambda s: "EXIT=0" in s, "exit status 0 after SIGTERM")
    check(t.display("#{alternate_on}") == "0", "alternate screen on after SIGTERM", t.capture())
    # Ctrl-Z gives the terminal back; fg brings the view back (a lone command: bash goes on with the rest of
    # a list when a job in it stops).
    t.type("clear; " + f"{args.solscope} replay {trace}")
    t.wait_for(lambda s: "GPU 7" in s, "the view once more")
    t.keys("C-z")
    t.wait_for(lambda s: "Stopped" in s, "the shell's job-control message")
    check(t.display("#{alternate_on}") == "0", "alternate screen on while stopped", t.capture())
    t.type("fg")
    t.wait_for(lambda s: "GPU 7" in s and "Memory SOL" in s, "the view after fg")
    check(t.display("#{alternate_on}") == "1", "the view is not back on the alternate screen", t.capture())
    t.keys("q")
    t.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()), "the prompt after fg and q")
    t.type("echo EXIT=$?")
    t.wait_for(lambda s: "EXIT=0" in s, "exit status 0 after fg and q")
    check(t.display("#{alternate_on}") == "0", "alternate screen on after fg and q", t.capture())
    print("q, SIGTERM, Ctrl-Z/fg restore the terminal: ok")


def test_bundled_trace(args, t):
    t.type(f"clear; SOLSCOPE_DEMO_TRACE={args.demo} {args.solscope}; echo EXIT=$?")
    screen = t.wait_for(lambda s: "no NVIDIA GPU here" in s and "GPU 3" in s, "the bundled trace")
    check("SYNTHETIC" in screen, "the bundled trace is not marked SYNTHETIC", screen)
    t.keys("q")
    t.wait_for(lambda s: "EXIT=0" in s, "exit from the bundled trace")
    # Without a UTF-8 locale the view draws ASCII only; NO_COLOR gives monochrome.
    t.type(f"clear; LANG=C LC_ALL=C NO_COLOR=1 SOLSCOPE_DEMO_TRACE={args.demo} {args.solscope}; echo EXIT=$?")
    screen = t.wait_for(lambda s: "GPU 3" in s and "Compute SOL" in s, "the ASCII view")
    check(all(ord(c) < 128 for c in screen), "non-ASCII characters on a C-locale screen", screen)
    t.keys("q")
    t.wait_for(lambda s: "EXIT=0" in s, "exit from the ASCII view")
    print("plain solscope without a GPU shows the bundled trace (UTF-8 and ASCII): ok")


def start_daemon(args, trace, port=0):
    """`solscope serve --replay TRACE --loop` on loopback (port 0: a free one); returns (process, port)."""
    daemon = subprocess.Popen([args.solscope, "serve", "--replay", trace, "--loop", "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 15
    while time.time() < deadline:
        line = daemon.stderr.readline()
        found = re.search(r"listening on https?://127\.0\.0\.1:(\d+)", line)
        if found:
            return daemon, int(found.group(1))
        if not line and daemon.poll() is not None:
            break
    daemon.kill()
    raise AssertionError("solscope serve did not say where it listens")


def test_connect_to_daemon(args, t, trace):
    daemon, port = start_daemon(args, trace)
    try:
        t.type(f"clear; {args.solscope} --connect 127.0.0.1:{port}; echo EXIT=$?")
        screen = t.wait_for(lambda s: f"solscope serve on 127.0.0.1:{port}" in s and "GPU 7" in s
                            and re.search(r"\d+\.\d%", s), "the daemon's figures in the view")
        check("SYNTHETIC" in screen, "the attached view does not carry the trace's SYNTHETIC mark", screen)
        t.keys("q")
        t.wait_for(lambda s: "EXIT=0" in s, "exit from the attached view")
    finally:
        daemon.send_signal(signal.SIGTERM)
        check(daemon.wait(timeout=10) == 0, "the daemon did not stop cleanly on SIGTERM")
    print("--connect shows a running daemon's GPUs: ok")


def port_free(port):
    import socket
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_attach_to_local_daemon(args, t, trace):
    """Plain `solscope` attaches to a daemon on the default port instead of competing for the counters."""
    if not port_free(9741):
        print("note: port 9741 is taken here; the automatic attach case is skipped")
        return
    daemon, port = start_daemon(args, trace, 9741)
    try:
        t.type(f"clear; SOLSCOPE_DEMO_TRACE={args.demo} {args.solscope}; echo EXIT=$?")
        t.wait_for(lambda s: "solscope serve on 127.0.0.1:9741" in s and "GPU 7" in s, "the automatic attach")
        t.keys("q")
        screen = t.wait_for(lambda s: "EXIT=0" in s, "exit from the attached view")
        check("holds the GPU counters" in screen, "no note that a daemon holds the counters", screen)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=10)
    print("plain solscope attaches to a local daemon: ok")


def screenshots(args, out_dir):
    for cols, rows in ((80, 24), (200, 50)):
        t = Tmux(cols, rows)
        try:
            t.type(f"clear; {args.solscope} replay {args.demo} --loop")
            t.wait_for(lambda s: "0:45/" in s, "45 s of the demo", 60)
            t.keys("p")
            screen = t.wait_for(lambda s: "PAUSED" in s, "pause")
            with open(os.path.join(out_dir, f"tui-{cols}x{rows}.txt"), "w") as f:
                f.write(screen)
            t.keys("q")
        finally:
            t.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--solscope", required=True)
    parser.add_argument("--make-trace", required=True)
    parser.add_argument("--demo", required=True)
    parser.add_argument("--screenshots")
    args = parser.parse_args()
    args.solscope = os.path.abspath(args.solscope)
    args.make_trace = os.path.abspath(args.make_trace)
    args.demo = os.path.abspath(args.demo)
    if args.screenshots:
        screenshots(args, args.screenshots)
        return 0
    if "NVIDIA" in subprocess.run(["sh", "-c", "ls /dev/nvidia0 2>/dev/null && echo NVIDIA"],
                                  capture_output=True, text=True).stdout:
        print("note: an NVIDIA device is present; the bundled-trace case is skipped")
        args.skip_demo = True
    with tempfile.TemporaryDirectory(prefix="solscope-tui-e2e-") as tmp:
        t = Tmux(200, 50)
        try:
            trace = test_replay(args, t, tmp)
            test_keys_and_resize(t)
            test_quit_and_signals(args, t, trace)
            test_connect_to_daemon(args, t, trace)
            test_attach_to_local_daemon(args, t, trace)
            if not getattr(args, "skip_demo", False):
                test_bundled_trace(args, t)
        finally:
            t.close()
    print("tui e2e: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
