#!/usr/bin/env python3
"""Joins Nsight Compute's per-kernel rows with solscope's per-phase figures (the GPU proof kit, step 4).

  gpu_proof_ncu.py --ncu-csv ncu_raw.csv --short-phases ncu_phases.json [--verdict phases_verdict.json]
                   [--trace workload.sqlite] --out ncu_vs_solscope.csv [--rows]
  gpu_proof_ncu.py --selftest

Inputs:
- `--ncu-csv`: the output of `ncu --csv --page raw --metrics ...` (the `--log-file` of the profiling run; `==PROF==`
  lines and other text around the CSV are skipped). Several files may be given; every kernel row of each is read.
- `--short-phases`: the phase file of `gpu_workload.py --short` (phases in launch order, each after one marker
  kernel, named in its key "marker").
- `--verdict`: `solscope report TRACE --phases FILE --json` of the full workload run: each phase's figures
  (tensor_pipe_pct, fma_pipe_pct, dram_pct, l2_pct) and its dominant kernel's name.
- `--trace`: the full run's trace; where the verdict names no kernel for a phase, the kernel with the most GPU time
  inside the phase's window (the trace's `kernels` table) is used.

Matching: ncu's rows are split into phases at the marker kernels (the n-th segment after a marker is the n-th phase
of the short run). Without markers, each phase takes, in launch order, the rows whose name matches its kernel from
the verdict (or the trace) after names are cut to their base: no `void`, no template arguments, no parameter list.
Within a phase the main kernel is the one the verdict names, else the one with the most GPU time
(`gpu__time_duration.sum`), else the one with the most rows.

Output CSV columns: kernel, phase, metric, ncu_pct, solscope_pct, diff_pct_points (solscope - ncu, percentage
points; empty when either figure is unknown). ncu's figure is the mean over the main kernel's rows in the phase;
solscope's is the phase mean from the verdict (samples of the full run, 10 ms each).
`--rows` prints one summary line per phase as TAB-separated `check, result, text` (result PASS, FAIL or INFO) for
scripts/gpu-proof.sh. Exit codes: 0 done (also when nothing matched: the rows say so), 1 unreadable input,
2 bad command line. Standard library only.
"""

import argparse
import csv
import io
import json
import os
import sqlite3
import statistics
import sys
import tempfile

# ncu metric base name -> the verdict figure it is compared with. Several tensor names: which one a GPU knows
# depends on its chip and the ncu version; the kit asks ncu which it knows.
METRIC_FIGURE = {
    "sm__pipe_tensor_cycles_active": "tensor_pipe_pct",
    "sm__inst_executed_pipe_tensor": "tensor_pipe_pct",
    "sm__pipe_tensor_op_hmma_cycles_active": "tensor_pipe_pct",
    "sm__pipe_tensor_op_gmma_cycles_active": "tensor_pipe_pct",
    "sm__pipe_fma_cycles_active": "fma_pipe_pct",
    "dram__throughput": "dram_pct",
    "lts__t_sectors": "l2_pct",
}
METRIC_ORDER = list(METRIC_FIGURE)
SHORT_NAMES = {"sm__pipe_tensor_cycles_active": "tensor", "sm__inst_executed_pipe_tensor": "tensor_inst",
               "sm__pipe_tensor_op_hmma_cycles_active": "tensor_hmma",
               "sm__pipe_tensor_op_gmma_cycles_active": "tensor_gmma", "sm__pipe_fma_cycles_active": "fma",
               "dram__throughput": "dram", "lts__t_sectors": "l2"}
SUFFIX = ".avg.pct_of_peak_sustained_elapsed"
DURATION = "gpu__time_duration.sum"
NAME_COLUMNS = ("Kernel Name", "Function Name", "Name", "Demangled Name")


class InputError(Exception):
    pass


# ---------------------------------------------------------------------------------------------------------------
# Names


