"""The GPU proof kit's summariser (run by scripts/gpu-proof.sh): reads the JSON files and prints rows (standard
library; any Python 3).

  summarise.py KIND FILE...
"""

import json, statistics, sys

def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)

def num(v, fmt="{:.1f}", unit=""):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return "n/a"
    return fmt.format(v) + unit

def out(check, result, text):
    print(f"{check}\t{result}\t{' '.join(str(text).split())}")

def devices(path):
    d = load(path)
    parts = []
    for g in d.get("devices") or []:
        s = f"GPU{g.get('index')} {g.get('name')}: source {g.get('source')}"
        if g.get("reason"):
            s += f" ({g.get('reason')})"
        if g.get("hint"):
            s += f"; fix: {g.get('hint')}"
        parts.append(s)
    prof = "profiling allowed" if d.get("profiling_allowed") else f"profiling not allowed: {d.get('profiling_reason')}"
    if not d.get("profiling_allowed") and d.get("profiling_fix"):
        prof += f"; fix: {d.get('profiling_fix')}"
    print(f"{len(d.get('devices') or [])}\t{'; '.join(parts) or 'no devices'}; {prof}")

def check(path):
    d = load(path)
    blocks = d.get("checks") or d.get("sources") or []
    for b in blocks:
        rs = [r for r in b.get("rows") or [] if isinstance(r, dict)]
        bad = [r for r in rs if r.get("result") != "PASS"]
        desc = []
        for r in bad[:6]:
            if r.get("result") == "FAULT":
                desc.append(f"{r.get('phase')} FAULT {r.get('error', '')}"[:120])
            else:
                desc.append(f"{r.get('phase')}/{r.get('metric')} {r.get('result')} expected "
                            f"{num(r.get('expected_pct'))} measured {num(r.get('measured_pct'))} "
                            f"(tol {num(r.get('tolerance_pct'))})")
        text = f"{len(rs) - len(bad)} PASS, {len(bad)} not PASS" + (": " + "; ".join(desc) if desc else "")
        if len(bad) > 6:
            text += f"; {len(bad) - 6} more in check.json"
        out(f"check GPU{b.get('gpu')} {b.get('source')}", "FAIL" if bad else ("PASS" if rs else "INFO"),
            text if rs else "no rows: " + "; ".join(b.get("notes") or []))
    for o in d.get("overhead") or []:
        parts = []
        for r in o.get("rows") or []:
            iv = r.get("interval_ns")
            ivs = "off" if iv == 0 else (f"{iv / 1e6:g}ms" if isinstance(iv, (int, float)) else "?")
            parts.append(f"{r.get('kernel')}@{ivs} {num(r.get('ratio'), '{:.3f}')} ({num(r.get('sm_clock_mhz'), '{:.0f}')} MHz)")
        out(f"check overhead GPU{o.get('gpu')} {o.get('source')}", "INFO", ", ".join(parts) or "no rows")
    total = f"passed {d.get('passed')}, failed {d.get('failed')}, result {d.get('result')}"
    out("check total", "PASS" if str(d.get("result")).lower() == "pass" else "FAIL", total)

def report(path):
    d = load(path)
    t = d.get("trace") or {}
    for g in d.get("gpus") or []:
        k = g.get("kernels") or {}
        out(f"report GPU{g.get('index')}", "INFO",
            f"{g.get('name')} source {g.get('source')}: {g.get('samples')} samples over {num(g.get('duration_s'))} s; "
            f"Compute SOL {num(g.get('compute_sol_pct'))}% {g.get('compute_pipe')}, Memory SOL "
            f"{num(g.get('memory_sol_pct'))}% {g.get('memory_path')}, util {num(g.get('gpu_util_pct'))}%, "
            f"SM active {num(g.get('sm_active_pct'))}%; kernels {k.get('calls')} calls of {k.get('names')} names; "
            f"energy {num(g.get('energy_j'), '{:.0f}')} J")
    dropped = t.get("kernels_dropped")
    out("report kernel log", "INFO", f"kernel_log {t.get('kernel_log')}, dropped {dropped}, exit {t.get('exit_status')}")

def drop_uuid(path, out_path):
    d = load(path)
    if not (d.get("gpu") or {}).get("uuid"):
        sys.exit(1)
    d["gpu"]["uuid"] = None
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(d, f, indent=1)

