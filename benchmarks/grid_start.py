"""Benchmark: ``grid BOARD`` as a whole process, against the floors beside it.

    python benchmarks/grid_start.py --dict ENABLE2K [--runs 10]

A user who types ``python -m cpmodel grid BOARD`` waits for the interpreter,
the CLI's imports, the word list, one board's walk and the table. Each board
is timed as that whole process, interleaved in the same rounds with:

* ``python -c pass``: the interpreter's own start, a floor no command beats;
* ``grid --score-file`` of the same one board: the compiled kernel's route,
  whose numba import and cached-code load dominate a single board;
* ``grid BOARD`` again with ``PYTHONDONTWRITEBYTECODE=1``, as on a machine
  that never keeps byte code (this sandbox sets it): every module compiled
  at every start.

Ratios to the floor drift less than seconds on a shared machine; the words
and totals are asserted equal between the two routes and do not drift at all.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]

BOARDS = {  # ENABLE2K's best known boards are the slowest to list: the most words and paths
    "4x4 best (3,625)": "perslatgsineters",
    "5x5 best known (10,406)": "ligdr/manes/ietil/dsrac/sepes",
    "4x4 dice, seed 1": None,  # grid --random --seed 1
}
TARGET_SECONDS = 0.5


# Python's default is to write byte code on first import (a pip install compiles it too);
# a machine that sets PYTHONDONTWRITEBYTECODE compiles cpmodel's modules at every start.
USER_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], env=USER_ENV) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return seconds, proc.stdout


def grid_board(board: str | None, dict_path: str, *extra: str) -> list[str]:
    """The command a user types (the rich table), or with ``--json`` to read the words back."""
    which = ["--random", "--seed", "1"] if board is None else [board]
    return [sys.executable, "-m", "cpmodel", "grid", *which, "--dict", dict_path, *extra]


def commands(board: str | None, dict_path: str, board_file: Path) -> dict[str, list[str]]:
    python = [sys.executable]
    return {"python -c pass": python + ["-c", "pass"],
            "grid BOARD": grid_board(board, dict_path),
            "grid --score-file (kernel)": python + ["-m", "cpmodel", "grid", "--score-file", str(board_file),
                                                    "--dict", dict_path]}


NO_BYTE_CODE = "grid BOARD, no byte code kept"


def measure(label: str, board: str | None, dict_path: str, runs: int) -> dict:
    """``runs`` interleaved rounds of the three commands; medians, maxima and the totals."""
    with tempfile.TemporaryDirectory() as tmp:
        doc = json.loads(timed(grid_board(board, dict_path, "--json"))[1])  # also warms the disk and byte-code caches before the clock
        board_file = Path(tmp) / "board.txt"
        board_file.write_text(doc["board"] + "\n")
        argvs = commands(board, dict_path, board_file)
        timed(argvs["grid --score-file (kernel)"])  # numba's cache written before the clock
        seconds = {name: [] for name in argvs}
        kernel_total = None
        seconds[NO_BYTE_CODE] = []
        for _ in range(runs):
            for name, argv in argvs.items():
                took, out = timed(argv)
                seconds[name].append(took)
                if name == "grid --score-file (kernel)":
                    kernel_total = int(out.split()[0])
            seconds[NO_BYTE_CODE].append(timed(argvs["grid BOARD"], dict(USER_ENV, PYTHONDONTWRITEBYTECODE="1"))[0])
    assert kernel_total == doc["total"], f"{label}: the walk says {doc['total']}, the kernel {kernel_total}"
    floor = statistics.median(seconds["python -c pass"])
    rows = {name: {"median_s": round(statistics.median(s), 3), "max_s": round(max(s), 3),
                   "vs_floor": round(statistics.median(s) / floor, 2)} for name, s in seconds.items()}
    return {"board": label, "notation": doc["board"], "words": doc["count"], "total": doc["total"], "runs": runs,
            "commands": rows, "met": rows["grid BOARD"]["median_s"] <= TARGET_SECONDS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dict", required=True, help="word list (ENABLE2K: hybrid-boggle's wordlists/enable2k.txt)")
    parser.add_argument("--runs", type=int, default=10, help="interleaved rounds per board")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "grid_start.json"))
    args = parser.parse_args()
    results = {"dict": os.path.basename(args.dict), "cores": os.cpu_count(), "target_s": TARGET_SECONDS,
               "boards": [measure(label, board, args.dict, args.runs) for label, board in BOARDS.items()]}
    table = Table(title=f"grid BOARD as a whole process, {args.runs} interleaved rounds (target ≤ {TARGET_SECONDS} s)")
    for h in ("board", "words", "total", "command", "median s", "max s", "× python -c pass"):
        table.add_column(h, justify="left" if h in ("board", "command") else "right")
    for b in results["boards"]:
        for name, r in b["commands"].items():
            table.add_row(b["board"], f"{b['words']:,}", f"{b['total']:,}", name, f"{r['median_s']:.3f}",
                          f"{r['max_s']:.3f}", f"{r['vs_floor']:.1f}")
    Console(width=140).print(table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