def base_name(name):
    """'void ns::kern<int, 4>(float*, int)' -> 'ns::kern'; nested <> and () are removed, as are spaces around."""
    s = (name or "").strip().replace("(anonymous namespace)::", "")
    if s.startswith("void "):
        s = s[5:]
    out = []
    depth_angle = depth_paren = 0
    i = 0
    while i < len(s):
        c = s[i]
        # operator<, operator() and the like are rare in kernel names; '<' after 'operator' is kept literally.
        if c == "<" and not s[:i].endswith("operator"):
            depth_angle += 1
        elif c == ">" and depth_angle > 0:
            depth_angle -= 1
        elif c == "(" and depth_angle == 0:
            depth_paren += 1
        elif c == ")" and depth_paren > 0:
            depth_paren -= 1
        elif depth_angle == 0 and depth_paren == 0:
            out.append(c)
        i += 1
    text = "".join(out).strip()
    if text.startswith("void "):
        text = text[5:]
    return " ".join(text.split())


def names_match(a, b):
    a, b = base_name(a), base_name(b)
    if not a or not b:
        return False
    return a == b or a in b or b in a


# ---------------------------------------------------------------------------------------------------------------
# ncu CSV


def number(text):
    if text is None:
        return None
    t = str(text).strip().replace(",", "")
    if t in ("", "n/a", "N/A", "nan", "NaN", "-"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if v == v and v not in (float("inf"), float("-inf")) else None


def read_ncu_rows(paths):
    """Every kernel row of the CSV blocks in `paths`, in file order: dicts with 'name', 'id' and metric values."""
    rows = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as err:
            raise InputError(f"cannot read {path}: {err}") from err
        header = None
        for line in lines:
            if not line.startswith('"'):
                continue  # ==PROF== lines, the workload's own output
            fields = next(csv.reader(io.StringIO(line)))
            if fields and fields[0] == "ID":
                header = fields
                continue
            if header is None or len(fields) != len(header):
                continue
            rec = dict(zip(header, fields))
            if number(rec.get("ID")) is None:
                continue  # the units row
            name = next((rec[c] for c in NAME_COLUMNS if c in rec), None)
            if name is None:
                continue
            row = {"id": int(number(rec["ID"])), "name": name, "metrics": {}}
            for col, val in rec.items():
                if "__" in col:
                    row["metrics"][col] = number(val)
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Phases and kernels


def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as err:
        raise InputError(f"cannot read the {what} {path}: {err}") from err


def verdict_phases(verdict):
    """name -> verdict phase dict; accepts the whole report or its declared_phases object."""
    if not isinstance(verdict, dict):
        return {}
    block = verdict.get("declared_phases", verdict)
    phases = block.get("phases") if isinstance(block, dict) else None
    return {p.get("name"): p for p in phases or [] if isinstance(p, dict)}


def trace_kernels(trace, phases):
    """name -> the kernel with the most GPU time inside each phase's window (of the full run's trace)."""
    out = {}
    if not trace or not os.path.exists(trace):
        return out
    try:
        con = sqlite3.connect(f"file:{trace}?mode=ro", uri=True, timeout=2)
    except sqlite3.Error:
        return out
    try:
        for p in phases:
            s, e = p.get("start_ns"), p.get("end_ns")
            if not isinstance(s, int) or not isinstance(e, int):
                continue
            row = con.execute(
                "SELECT name, SUM(MIN(end_ns, ?) - MAX(start_ns, ?)) AS t FROM kernels "
                "WHERE end_ns > ? AND start_ns < ? GROUP BY name ORDER BY t DESC LIMIT 1", (e, s, s, e)).fetchone()
            if row:
                out[p.get("name")] = row[0]
    except sqlite3.Error:
        pass
    finally:
        con.close()
    return out


def split_by_markers(rows, marker, count):
    """Segments of rows after each marker row; None when the rows hold fewer than `count` markers."""
    if not marker:
        return None
    idx = [i for i, r in enumerate(rows) if marker in r["name"]]
    if len(idx) < count:
        return None
    segments = []
    for n in range(count):
        stop = idx[n + 1] if n + 1 < len(idx) else len(rows)
        segments.append(rows[idx[n] + 1:stop])
    return segments


def split_by_names(rows, phases, kernel_names):
    """Without markers: each phase takes, in order, up to `iterations` rows matching its kernel name."""
    segments = []
    pos = 0
    for p in phases:
        want = kernel_names.get(p.get("name"))
        n = p.get("iterations") or 3
        seg = []
        if want:
            i = pos
            while i < len(rows) and len(seg) < n:
                if names_match(rows[i]["name"], want):
                    seg.append(rows[i])
                    pos = i + 1
                i += 1
        segments.append(seg)
    return segments


def main_kernel(segment, wanted):
    groups = {}
    for r in segment:
        groups.setdefault(base_name(r["name"]), []).append(r)
    if not groups:
        return None, []
    if wanted:
        for key, rs in groups.items():
            if names_match(key, wanted):
                return key, rs

    def weight(item):
        rs = item[1]
        dur = [r["metrics"].get(DURATION) for r in rs]
        dur = [d for d in dur if d is not None]
        return (sum(dur) if dur else -1.0, len(rs))

    key, rs = max(groups.items(), key=weight)
    return key, rs


def metric_columns(rows):
    cols = []
    for r in rows:
        for c in r["metrics"]:
            if c not in cols:
                cols.append(c)

    def order(c):
        base = c.split(".", 1)[0]
        return METRIC_ORDER.index(base) if base in METRIC_ORDER else len(METRIC_ORDER)

    return sorted((c for c in cols if c.split(".", 1)[0] in METRIC_FIGURE), key=order)


def fmt(v, digits=2):
    return "" if v is None else f"{v:.{digits}f}"


def join(ncu_paths, short_phases_path, verdict_path=None, trace=None):
    """Returns (csv rows as lists, summary rows (check, result, text), notes)."""
    rows = read_ncu_rows(ncu_paths)
    short = load_json(short_phases_path, "short-run phase file")
    phases = [p for p in short.get("phases", []) if isinstance(p, dict)]
    phases.sort(key=lambda p: p.get("order", 0))
    verdict = verdict_phases(load_json(verdict_path, "verdict")) if verdict_path else {}
    notes = []
    kernel_names = {}
    for p in phases:
        v = verdict.get(p.get("name")) or {}
        k = v.get("kernel") if isinstance(v.get("kernel"), dict) else {}
        if k.get("name"):
            kernel_names[p["name"]] = k["name"]
    missing = [p for p in phases if p.get("name") not in kernel_names]
    if missing and trace:
        for name, kname in trace_kernels(trace, list(verdict.values()) or phases).items():
            kernel_names.setdefault(name, kname)
    segments = split_by_markers(rows, short.get("marker"), len(phases))
    if segments is None:
        notes.append("no marker kernels in ncu's rows: phases matched by kernel name")
        segments = split_by_names(rows, phases, kernel_names)
    out = []
    summary = []
    cols = metric_columns(rows)
    for p, seg in zip(phases, segments):
        name = p.get("name")
        key, krows = main_kernel(seg, kernel_names.get(name))
        if key is None:
            summary.append((f"ncu {name}", "INFO", "no ncu rows matched this phase"))
            continue
        figures = (verdict.get(name) or {}).get("figures") or {}
        parts = []
        for col in cols:
            vals = [r["metrics"].get(col) for r in krows]
            vals = [v for v in vals if v is not None]
            ncu = statistics.mean(vals) if vals else None
            fig = figures.get(METRIC_FIGURE[col.split(".", 1)[0]])
            sol = float(fig) if isinstance(fig, (int, float)) and not isinstance(fig, bool) else None
            diff = sol - ncu if sol is not None and ncu is not None else None
            out.append([key, name, col, fmt(ncu), fmt(sol), fmt(diff)])
            short_col = SHORT_NAMES.get(col.split(".", 1)[0], col.split(".", 1)[0])
            parts.append(f"{short_col} {fmt(ncu, 1) or 'n/a'}/{fmt(sol, 1) or 'n/a'}"
                         + (f" ({diff:+.1f})" if diff is not None else ""))
        summary.append((f"ncu {name}", "INFO",
                        f"{key[:48]} x{len(krows)}: ncu/solscope % " + ", ".join(parts)))
    if not rows:
        summary.insert(0, ("ncu kernel rows", "FAIL", "no kernel rows in ncu's CSV"))
    else:
        matched = sum(1 for s in summary if not s[2].startswith("no ncu rows"))
        summary.insert(0, ("ncu kernel rows", "PASS" if matched else "FAIL",
                           f"{len(rows)} kernels profiled, {matched} of {len(phases)} phases matched"
                           + (f"; {notes[0]}" if notes else "")
                           + ("" if verdict else "; no solscope verdict to compare with")))
    return out, summary, notes


def write_csv(path, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "phase", "metric", "ncu_pct", "solscope_pct", "diff_pct_points"])
        w.writerows(rows)


