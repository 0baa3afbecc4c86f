"""Benchmark: does every command end within its --time-limit (issue 30)?

    flock /tmp/cpmodel-bench.lock python benchmarks/time_limits.py [--quick] [--before CHECKOUT]

Each case is a whole command, run as a user runs it (``python -m cpmodel …
--json``, default word list) on a search far longer than its limit. The clock
is the process's wall time, from start to exit. Target: at most the limit +
max(1 s, 10 %), with ``stopped_by: "time-limit"`` (a case whose search ends
on its own first, such as the familiar-words default, only has to end in
time). Before issue 30, ``rect 5x6 --count --time-limit 2`` took 4.4 s and
``--time-limit 5`` 10.2 s: the limit counted from the search's start, after
the word list, the tables and the worker processes, and stopped shards were
waited for.

``--before DIR`` runs the same cases on another checkout, side by side, for
the ratio (``git archive 8411ca9 | tar -x -C DIR``: main before the fix).
Absolute seconds drift on a shared machine (the load average is recorded);
the pass/fail against the limit is what counts.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
CASES = [  # (name, command line after "python -m cpmodel")
    ("rect familiar (auto)", "rect 6x6"),
    ("rect --limit 1 (auto)", "rect 6x6 --limit 1"),
    ("rect --count (auto, sharded)", "rect 5x6 --count"),
    ("rect --count backtrack", "rect 5x6 --count --solver backtrack"),
    ("rect --count backtrack, 1 process", "rect 5x6 --count --solver backtrack --jobs 1"),
    ("rect --count cp", "rect 5x6 --count --solver cp"),
    ("rect --count cpsat", "rect 5x6 --count --solver cpsat"),
    ("rect --all both", "rect 5x6 --all --solver both"),
    ("rect --best (auto)", "rect 6x6 --best"),
    ("rect --best cpsat", "rect 6x6 --best --solver cpsat"),
    ("wordscapes --count cpsat", "wordscapes {board} aeinrstlpcd --count --solver cpsat"),
    ("banana 40 tiles cpsat", "banana --draw 40 --seed 3 --solver cpsat"),
    ("banana 30 tiles both", "banana --draw 30 --seed 3 --solver both"),
    ("banana --compact", "banana --draw 30 --seed 3 --compact"),
    ("banana --game", "banana --game --seed 1 --players 1"),
    ("grid --best 4x4", "grid --best 4x4"),
    ("grid --best 5x5, 1 process", "grid --best 5x5 --jobs 1"),
    ("grid --prove 3x3", "grid --best 3x3 --prove"),
    ("compare", "compare"),
]
QUICK = {"rect --count (auto, sharded)", "rect --count cpsat", "banana --compact", "grid --prove 3x3", "compare"}
WORDSCAPES_BOARD = "........\n........\n........\n........\n........\n"  # open 5x8: far too many fills


def allowed(limit: float) -> float:
    return limit + max(1.0, 0.1 * limit)


def measure(command: str, limit: float, checkout: Path, board: str, cap: float) -> dict:
    """Run one case to its end (killed at ``cap`` seconds); its wall time and the document's stopped_by."""
    argv = [sys.executable, "-m", "cpmodel", *command.format(board=board).split(), "--time-limit", str(limit), "--json"]
    env = dict(os.environ, PYTHONPATH=str(checkout), COLUMNS="100")
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=tempfile.gettempdir(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, start_new_session=True, text=True)
    try:
        out, _ = proc.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    seconds = time.monotonic() - started
    try:
        doc = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    except json.JSONDecodeError:
        doc = {}
    stopped = doc.get("stopped_by")
    if command.startswith("compare"):  # one document for the suite; each row says what stopped it
        stopped = stopped or ("time-limit" if any(row.get(name, {}).get("stopped_by") == "time-limit"
                                                  for row in doc.get("rows", []) for name in row.get("engines", []))
                              else None)
    return {"seconds": round(seconds, 2), "exit_code": proc.returncode, "stopped_by": stopped,
            "status": doc.get("status"), "within": seconds <= allowed(limit)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{len(QUICK)} cases, limit 2 s only")
    parser.add_argument("--limits", default="2,5", help="the --time-limit values (default 2,5)")
    parser.add_argument("--before", metavar="CHECKOUT", help="also run every case on this checkout, side by side")
    parser.add_argument("--cases", help="only the cases whose name holds one of these (comma-separated)")
    parser.add_argument("--out", help="JSON results (default: results/time_limits[.quick].json)")
    args = parser.parse_args()
    limits = [2.0] if args.quick else [float(x) for x in args.limits.split(",")]
    out = Path(args.out or Path(__file__).parent / "results" / f"time_limits{'.quick' if args.quick else ''}.json")
    console = Console(width=max(Console().width, 140))
    folder = Path(tempfile.mkdtemp(prefix="time_limits_"))
    board = folder / "open.txt"
    board.write_text(WORDSCAPES_BOARD)
    checkouts = [("now", ROOT)] + ([("before", Path(args.before).resolve())] if args.before else [])
    rows = []
    for name, command in CASES:
        if (args.quick and name not in QUICK) or (args.cases and not any(c in name for c in args.cases.split(","))):
            continue
        for limit in limits:
            row: dict = {"case": name, "command": command, "limit": limit, "allowed": allowed(limit)}
            for label, checkout in checkouts:  # side by side: the same case on each checkout, back to back
                row[label] = measure(command, limit, checkout, str(board), cap=allowed(limit) * 4 + 30)
            rows.append(row)
            console.print(row, highlight=False)
    console.print(_table(rows, checkouts))
    doc = {"benchmark": "time_limits", "load_average": os.getloadavg(), "cpus": os.cpu_count(), "rows": rows}
    out.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(f"wrote {out}")


def _table(rows: list[dict], checkouts) -> Table:
    table = Table(title="whole-command seconds against --time-limit (target: limit + max(1 s, 10 %), stopped_by "
                        "time-limit)")
    table.add_column("case")
    table.add_column("limit", justify="right")
    table.add_column("allowed", justify="right")
    for label, _ in checkouts:
        table.add_column(f"{label}: s", justify="right")
        table.add_column(f"{label}: stopped_by")
    if len(checkouts) == 2:
        table.add_column("before / now", justify="right")
    for r in rows:
        cells = [r["case"], f"{r['limit']:g}", f"{r['allowed']:.1f}"]
        for label, _ in checkouts:
            m = r[label]
            mark = "" if m["within"] else " ✗"
            cells += [f"{m['seconds']:.2f}{mark}", str(m["stopped_by"])]
        if len(checkouts) == 2:
            cells.append(f"{r['before']['seconds'] / max(r['now']['seconds'], 1e-6):.2f}×")
        table.add_row(*cells)
    over = [r["now"]["seconds"] - r["limit"] for r in rows]
    misses = [r["case"] + f" ({r['limit']:g} s)" for r in rows if not r["now"]["within"]]
    table.caption = (f"{len(rows) - len(misses)}/{len(rows)} within; worst overshoot {max(over):.2f} s; "
                     f"median {statistics.median(over):.2f} s" + (f" · misses: {', '.join(misses)}" if misses else ""))
    return table


if __name__ == "__main__":
    main()
