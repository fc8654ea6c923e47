#!/usr/bin/env python3
"""`solscope fleet` in the terminal, under tmux, against the real Prometheus backfilled from SYNTHETIC
OpenMetrics (the fixture and server of fleet_test.py).

  fleet_tui_test.py --solscope BIN --workdir DIR [--prometheus ...] [--promtool ...]

Checks on the captured screen: every GPU's row in host order with its Compute SOL mean as computed from the
fixture; `s` sorts by Compute SOL mean (lowest first); `/` filters; Enter opens the GPU's history charts and
Esc goes back; q quits and gives the shell back.
"""

import argparse
import os
import subprocess
import time

import fleet_test as ft
import harness as h
from harness import check

PROMPT = "fleet$ "


class Tmux:
    def __init__(self, cols, rows):
        self.socket = f"solscope-fleet-tui-{os.getpid()}"
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"),
               "LANG": "C.UTF-8", "PS1": PROMPT, "TERM": "xterm-256color"}
        self.run("new-session", "-d", "-s", "f", "-x", str(cols), "-y", str(rows),
                 "env", "-i", *[f"{k}={v}" for k, v in env.items()], "bash", "--norc", "--noprofile")
        self.wait_for(lambda s: PROMPT.strip() in s, "the shell prompt")

    def run(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True,
                              text=True).stdout

    def keys(self, *keys):
        self.run("send-keys", "-t", "f", *keys)

    def type(self, text, enter=True):
        self.run("send-keys", "-t", "f", "-l", text)
        if enter:
            self.keys("Enter")

    def capture(self):
        return self.run("capture-pane", "-p", "-t", "f")

    def wait_for(self, predicate, what, timeout=20.0):
        deadline = time.time() + timeout
        text = ""
        while time.time() < deadline:
            text = self.capture()
            if predicate(text):
                return text
            time.sleep(0.1)
        h.fail(f"timed out waiting for {what}; screen:\n{text}")
        return text

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)


def table_rows(screen):
    """[(host, gpu, first figure cells...)] of the table lines (after the column titles)."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("HOST"))
    rows = []
    for line in lines[start + 1:]:
        words = line.split()
        if len(words) < 3 or words[0] in ("Up/Down", "filter:", "Esc"):
            continue
        rows.append(words)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solscope", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--prometheus", default="/usr/bin/prometheus")
    ap.add_argument("--promtool", default="/usr/bin/promtool")
    args = ap.parse_args()
    h.require_tool("tmux")
    prometheus_bin = h.require_tool(args.prometheus)
    promtool = h.require_tool(args.promtool)
    os.makedirs(args.workdir, exist_ok=True)
    want = ft.expected_rows()
    prom = ft.Prometheus(prometheus_bin, promtool, args.workdir)
    tmux = Tmux(200, 40)
    try:
        tmux.type(f"{os.path.abspath(args.solscope)} fleet --prometheus {prom.url} --selector '{{cluster=\"a\"}}' "
                  f"--since 1h --at {ft.END_S} --refresh 60s")
        screen = tmux.wait_for(lambda s: "10 GPUs, 10 shown" in s, "the fleet table")
        rows = table_rows(screen)
        got = [(r[0], r[1]) for r in rows]
        check(got == sorted(want, key=lambda k: (k[0], int(k[1]))), f"rows in host order: {got}\n{screen}")
        for r in rows:
            w = want[(r[0], r[1])]
            mean = f"{w['compute_sol_mean_pct']:.1f}%"
            check(mean in r, f"{r[0]}/{r[1]}: Compute SOL mean {mean} not on its row {r}")
        check("stragglers" in screen.splitlines()[0] and "2 stragglers" in screen, f"header:\n{screen}")

        tmux.keys("s")
        screen = tmux.wait_for(lambda s: "sort: compute-mean" in s, "sort by Compute SOL mean")
        order = sorted(want, key=lambda k: (want[k]["compute_sol_mean_pct"], k[0], int(k[1])))
        got = [(r[0], r[1]) for r in table_rows(screen)]
        check(got == order, f"sorted by Compute SOL mean: {got}, want {order}\n{screen}")
        lowest = order[0]

        tmux.keys(*["Up"] * 12)  # the selection stayed on dgx-b/0 through the sort: back to the first row
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "Compute SOL %" in s and "Memory SOL %" in s, "the history charts")
        check(f"{lowest[0]} GPU {lowest[1]}" in screen.splitlines()[0], f"history of {lowest}:\n{screen}")
        check("classic utilization %" in screen, f"utilization chart:\n{screen}")
        tmux.keys("Escape")
        tmux.wait_for(lambda s: "HOST" in s and "sort: compute-mean" in s, "the table again")

        tmux.keys("/")
        tmux.type("sol-a", enter=False)
        tmux.keys(*["Up"] * 12)  # the selection stayed on dgx-b/0 through the sort: back to the first row
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "10 GPUs, 4 shown" in s, "the filter")
        hosts = {r[0] for r in table_rows(screen)}
        check(hosts == {"sol-a"}, f"filter sol-a shows {hosts}\n{screen}")

        tmux.keys("q")
        tmux.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()), "the shell after q")
        print("fleet view: 10 rows in host order with the fixture's means, sort, history, filter, quit", flush=True)
    finally:
        tmux.close()
        prom.stop()


if __name__ == "__main__":
    h.run_main(main)