# ---------------------------------------------------------------------------------------------------------------
# Self-test (no GPU, no ncu, no solscope)

GEMM_K = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cublas"
NEG_K = ("void at::native::vectorized_elementwise_kernel<4, at::native::neg_kernel_cuda(at::TensorIteratorBase&)"
         "::{lambda()#1}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
         "at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda(float)#1}, "
         "std::array<char*, 2ul>)")
GEMV_K = "void gemv2T_kernel_val<int, int, __nv_bfloat16, float, 128, 16, 4, 4, false>(cublasGemvParams<float>)"
SPLITK_K = "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16>(cublasLt::cublasSplitKParams<float>)"
MARK_K = "at::cuda::(anonymous namespace)::spin_kernel(long)"
RAND_K = "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4>(int, float*)"


def _selftest_csv(with_markers):
    cols = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Device", "CC",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed", DURATION,
            "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"]
    units = ["", "", "", "", "", "", "", "", "", "%", "nsecond", "%", "%", "%"]
    seq = [(RAND_K, 80, 1000, 20, 1, 0)]
    plan = [[(GEMM_K, 30, 1500000, 40, 1, 86), (GEMM_K, 32, 1500000, 41, 1, 88), (GEMM_K, 31, 1500000, 42, 1, 87)],
            [(NEG_K, 91, 5000000, 45, 2, 0)] * 3,
            [(GEMV_K, 70, 20000, 30, 5, 0), (SPLITK_K, 10, 2000, 5, 1, 0)] * 3,
            [(GEMV_K, 80, 90000, 30, 5, 0)] * 3,
            [(GEMV_K, 82, 50000, 30, 5, 0)] * 3]
    for seg in plan:
        if with_markers:
            seq.append((MARK_K, 0, 1000, 0, 0, 0))
        seq.extend(seg)
    if with_markers:
        seq.append((MARK_K, 0, 1000, 0, 0, 0))
    buf = io.StringIO()
    buf.write("==PROF== Connected to process 4242 (/usr/bin/python3)\n")
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(cols)
    w.writerow(units)
    for i, (name, dram, dur, l2, fma, tensor) in enumerate(seq):
        w.writerow([str(i), "4242", "python3", "127.0.0.1", name, "1", "7", "0", "9.0", f"{dram:.2f}",
                    f"{dur:,}", f"{l2:.2f}", f"{fma:.2f}", f"{tensor:.2f}"])
        if i == 2:
            buf.write("gpu_workload: phase gemm_bf16_8192: 0.01 s\n")
    buf.write("==PROF== Disconnected from process 4242\n")
    return buf.getvalue()