def verdict(path, phases_path=None):
    d = load(path)
    useful = {}
    try:
        for p in load(phases_path).get("phases") or [] if phases_path else []:
            u = (p.get("achieved") or {}).get("useful_flop_per_s")
            if isinstance(u, (int, float)):
                useful[p.get("name")] = u
    except Exception:
        pass
    block = d.get("declared_phases") or {}
    phases = block.get("phases") or []
    for p in phases:
        f = p.get("figures") or {}
        res = p.get("result") or "NO DATA"
        text = (f"{p.get('samples')} samples; compute {num(f.get('compute_sol_pct'))}% {f.get('compute_pipe')}, "
                f"memory {num(f.get('memory_sol_pct'))}% {f.get('memory_path')}, bound {f.get('bound')}, util "
                f"{num(f.get('gpu_util_pct'), '{:.0f}')}%, SM active {num(f.get('sm_active_pct'), '{:.0f}')}%, "
                f"{num(f.get('sm_clock_mhz'), '{:.0f}')} MHz")
        implied = f.get("implied_flop_per_s")
        if p.get("name") in useful:
            u = useful[p.get("name")]
            text += (f"; tensor-pipe FLOP/s {num(implied / 1e12 if isinstance(implied, (int, float)) else None)} T vs "
                     f"useful {num(u / 1e12)} T")
            if isinstance(implied, (int, float)) and u > 0:
                text += f" (x{implied / u:.2f})"
        k = p.get("kernel")
        if isinstance(k, dict) and k.get("name"):
            text += f"; kernel {str(k.get('name'))[:60]} x{k.get('calls')} ({num(k.get('busy_pct'), '{:.0f}')}% busy"
            if isinstance(k.get("compute_sol_pct"), (int, float)):
                text += f", its SOL {num(k.get('compute_sol_pct'))}% {k.get('compute_pipe')} / {num(k.get('memory_sol_pct'))}% {k.get('memory_path')}"
            text += ")"
        for c in p.get("checks") or []:
            mark = "" if c.get("result") == "PASS" else f" {c.get('result')}"
            text += f"; {c.get('what')}: {c.get('measured')} vs {c.get('expected')}{mark}"
        result = {"PASS": "PASS", "INFO": "INFO"}.get(res, "FAIL")
        if res not in ("PASS", "INFO", "FAIL"):
            text = f"{res}: {text}"
        out(f"phase {p.get('name')}", result, text)
    n = {r: sum(1 for p in phases if p.get("result") == r) for r in ("PASS", "FAIL", "NO DATA", "INFO")}
    out("phases verdict", "PASS" if block.get("result") == "PASS" else "FAIL",
        f"{block.get('result')}: {n['PASS']} PASS, {n['FAIL']} FAIL, {n['NO DATA']} NO DATA, {n['INFO']} INFO "
        f"of {len(phases)} phases (device {block.get('device')})")

def achieved(path):
    d = load(path)
    phases = d.get("phases") or []
    by_m = {}
    for p in phases:
        a = p.get("achieved") or {}
        n = p.get("name", "")
        if n.startswith("gemm"):
            out("workload GEMM", "INFO", f"{n}: {num(a.get('flop_per_s', 0) / 1e12 if a.get('flop_per_s') else None)} "
                f"TFLOP/s over {a.get('iterations')} iterations")
        elif n.startswith("copy"):
            out("workload copy", "INFO", f"{n}: {num(a.get('dram_bytes_per_s', 0) / 1e9 if a.get('dram_bytes_per_s') else None, '{:.0f}')} "
                f"GB/s (read + write) over {a.get('iterations')} iterations")
        elif n.startswith("tiny"):
            out("workload tiny kernels", "INFO", f"{p.get('launches')} launches of {p.get('kernel')} in "
                f"{num((p.get('end_ns', 0) - p.get('start_ns', 0)) / 1e9, '{:.2f}')} s")
        elif n.startswith("decode_m"):
            m = n.split("_")[1]
            s = p.get("shape") or {}
            flop = a.get("useful_flop_per_s") or a.get("flop_per_s")
            by_m.setdefault(m, []).append(
                f"{s.get('in_features')}->{s.get('out_features')} "
                f"{num(flop / 1e12 if flop else None)} TFLOP/s "
                f"{num(a.get('weight_bytes_per_s') / 1e9 if a.get('weight_bytes_per_s') else None, '{:.0f}')} GB/s")
    for m, parts in by_m.items():
        out(f"workload decode {m.upper().replace('M', 'M=')}", "INFO", "; ".join(parts))
    out("workload phases", "PASS" if d.get("complete") else "FAIL",
        f"{len(phases)} phases written" + ("" if d.get("complete") else " (the run did not finish)") +
        f"; GPU {(d.get('gpu') or {}).get('name')}; torch {(d.get('software') or {}).get('torch')}")

