#!/usr/bin/env python3
"""Tests the GPU proof kit (scripts/gpu-proof.sh, docs/gpu-proof.md) on a machine without a GPU.

1. `python3 -m py_compile` of scripts/gpu_workload.py and its gpu_workload_*.py modules, scripts/gpu_proof_ncu.py
   and scripts/gpu-proof/summarise.py (no torch needed), and `gpu_proof_ncu.py --selftest`.
2. Bad usage exits 2: no OUT_DIR; an OUT_DIR that is not empty.
3. The kit with the real solscope and no driver (nvidia-smi and ncu left off PATH): exit 0 within 60 s, every GPU
   step SKIP with the reason "no NVIDIA driver", and OUT_DIR holding at most 6 files, each under 16 MB.
4. The kit's GPU path with stand-ins (tests/integration/gpu_proof_fake/: nvidia-smi, ncu, solscope, a torch and a
   pynvml module), shortened by SOLSCOPE_PROOF_SCALE: every step runs, the stand-in verdict's one failing phase
   makes exit code 1, the files are packed, ncu's refusal of one listed metric is retried without it, and the ncu
   join matched the phases.

  gpu_proof_test.py --solscope PATH --workdir DIR
"""

import argparse
import csv
import io
import json
import os
import py_compile
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import time

import harness as h
from harness import check

KIT = os.path.join(h.ROOT, "scripts", "gpu-proof.sh")
WORKLOAD = os.path.join(h.ROOT, "scripts", "gpu_workload.py")
NCU_JOIN = os.path.join(h.ROOT, "scripts", "gpu_proof_ncu.py")
# Every Python file of the kit: the workload's modules and the kit's summariser.
KIT_PYTHON = [WORKLOAD, NCU_JOIN, os.path.join(h.ROOT, "scripts", "gpu-proof", "summarise.py")] + [
    os.path.join(h.ROOT, "scripts", f"gpu_workload_{m}.py") for m in ("device", "kernels", "phases", "overhead")]
FAKE = os.path.join(h.HERE, "gpu_proof_fake")
ROW_RE = re.compile(r"^([1-7])\s+(.*?)\s+(PASS|FAIL|SKIP|INFO)\s+(.*)$")
LIMIT = 16 * 1000 * 1000
HIDDEN = ("nvidia-smi", "ncu")


def stripped_path(workdir):
    """PATH without nvidia-smi and ncu: a folder holding them is replaced by a copy of links to its other tools."""
    out = []
    for n, d in enumerate(os.environ.get("PATH", "").split(os.pathsep)):
        if not d or not any(os.path.exists(os.path.join(d, t)) for t in HIDDEN):
            out.append(d)
            continue
        shadow = os.path.join(workdir, f"path{n}")
        os.makedirs(shadow, exist_ok=True)
        for name in os.listdir(d):
            if name not in HIDDEN and not os.path.exists(os.path.join(shadow, name)):
                os.symlink(os.path.join(d, name), os.path.join(shadow, name))
        out.append(shadow)
    return os.pathsep.join(out)


def base_env(path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("SOLSCOPE", "PYTHON", "NCU", "SOLSCOPE_PROOF_BUDGET_S", "SOLSCOPE_PROOF_SCALE")
           and not k.startswith("SOLSCOPE_")}
    env["PATH"] = path
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_kit(out, env, timeout):
    t0 = time.monotonic()
    res = subprocess.run(["bash", KIT, out], env=env, capture_output=True, text=True, timeout=timeout, check=False)
    return res, time.monotonic() - t0


def summary_rows(out):
    with open(os.path.join(out, "summary.txt"), encoding="utf-8") as f:
        text = f.read()
    rows = []
    for line in text.splitlines():
        m = ROW_RE.match(line)
        if m:
            rows.append((int(m.group(1)), m.group(2).strip(), m.group(3), m.group(4)))
    check(rows, f"no table rows in summary.txt:\n{text}")
    return rows, text