def _selftest_inputs(tmp, with_markers):
    names = ["gemm_bf16_8192", "copy_d2d_4gib", "decode_m8_4096x6144", "decode_m8_4096x28672", "decode_m8_14336x4096"]
    short = {"format": "solscope-phases-1", "mode": "short",
             "phases": [{"name": n, "order": i, "iterations": 3, "start_ns": 1000 + i, "end_ns": 2000 + i}
                        for i, n in enumerate(names)]}
    if with_markers:
        short["marker"] = "spin_kernel"
    figures = {
        "gemm_bf16_8192": ({"tensor_pipe_pct": 90.0, "fma_pipe_pct": 1.0, "dram_pct": 28.0, "l2_pct": 41.0}, GEMM_K),
        "copy_d2d_4gib": ({"tensor_pipe_pct": 0.0, "fma_pipe_pct": 2.0, "dram_pct": 89.5, "l2_pct": 44.0}, NEG_K),
        "decode_m8_4096x6144": ({"tensor_pipe_pct": None, "dram_pct": 66.0, "l2_pct": 31.0}, GEMV_K),
        "decode_m8_4096x28672": ({"tensor_pipe_pct": 0.0, "dram_pct": 79.0, "l2_pct": 30.0}, GEMV_K),
        "decode_m8_14336x4096": ({"tensor_pipe_pct": 0.0, "dram_pct": 80.0, "l2_pct": 30.0}, None),
    }
    verdict = {"report_version": 1, "declared_phases": {"file": "phases.json", "device": 0, "result": "PASS",
                                                         "phases": []}}
    for n, (fig, kname) in figures.items():
        verdict["declared_phases"]["phases"].append({
            "name": n, "start_ns": 0, "end_ns": 1, "samples": 200, "result": "INFO", "figures": fig,
            "kernel": {"name": kname, "calls": 100, "busy_pct": 95.0} if kname else None, "checks": []})
    paths = {}
    for key, text in (("csv", _selftest_csv(with_markers)), ("short", json.dumps(short)),
                      ("verdict", json.dumps(verdict))):
        paths[key] = os.path.join(tmp, f"{key}-{int(with_markers)}")
        with open(paths[key], "w", encoding="utf-8") as f:
            f.write(text)
    return paths


