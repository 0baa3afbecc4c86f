"""Benchmark: from a signal to the exit, once a million solutions have been found (issue 18).

    flock /tmp/cpmodel-bench.lock python benchmarks/stop_latency.py [--quick] [--found 1000000]

``rect 4x4 --top 3000 --all`` has 16,207,035 rectangles. Each case starts it
(auto, the backtracker sharded, the backtracker in one process, the
backtrack,cp cross-check) with stdout on a pseudo-terminal, as a person runs
it, or in a file, as a script does. stderr is always on a pseudo-terminal: its
progress line ("… 1,234,567 found …") says when the run has found ``--found``
solutions. Then the signal comes (SIGINT on a terminal, as Ctrl-C; SIGTERM
with a file, as ``timeout`` or ``docker stop``), and the clock runs until the
process has exited. Target: at most 2 s.

Before issue 18 every solution found was drawn as a rich box before the exit
(SIGINT after 5 s: exit after 140 s). Now a terminal gets the first 20 and the
last (cpmodel.show.gallery) and a file one compact line per solution, written
a batch at a time. ``--before DIR`` runs one terminal case on another checkout
for the side-by-side ratio, capped: the commit before issue 18, unpacked with
``git archive c2cc82e | tar -x -C DIR``.

Absolute seconds drift on a shared machine (the load average is recorded).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
FOUND = re.compile(rb"([\d,]+) found")
COMMAND = ["rect", "4x4", "--top", "3000", "--all"]
CASES = [  # (name, extra options, where stdout goes)
    ("auto (sharded)", [], "terminal"),
    ("auto (sharded)", [], "file"),
    ("backtrack sharded", ["--solver", "backtrack"], "terminal"),
    ("backtrack sharded", ["--solver", "backtrack"], "file"),
    ("backtrack, 1 process", ["--solver", "backtrack", "--jobs", "1"], "terminal"),
    ("backtrack, 1 process", ["--solver", "backtrack", "--jobs", "1"], "file"),
    ("cross-check backtrack,cp", ["--solver", "backtrack,cp"], "terminal"),
    ("cross-check backtrack,cp", ["--solver", "backtrack,cp"], "file"),
]
QUICK = {("auto (sharded)", "terminal"), ("auto (sharded)", "file"), ("backtrack, 1 process", "file")}


def _terminal(columns: int = 100) -> tuple[int, int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    return master, slave


def _default_signals() -> None:
    """In the child: SIGINT as a terminal delivers it. A shell's background job (``cmd &``)
    starts with SIGINT ignored, and cpmodel keeps an ignored signal ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def measure(extra: list[str], where: str, found: int, checkout: Path = ROOT, cap: float = 300.0) -> dict:
    """Start the run, wait for ``found`` solutions, signal it, time the exit."""
    master, slave = _terminal()
    out_file = tempfile.NamedTemporaryFile(prefix="stop_latency_", suffix=".txt", delete=False) if where == "file" else None
    signum = signal.SIGINT if where == "terminal" else signal.SIGTERM
    env = dict(os.environ, PYTHONPATH=str(checkout), COLUMNS="100")
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", *COMMAND, *extra], cwd=tempfile.gettempdir(),
                            stdin=subprocess.DEVNULL, stdout=out_file or slave, stderr=slave, env=env,
                            start_new_session=True,  # its own group: the benchmark's cleanup cannot hit anyone else
                            preexec_fn=_default_signals)
    os.close(slave)
    seen, tail, sent, reached, last_found = 0, b"", None, None, 0
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 1 << 16)
                except OSError:
                    data = b""
                if not data:
                    break
                seen += len(data)
                tail = (tail + data)[-200_000:]
                counts = FOUND.findall(ANSI.sub(b"", data))
                if counts:
                    last_found = int(counts[-1].replace(b",", b""))
            now = time.monotonic()
            if sent is None and last_found >= found:
                reached = now - started
                proc.send_signal(signum)
                sent = now
            if proc.poll() is not None and not ready:
                break
            if sent is None and now - started > cap:  # never reached: report it, do not hang
                proc.send_signal(signum)
                sent, reached = now, None
            if sent is not None and now - sent > cap:
                os.killpg(proc.pid, signal.SIGKILL)
                break
        code = proc.wait(timeout=30)
        exited = time.monotonic()
    finally:
        os.close(master)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = ANSI.sub(b"", tail).decode("utf-8", "replace").replace("\r", "")
    file_bytes = file_lines = 0
    if out_file is not None:
        out_file.close()
        path = Path(out_file.name)
        data = path.read_bytes()
        file_bytes, file_lines = len(data), data.count(b"\n")
        text = data[-4000:].decode("utf-8", "replace") + text
        path.unlink()
    summary = re.findall(r"([\d,]+) rectangles\s*·\s*(?:([\d,]+) shown\s*·\s*)?(?:search complete|stopped)", text)
    total, shown = summary[-1] if summary else ("", "")
    return {"found_at_signal": last_found, "seconds_to_reach": reached, "signal": signal.Signals(signum).name,
            "exit_seconds": exited - sent if sent else None, "capped": exited - sent > cap if sent else None,
            "exit_code": code, "summary_found": int(total.replace(",", "")) if total else None,
            "summary_shown": int(shown.replace(",", "")) if shown else None,
            "stdout_bytes": file_bytes or None, "stdout_lines": file_lines or None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three cases, not eight")
    parser.add_argument("--found", type=int, default=1_000_000, help="solutions found before the signal")
    parser.add_argument("--before", metavar="CHECKOUT", help="also run auto on a terminal from this checkout (capped)")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds after the signal before a case is killed")
    parser.add_argument("--out", help="JSON results (default: results/stop_latency[.quick].json)")
    args = parser.parse_args()
    out = Path(args.out or Path(__file__).parent / "results" / f"stop_latency{'.quick' if args.quick else ''}.json")
    console = Console(width=max(Console().width, 150))  # the table's nine columns, also in a log file
    rows = []
    plan = [(name, extra, where, ROOT) for name, extra, where in CASES if not args.quick or (name, where) in QUICK]
    if args.before:
        plan.insert(0, ("auto (sharded), before", [], "terminal", Path(args.before)))
    for name, extra, where, checkout in plan:
        console.print(f"{name} → {where} …", style="cyan")
        row = {"case": name, "options": extra, "stdout": where, "checkout": str(checkout),
               **measure(extra, where, args.found, checkout, args.cap)}
        rows.append(row)
        console.print(row, highlight=False)
    table = Table(title=f"signal to exit after {args.found:,} found · {' '.join(COMMAND)} · target ≤ 2 s")
    for column in ("case", "stdout", "signal", "found at signal", "reached after", "exit after", "exit code",
                   "summary: found / shown", "stdout lines"):
        table.add_column(column, justify="left" if column in ("case", "stdout", "signal") else "right")
    for r in rows:
        exit_s = "" if r["exit_seconds"] is None else f"{'> ' if r['capped'] else ''}{r['exit_seconds']:.2f} s"
        found = f"{r['found_at_signal']:,}" if r["seconds_to_reach"] is not None else "not reached"
        table.add_row(r["case"], r["stdout"], r["signal"], found,
                      "" if r["seconds_to_reach"] is None else f"{r['seconds_to_reach']:.1f} s", exit_s,
                      str(r["exit_code"]),
                      "" if r["summary_found"] is None else f"{r['summary_found']:,} / {r['summary_shown'] or 'all'}",
                      f"{r['stdout_lines']:,}" if r["stdout_lines"] else "")
    after = [r["exit_seconds"] for r in rows if r["checkout"] == str(ROOT) and r["exit_seconds"] is not None]
    before = [r["exit_seconds"] for r in rows if r["checkout"] != str(ROOT) and r["exit_seconds"] is not None]
    notes = [f"worst exit {max(after):.2f} s (target 2 s)"] if after else []
    if before and after:
        notes.append(f"before: {before[0]:.1f} s{' (capped)' if rows[0]['capped'] else ''}, "
                     f"{before[0] / max(after[0], 1e-6):.0f}× the same case now")
    table.caption = " · ".join(notes)
    console.print(table)
    doc = {"benchmark": "stop_latency", "command": COMMAND, "found": args.found, "load_average": os.getloadavg(),
           "cpus": os.cpu_count(), "rows": rows}
    out.write_text(json.dumps(doc, indent=1) + "\n")
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
