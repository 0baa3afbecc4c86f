"""Benchmark: the lesson notebooks, full run beside the test suite's short run.

    python benchmarks/lessons.py [--overwrite] [--skip-quick]

The test command runs each lesson with ``CPMODEL_LESSONS=quick`` (smaller
inputs, shorter limits: docs/notebooks/conftest.py). The full run is the one a
reader sees: its outputs are stored in the notebooks. This script runs each
notebook both ways, side by side in the same run, top to bottom in a fresh
kernel (nbclient, as nbmake does), and reports the seconds and their ratio.
``--overwrite`` stores the full run's outputs back into the notebooks (how to
refresh them after changing a lesson). It writes benchmarks/results/lessons.json.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))


def execute(path: Path, scale: str) -> tuple[nbformat.NotebookNode, float]:
    """The notebook run top to bottom at this scale, and the seconds it took."""
    notebook = nbformat.read(path, as_version=4)
    os.environ["CPMODEL_LESSONS"] = scale  # the kernel inherits it
    started = time.perf_counter()
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return notebook, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--overwrite", action="store_true", help="store the full run's outputs in the notebooks")
    parser.add_argument("--skip-quick", action="store_true", help="run the full lessons only")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "lessons.json"))
    args = parser.parse_args()
    rows = []
    for path in NOTEBOOKS:
        full, full_seconds = execute(path, "full")
        quick_seconds = None if args.skip_quick else execute(path, "quick")[1]
        if args.overwrite:
            nbformat.write(full, path)
        rows.append({"notebook": path.name, "full_s": round(full_seconds, 1),
                     "quick_s": None if quick_seconds is None else round(quick_seconds, 1)})
    table = Table(title="lessons: full run (stored) beside the test suite's quick run")
    for column in ("notebook", "full s", "quick s", "quick / full"):
        table.add_column(column)
    for row in rows:
        ratio = f"{row['quick_s'] / row['full_s']:.2f}" if row["quick_s"] is not None else "-"
        table.add_row(row["notebook"], f"{row['full_s']:.1f}", str(row["quick_s"] or "-"), ratio)
    Console().print(table)
    Path(args.out).write_text(json.dumps({"cores": os.cpu_count(), "lessons": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