def selftest():
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    expect(base_name(NEG_K) == "at::native::vectorized_elementwise_kernel", f"base_name(neg) = {base_name(NEG_K)!r}")
    expect(base_name(GEMV_K) == "gemv2T_kernel_val", f"base_name(gemv) = {base_name(GEMV_K)!r}")
    expect(base_name(GEMM_K) == GEMM_K, "base_name keeps a plain name")
    expect(base_name(MARK_K) == "at::cuda::spin_kernel", f"base_name(marker) = {base_name(MARK_K)!r}")
    expect(names_match("gemv2T_kernel_val", GEMV_K), "a base name matches the full name")
    expect(not names_match("", GEMV_K), "an empty name matches nothing")
    expect(number("1,500,000") == 1500000.0 and number("n/a") is None and number("nan") is None, "number()")

    with tempfile.TemporaryDirectory(prefix="gpu-proof-ncu-selftest-") as tmp:
        for with_markers in (True, False):
            p = _selftest_inputs(tmp, with_markers)
            out, summary, notes = join([p["csv"]], p["short"], p["verdict"])
            label = "markers" if with_markers else "names"
            by = {(r[1], r[2].split(".", 1)[0]): r for r in out}
            gemm = by.get(("gemm_bf16_8192", "sm__pipe_tensor_cycles_active"))
            expect(gemm is not None and gemm[0] == GEMM_K, f"{label}: GEMM row {gemm}")
            if gemm:
                expect(gemm[3] == "87.00" and gemm[4] == "90.00" and gemm[5] == "3.00", f"{label}: GEMM figures {gemm}")
            copy = by.get(("copy_d2d_4gib", "dram__throughput"))
            expect(copy is not None and copy[3] == "91.00" and copy[5] == "-1.50", f"{label}: copy row {copy}")
            d1 = by.get(("decode_m8_4096x6144", "dram__throughput"))
            expect(d1 is not None and d1[0] == "gemv2T_kernel_val" and d1[3] == "70.00",
                   f"{label}: decode 4096x6144 main kernel is the GEMV, not the split-K reduce: {d1}")
            t1 = by.get(("decode_m8_4096x6144", "sm__pipe_tensor_cycles_active"))
            expect(t1 is not None and t1[4] == "" and t1[5] == "", f"{label}: unknown solscope figure stays empty {t1}")
            d2 = by.get(("decode_m8_4096x28672", "dram__throughput"))
            expect(d2 is not None and d2[3] == "80.00", f"{label}: decode 4096x28672 {d2}")
            d3 = by.get(("decode_m8_14336x4096", "dram__throughput"))
            if with_markers:
                expect(d3 is not None and d3[3] == "82.00", f"{label}: decode 14336x4096 {d3}")
                expect(not notes, f"{label}: notes {notes}")
                expect(summary[0][1] == "PASS" and "5 of 5" in summary[0][2], f"{label}: summary {summary[0]}")
            else:
                # No marker and no kernel name for the last phase: it cannot be matched, and says so.
                expect(d3 is None, f"{label}: decode 14336x4096 should be unmatched: {d3}")
                expect(summary[0][1] == "PASS" and "4 of 5" in summary[0][2] and notes, f"{label}: {summary[0]}")
            expect(all(len(r) == 6 for r in out), f"{label}: 6 columns")
            csv_path = os.path.join(tmp, f"out-{label}.csv")
            write_csv(csv_path, out)
            with open(csv_path, encoding="utf-8") as f:
                back = list(csv.reader(f))
            expect(back[0] == ["kernel", "phase", "metric", "ncu_pct", "solscope_pct", "diff_pct_points"],
                   f"{label}: CSV header {back[0]}")
            expect(len(back) == len(out) + 1, f"{label}: CSV rows")
        # Without a verdict: ncu figures, empty solscope columns.
        p = _selftest_inputs(tmp, True)
        out, summary, _ = join([p["csv"]], p["short"], None)
        expect(out and all(r[4] == "" for r in out), "no verdict: solscope column empty")
        expect("no solscope verdict" in summary[0][2], f"no verdict: summary {summary[0]}")
        # An empty CSV: a FAIL row, no exception.
        empty = os.path.join(tmp, "empty.csv")
        with open(empty, "w", encoding="utf-8") as f:
            f.write("==ERROR== Failed to profile\n")
        out, summary, _ = join([empty], p["short"], p["verdict"])
        expect(not out and summary[0][1] == "FAIL", f"empty CSV: {summary[:1]}")
        # A trace fallback: a phase without a verdict kernel gets the trace's dominant kernel in its window.
        trace = os.path.join(tmp, "t.sqlite")
        con = sqlite3.connect(trace)
        con.execute("CREATE TABLE kernels (id INTEGER, device INTEGER, start_ns INTEGER, end_ns INTEGER, name TEXT)")
        con.executemany("INSERT INTO kernels VALUES (?, 0, ?, ?, ?)",
                        [(1, 100, 150, "a"), (2, 150, 400, GEMV_K), (3, 500, 600, "b")])
        con.commit()
        con.close()
        got = trace_kernels(trace, [{"name": "x", "start_ns": 100, "end_ns": 450}])
        expect(got == {"x": GEMV_K}, f"trace fallback {got}")
    if failures:
        for f in failures:
            print(f"selftest FAIL: {f}", file=sys.stderr)
        return 1
    print("selftest PASS")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description="ncu vs solscope, per kernel and phase (the GPU proof kit, step 4)")
    p.add_argument("--ncu-csv", action="append", default=[], help="ncu --csv --page raw output (repeatable)")
    p.add_argument("--short-phases", help="phase file of gpu_workload.py --short")
    p.add_argument("--verdict", help="solscope report TRACE --phases FILE --json")
    p.add_argument("--trace", help="the full run's trace (kernel names where the verdict has none)")
    p.add_argument("--out", help="the CSV to write")
    p.add_argument("--rows", action="store_true", help="print TAB-separated summary rows for gpu-proof.sh")
    p.add_argument("--selftest", action="store_true", help="check this script on built-in data; needs nothing")
    args = p.parse_args(argv)
    if args.selftest:
        return selftest()
    if not args.ncu_csv or not args.short_phases or not args.out:
        p.error("--ncu-csv, --short-phases and --out are required (or --selftest)")
    verdict = args.verdict if args.verdict and os.path.exists(args.verdict) else None
    try:
        out, summary, _ = join(args.ncu_csv, args.short_phases, verdict, args.trace)
    except InputError as err:
        print(f"gpu_proof_ncu: error: {err}", file=sys.stderr)
        if args.rows:
            print(f"ncu join\tFAIL\t{err}")
        return 1
    write_csv(args.out, out)
    if args.rows:
        for check, result, text in summary:
            print(f"{check}\t{result}\t{' '.join(text.split())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