def check_packing(out, text):
    names = sorted(os.listdir(out))
    check(len(names) <= 6, f"OUT_DIR holds {len(names)} files (at most 6): {names}")
    for n in names:
        p = os.path.join(out, n)
        check(os.path.isfile(p), f"OUT_DIR/{n} is not a plain file")
        check(os.path.getsize(p) < LIMIT, f"OUT_DIR/{n} is {os.path.getsize(p)} bytes (16 MB at most)")
    check("summary.txt" in names and "results.tar.gz" in names, f"summary.txt or results.tar.gz missing: {names}")
    with tarfile.open(os.path.join(out, "results.tar.gz")) as tar:
        members = tar.getnames()
    for want in ("results/kit.log", "results/provenance.txt", "results/checks.tsv", "results/logs/commands.log"):
        check(want in members, f"results.tar.gz lacks {want}: {members}")
    for key in ("date_utc:", "host:", "gpu:", "driver:", "cuda:", "solscope:", "kernel:", "command:"):
        check(key in text, f"summary.txt header lacks {key}")
    return names, members


def test_compile_and_selftest(workdir):
    for src in KIT_PYTHON:
        try:
            py_compile.compile(src, cfile=os.path.join(workdir, os.path.basename(src) + "c"), doraise=True)
        except py_compile.PyCompileError as err:
            h.fail(f"py_compile {src}: {err}")
    res = subprocess.run([sys.executable, NCU_JOIN, "--selftest"], capture_output=True, text=True, check=False)
    check(res.returncode == 0 and "selftest PASS" in res.stdout,
          f"gpu_proof_ncu.py --selftest: status {res.returncode}\n{res.stdout}{res.stderr}")
    res = subprocess.run([sys.executable, WORKLOAD, "--help"], capture_output=True, text=True, check=False)
    check(res.returncode == 0 and "--seconds-scale" in res.stdout, f"gpu_workload.py --help: {res.returncode}")


def test_usage(workdir, env):
    res = subprocess.run(["bash", KIT], env=env, capture_output=True, text=True, timeout=30, check=False)
    check(res.returncode == 2, f"no OUT_DIR: status {res.returncode} (2 expected)\n{res.stderr}")
    busy = os.path.join(workdir, "busy")
    os.makedirs(busy)
    with open(os.path.join(busy, "x"), "w", encoding="utf-8") as f:
        f.write("x")
    res = subprocess.run(["bash", KIT, busy], env=env, capture_output=True, text=True, timeout=30, check=False)
    check(res.returncode == 2 and "not empty" in res.stderr, f"non-empty OUT_DIR: status {res.returncode}\n{res.stderr}")


def test_no_gpu(workdir, solscope, path):
    env = base_env(path)
    env["SOLSCOPE"] = solscope
    for tool in HIDDEN:
        found = shutil.which(tool, path=path)
        check(found is None, f"{tool} is still on the stripped PATH: {found}")
    out = os.path.join(workdir, "no-gpu")
    res, seconds = run_kit(out, env, timeout=90)
    log = res.stdout + res.stderr
    check(res.returncode == 0, f"no GPU: exit {res.returncode} (0 expected)\n{log}")
    check(seconds < 60, f"no GPU: the kit took {seconds:.1f} s (under 60 s expected)")
    rows, text = summary_rows(out)
    for step in range(2, 7):
        step_rows = [r for r in rows if r[0] == step]
        check(step_rows, f"no row for step {step}:\n{text}")
        for r in step_rows:
            check(r[2] == "SKIP" and "no NVIDIA driver" in r[3], f"step {step} not SKIP 'no NVIDIA driver': {r}")
    for r in (r for r in rows if r[0] == 1):
        ok = ((r[2] == "SKIP" and "no NVIDIA driver" in r[3]) or (r[1] == "solscope --version" and r[2] == "PASS")
              or (r[2] == "SKIP" and r[1] == "devices as an unprivileged user"))  # not root, or no setpriv/runuser
        check(ok, f"step 1 row neither the version nor SKIP 'no NVIDIA driver': {r}")
    check(any(r[1].startswith("devices") and "exit 3" in r[3] for r in rows),
          f"no devices row that says solscope exited 3:\n{text}")
    check(not any(r[2] == "FAIL" for r in rows), f"a FAIL row without a GPU:\n{text}")
    check("exit code 0" in text, "the summary does not state exit code 0")
    check_packing(out, text)
    print(f"no GPU: exit 0 in {seconds:.1f} s, {len(rows)} rows, all GPU steps SKIP", flush=True)