def overhead(path):
    d = load(path)
    runs = d.get("runs") or []
    for s in d.get("summary") or []:
        out(f"overhead {s.get('interval')}", "INFO",
            f"GEMM {num(s.get('gemm_tflop_per_s'))} TFLOP/s (ratio {num(s.get('gemm_ratio'), '{:.3f}')}, "
            f"{num(s.get('gemm_sm_clock_mhz'), '{:.0f}')} MHz); copy {num(s.get('copy_gb_per_s'), '{:.0f}')} GB/s "
            f"(ratio {num(s.get('copy_ratio'), '{:.3f}')}, {num(s.get('copy_sm_clock_mhz'), '{:.0f}')} MHz)"
            + (f"; samples {s.get('recorder_samples')}" if s.get("recorder_samples") else ""))
    rec = [r for r in runs if r.get("interval") != "off"]
    bad = [r for r in rec if r.get("recorder_exit") != 0 or not r.get("recorder_samples") or r.get("recorder_error")]
    desc = "; ".join(f"rep {r.get('repetition')} {r.get('interval')}: exit {r.get('recorder_exit')}, samples "
                     f"{r.get('recorder_samples')} {r.get('recorder_error') or ''} {(r.get('recorder_log_tail') or '')[-120:]}"
                     for r in bad[:3])
    out("overhead recorder", "FAIL" if bad or not rec else "PASS",
        f"{len(rec) - len(bad)} of {len(rec)} recordings exited 0 with samples" + (f": {desc}" if desc else "")
        + ("" if d.get("summary") else "; the run did not finish"))
    if d.get("clock_note"):
        out("overhead SM clock", "INFO", d["clock_note"])

def serve_devices(path):
    d = load(path)
    devs = d.get("devices") if isinstance(d, dict) else d
    devs = devs if isinstance(devs, list) else []
    print(f"{len(devs)}\t" + "; ".join(f"{g.get('index')} {g.get('name')} {g.get('source', '')}" for g in devs
                                      if isinstance(g, dict)))

def metrics(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f.read().splitlines() if l and not l.startswith("#")]
    sol = [l for l in lines if l.startswith("solscope_")]
    names = sorted({l.split("{")[0].split(" ")[0] for l in sol})
    print(f"{len(sol)}\t{len(lines)} samples, {len(sol)} solscope_ samples of {len(names)} series, e.g. "
          + ", ".join(names[:4]))

def nvsmi(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l.strip() for l in f if l.strip()]
    if len(lines) < 2:
        print("n/a"); return
    head = [h.strip() for h in lines[0].split(",")]
    for l in lines[1:]:
        vals = [v.strip() for v in l.split(",")]
        print("; ".join(f"{h}={v}" for h, v in zip(head, vals)))

def thin(src, dst, limit):
    """A copy of the trace whose kernels table keeps every k-th call of each name with over 2,000 calls, k the
    smallest power of two that brings the file under `limit` bytes; prints what it did."""
    import math, os, sqlite3
    limit = int(limit)
    s = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    d = sqlite3.connect(dst)
    s.backup(d)
    s.close()
    total = d.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
    heavy = [r[0] for r in d.execute("SELECT name FROM kernels GROUP BY name HAVING COUNT(*) > 2000")]
    marks = ",".join("?" * len(heavy))
    k = 1
    size = os.path.getsize(src)
    while size > limit and heavy and k < 1 << 20:
        k *= 2 if k > 1 else 2 ** max(1, math.ceil(math.log2(size / limit * 1.3)))
        d.execute(f"DELETE FROM kernels WHERE name IN ({marks}) AND id % ? != 0", (*heavy, k))
        d.commit()
        d.execute("VACUUM")
        size = os.path.getsize(dst)
    kept = d.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
    try:
        d.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('gpu_proof_thinned', ?)",
                  (f"kernels: every {k}th call of the {len(heavy)} names with over 2000 calls; {kept} of {total} kept",))
        d.commit()
    except sqlite3.Error:
        pass
    d.close()
    if os.path.getsize(dst) > limit:
        sys.exit(1)
    print(f"workload.sqlite is thinned: its kernels table keeps every {k}th call of the {len(heavy)} kernel names "
          f"with over 2,000 calls ({kept} of {total} rows; samples complete; meta key gpu_proof_thinned)")

def checkpoint(path):
    import sqlite3
    con = sqlite3.connect(path, timeout=5)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()

try:
    globals()[sys.argv[1].replace("-", "_")](*sys.argv[2:])
except Exception as err:  # any malformed file: one row that says so
    if sys.argv[1] in ("devices", "serve-devices", "metrics"):
        print(f"0\tcannot read {sys.argv[2]}: {type(err).__name__}: {err}")
    elif sys.argv[1] == "nvsmi":
        print("n/a")
    elif sys.argv[1] in ("drop-uuid", "checkpoint", "thin"):
        print(f"{sys.argv[1]}: {type(err).__name__}: {err}", file=sys.stderr)
        sys.exit(1)
    else:
        out(f"read {sys.argv[2].rsplit('/', 1)[-1]}", "FAIL", f"cannot read it: {type(err).__name__}: {err}")
