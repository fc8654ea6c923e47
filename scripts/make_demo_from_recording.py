#!/usr/bin/env python3
"""Makes the bundled demo trace (data/demo-trace.sqlite) from a trace recorded on a GPU, such as the GPU proof kit's
workload trace (docs/gpu-proof.md).

  scripts/make_demo_from_recording.py RECORDING OUT [--max-seconds 120] [--kernels-per-name 300] [--note TEXT]

Every sample of the first --max-seconds of the recording is kept as it was recorded (the phases stay whole), on
every GPU. The kernel log keeps at most --kernels-per-name calls of each kernel name, evenly spaced over its
calls (a real workload logs hundreds of thousands), so that the demo stays small; the meta table says so
(`kernels_thinned`, `derived_from`). A recording marked synthetic is refused: the demo is real data or nothing.
Standard library only. Exit codes: 0 done; 1 the recording cannot be used (the message says why); 2 usage.
"""

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile

NS_PER_S = 1_000_000_000


def fail(message):
    print(f"make_demo_from_recording: {message}", file=sys.stderr)
    return 1


def meta_of(db):
    return dict(db.execute("SELECT key, value FROM meta").fetchall())


def thin_kernels(db, per_name):
    """Keeps at most `per_name` calls of each kernel name, evenly spaced in start order; returns (kept, before)."""
    before = db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
    names = db.execute("SELECT name, COUNT(*) FROM kernels GROUP BY name").fetchall()
    for name, count in names:
        if count <= per_name:
            continue
        ids = [row[0] for row in db.execute("SELECT id FROM kernels WHERE name = ? ORDER BY start_ns", (name,))]
        keep = {ids[(i * count) // per_name] for i in range(per_name)}
        db.executemany("DELETE FROM kernels WHERE id = ?", [(i,) for i in ids if i not in keep])
    kept = db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
    return kept, before


def make_demo(recording, out, max_seconds, per_name, note):
    with sqlite3.connect(f"file:{recording}?mode=ro", uri=True) as src:
        meta = meta_of(src)
        if meta.get("synthetic", "0") != "0":
            raise ValueError(f"{recording} is marked synthetic (meta synthetic = {meta.get('synthetic')})")
        if src.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 0:
            raise ValueError(f"{recording} holds no sample")
    work_dir = tempfile.mkdtemp(prefix="solscope-demo-")
    work = os.path.join(work_dir, "demo.sqlite")
    try:
        with sqlite3.connect(f"file:{recording}?mode=ro", uri=True) as src, sqlite3.connect(work) as dst:
            src.backup(dst)
        db = sqlite3.connect(work)
        start = db.execute("SELECT MIN(t_start_ns) FROM samples").fetchone()[0]
        end = start + int(max_seconds * NS_PER_S)
        cut = db.execute("SELECT id FROM samples WHERE t_start_ns >= ?", (end,)).fetchall()
        db.executemany("DELETE FROM sample_counters WHERE sample_id = ?", cut)
        db.execute("DELETE FROM samples WHERE t_start_ns >= ?", (end,))
        kernel_log = db.execute("SELECT name FROM sqlite_master WHERE name = 'kernels'").fetchone() is not None
        kept = before = 0
        if kernel_log:
            db.execute("DELETE FROM kernels WHERE start_ns >= ?", (end,))
            kept, before = thin_kernels(db, per_name)
        rows = {"derived_from": f"{os.path.basename(recording)}: the first {max_seconds:g} s of every sample"
                                f" (scripts/make_demo_from_recording.py)"}
        if kernel_log:
            rows["kernels_thinned"] = (f"{kept} of {before} kernel calls kept, at most {per_name} per name, evenly"
                                       " spaced; kernel SOL and time shares come from the calls kept")
        if note:
            rows["demo_note"] = note
        db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", rows.items())
        db.commit()
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("VACUUM")
        db.close()
        shutil.move(work, out)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    return kept, before


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("recording", help="a trace recorded on a GPU (solscope run / record)")
    p.add_argument("out", help="the demo trace to write (replaced)")
    p.add_argument("--max-seconds", type=float, default=120.0, help="seconds of samples kept (default 120)")
    p.add_argument("--kernels-per-name", type=int, default=300, help="kernel calls kept per name (default 300)")
    p.add_argument("--note", default="", help="a line for the meta key demo_note")
    args = p.parse_args(argv)
    if not 1 <= args.max_seconds <= 86400 or not 1 <= args.kernels_per_name <= 1_000_000:
        p.error("--max-seconds 1-86400, --kernels-per-name 1-1000000")
    try:
        kept, before = make_demo(args.recording, args.out, args.max_seconds, args.kernels_per_name, args.note)
    except (ValueError, sqlite3.Error, OSError) as err:
        return fail(str(err))
    print(f"make_demo_from_recording: wrote {args.out} ({os.path.getsize(args.out)} bytes; {kept} of {before}"
          " kernel calls kept)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