def fake_tools(workdir):
    """A folder with nvidia-smi, ncu, fakepython and solscope stand-ins; returns (folder, solscope, python)."""
    bindir = os.path.join(workdir, "fakebin")
    os.makedirs(bindir)

    def write(name, text):
        p = os.path.join(bindir, name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(p, 0o755)
        return p

    shutil.copy(os.path.join(FAKE, "nvidia-smi"), os.path.join(bindir, "nvidia-smi"))
    os.chmod(os.path.join(bindir, "nvidia-smi"), 0o755)
    write("ncu", f'#!/bin/sh\nexec "{sys.executable}" "{os.path.join(FAKE, "ncu_fake.py")}" "$@"\n')
    python = write("fakepython", f'#!/bin/sh\nPYTHONPATH="{os.path.join(FAKE, "pylib")}" exec "{sys.executable}" "$@"\n')
    # The kit copies solscope alone for its unprivileged run, so the stand-in names an interpreter anyone can run.
    interp = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    with open(os.path.join(FAKE, "solscope_fake.py"), encoding="utf-8") as f:
        body = f.read().split("\n", 1)[1]
    solscope = write("solscope", f"#!{interp}\n{body}")
    os.chmod(bindir, os.stat(bindir).st_mode | stat.S_IROTH | stat.S_IXOTH)
    return bindir, solscope, python


def test_fake_gpu(workdir, path):
    bindir, solscope, python = fake_tools(workdir)
    env = base_env(bindir + os.pathsep + path)
    # The stand-in ncu refuses the Hopper-only tensor metric that its query lists: the kit must retry without it.
    env.update(SOLSCOPE=solscope, PYTHON=python, SOLSCOPE_PROOF_SCALE="0.05",
               SOLSCOPE_FAKE_NCU_REJECT="sm__pipe_tensor_op_gmma_cycles_active")
    out = os.path.join(workdir, "fake-gpu")
    res, seconds = run_kit(out, env, timeout=110)
    log = res.stdout + res.stderr
    rows, text = summary_rows(out)
    check(res.returncode == 1, f"fake GPU: exit {res.returncode} (1 expected: one phase fails)\n{log}")
    fails = sorted(r[1] for r in rows if r[2] == "FAIL")
    check(fails == ["phase tiny_kernels", "phases verdict"], f"fake GPU: FAIL rows {fails}\n{text}")
    check(not any(r[2] == "SKIP" and r[0] >= 2 for r in rows), f"fake GPU: a step was skipped\n{text}")
    names = {r[1]: r for r in rows}
    user_json = next((r for r in rows if r[1].startswith("devices --json as")), None)
    check(user_json and user_json[2] == "PASS", f"fake GPU: devices --json row {user_json}\n{text}")
    for want in ("nvidia-smi -q", "check total", "workload run", "workload phases",
                 "report --json", "phase gemm_bf16_8192", "phase copy_d2d_4gib", "ncu profile", "ncu kernel rows",
                 "overhead recorder", "serve /healthz", "serve /metrics", "serve /api/v1/devices",
                 "serve exit on SIGTERM", "clock settings unchanged"):
        check(want in names and names[want][2] == "PASS", f"fake GPU: row {want!r} not PASS: {names.get(want)}\n{text}")
    if os.getuid() == 0:
        r = names.get("devices --json as uid 65534 (setpriv)") or names.get("devices --json as nobody (runuser)")
        check(r and r[2] == "PASS" and "source gpm" in r[3], f"fake GPU: unprivileged devices row {r}")
    check("5 of 5 phases matched" in names["ncu kernel rows"][3], f"ncu join: {names['ncu kernel rows']}")
    check("the first list failed" in names["ncu profile"][3] and "gmma" not in names["ncu profile"][3].split(":")[0],
          f"ncu retry without the refused metric: {names['ncu profile']}")
    files, members = check_packing(out, text)
    for want in ("workload.sqlite", "phases.json", "phases_verdict.json"):
        check(want in files, f"fake GPU: OUT_DIR lacks {want}: {files}")
    for want in ("results/check.json", "results/check.sqlite", "results/report.json", "results/workload.html",
                 "results/ncu_raw.csv", "results/ncu_vs_solscope.csv", "results/ncu_phases.json",
                 "results/overhead.json", "results/serve-metrics.txt", "results/nvidia-smi-q.txt"):
        check(want in members, f"fake GPU: results.tar.gz lacks {want}")
    with tarfile.open(os.path.join(out, "results.tar.gz")) as tar:
        join_csv = tar.extractfile("results/ncu_vs_solscope.csv").read().decode()
        overhead = json.loads(tar.extractfile("results/overhead.json").read())
    table = list(csv.reader(io.StringIO(join_csv)))
    check(table[0] == ["kernel", "phase", "metric", "ncu_pct", "solscope_pct", "diff_pct_points"], f"{table[0]}")
    gemm = [r for r in table if r[1] == "gemm_bf16_8192" and r[2].startswith("sm__pipe_tensor_cycles_active")]
    check(gemm and gemm[0][3:] == ["85.50", "88.00", "2.50"], f"ncu join GEMM row: {gemm}")
    check([s["interval"] for s in overhead["summary"]] == ["off", "100ms", "10ms", "1ms"], f"{overhead['summary']}")
    check(len(overhead["runs"]) == 12, f"overhead runs: {len(overhead['runs'])} (12 expected)")
    check(all(isinstance(r.get("gemm_sm_clock_mhz"), float) for r in overhead["runs"]), "overhead: SM clocks missing")
    with open(os.path.join(out, "phases.json"), encoding="utf-8") as f:
        phases = json.load(f)
    check(phases.get("format") == "solscope-phases-1" and phases.get("complete"), "phases.json format")
    names_in_order = [p["name"] for p in phases["phases"]]
    check(len(names_in_order) == 17 and names_in_order[0] == "idle_start" and names_in_order[-1] == "idle_end",
          f"phases: {names_in_order}")
    last = 0
    for p in phases["phases"]:
        check(last <= p["start_ns"] < p["end_ns"], f"phase window out of order: {p['name']}")
        last = p["end_ns"]
    check(phases["gpu"]["uuid"].startswith("GPU-"), f"phases.json gpu.uuid: {phases['gpu']}")
    print(f"fake GPU: exit 1 (as planted) in {seconds:.1f} s, {len(rows)} rows", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--solscope", required=True)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    solscope = os.path.abspath(args.solscope)
    check(os.access(solscope, os.X_OK), f"{solscope} is not executable")
    workdir = os.path.abspath(args.workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    # The kit's unprivileged run reads the copy under TMPDIR; keep the work folder reachable for it, too.
    os.chmod(workdir, 0o755)
    path = stripped_path(workdir)
    test_compile_and_selftest(workdir)
    test_usage(workdir, base_env(path))
    test_no_gpu(workdir, solscope, path)
    test_fake_gpu(workdir, path)


if __name__ == "__main__":
    h.run_main(main)
