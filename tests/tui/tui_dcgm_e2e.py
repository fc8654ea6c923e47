#!/usr/bin/env python3
"""End-to-end test of the terminal view driven by the live dcgm-exporter source, under tmux.

Serves SYNTHETIC dcgm-exporter scrapes from a local HTTP server on 127.0.0.1 (the values change between the
first scrape and the later ones), runs `solscope --dcgm-exporter URL` in a detached tmux session (200x50) and
checks that the screen names the source ("DCGM") and shows each GPU's Compute SOL (the busiest pipe) and Memory
SOL (DRAM active) from the scrape, then that the exporter going down is shown and that q restores the shell.
"""
import argparse
import http.server
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tui_e2e import Tmux, check, panel_figures, PROMPT  # noqa: E402


def scrape(gpus):
    """A SYNTHETIC scrape: {gpu: (tensor, fp32, dram, util%)}, ratios 0-1 as dcgm-exporter prints them."""
    lines = ["# SYNTHETIC dcgm-exporter scrape for the tmux test"]
    for gpu, (tensor, fp32, dram, util) in gpus.items():
        labels = (f'gpu="{gpu}",UUID="GPU-{gpu:08d}-tmux",device="nvidia{gpu}",'
                  f'modelName="NVIDIA H100 80GB HBM3",Hostname="tmux-node"')
        lines += [f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {util}",
                  f"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{{labels}}} {tensor}",
                  f"DCGM_FI_PROF_PIPE_FP32_ACTIVE{{{labels}}} {fp32}",
                  f"DCGM_FI_PROF_DRAM_ACTIVE{{{labels}}} {dram}",
                  f"DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{labels}}} 0.95"]
    return "\n".join(lines) + "\n"


# The first scrape, then the one every later scrape repeats: the view settles on the second.
SCRAPES = [scrape({0: (0.1, 0.0, 0.2, 50), 1: (0.0, 0.0, 0.0, 0)}),
           scrape({0: (0.253, 0.312, 0.612, 97), 1: (0.75, 0.05, 0.125, 100)})]


class Exporter:
    def __init__(self):
        self.count = 0
        exporter = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = SCRAPES[min(exporter.count, len(SCRAPES) - 1)].encode()
                exporter.count += 1
                self.send_response(200 if self.path == "/metrics" else 404)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/metrics"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--solscope", required=True)
    args = parser.parse_args()
    solscope = os.path.abspath(args.solscope)
    exporter = Exporter()
    t = Tmux(200, 50)
    try:
        t.type(f"{solscope} --dcgm-exporter {exporter.url} --no-workloads")
        want = {0: (31.2, "fma", 61.2, "dram", 97.0), 1: (75.0, "tensor", 12.5, "dram", 100.0)}

        def settled(screen):
            try:
                return all(panel_figures(screen, d, 96) == w for d, w in want.items())
            except AssertionError:
                return False

        screen = t.wait_for(settled, "the second scrape's figures on both GPU panels", timeout=20)
        check("DCGM" in screen, "the source label DCGM is not on screen", screen)
        check("dcgm-exporter at " + exporter.url in screen, "the exporter's URL is not on screen", screen)
        exporter.stop()  # the exporter goes down: the view says so, and keeps running
        t.wait_for(lambda s: "no scrape since" in s, "the exporter-down reason", timeout=20)
        t.keys("q")
        t.wait_for(lambda s: s.rstrip().endswith(PROMPT.strip()), "the shell prompt after q")
    finally:
        t.close()
    print("tui dcgm e2e: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
