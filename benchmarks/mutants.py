"""Does the test suite catch real faults? A dozen hand-made mutants, each run against the suite.

Each mutant is one small edit of the kind a tired engineer makes: a check
dropped from the validator, a constraint weakened in a model, a merge that
forgets a shard, an exit code or a JSON key changed in the CLI. The script
applies one mutant at a time to a checkout, runs the test suite there with
``-x`` (a killed mutant stops at its first failing test) and restores the file.
A mutant is *killed* when a test fails, and fails again when run alone on the
same mutant; a test that then passes is a flake, noted, and the suite runs on
without it. A mutant *survives* when the suite passes.

Run it before and after a change to the tests (issue 29): every mutant the old
suite killed must still be killed. ``--root`` names the checkout whose tests
run, so the old suite can be measured from a git worktree of the old commit:

    git worktree add /tmp/before <old commit>
    python benchmarks/mutants.py --root /tmp/before --label before
    python benchmarks/mutants.py --label after

It writes ``benchmarks/results/mutants-<label>.json`` and prints a table.
The order is fixed and nothing is random, so two runs apply the same mutants.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # relative to the checkout
    old: str  # replaced once, the first occurrence
    new: str


MUTANTS = (
    # -- the validator: the last word on every answer
    Mutant("validator: columns not checked", "cpmodel/core/validate.py",
           "if w not in col_set]", "if w not in col_set and False]"),
    Mutant("validator: two islands pass", "cpmodel/core/validate.py",
           "if len(islands) > 1:", "if len(islands) > 2:"),
    Mutant("validator: short Wordscapes words pass", "cpmodel/core/validate.py",
           "if len(word) < spec.min_len:", "if len(word) < spec.min_len - 1:"),
    Mutant("validator: a word used twice passes --distinct", "cpmodel/core/validate.py",
           "repeated = sorted({w for w in words if words.count(w) > 1})",
           "repeated = sorted({w for w in words if words.count(w) > 2})"),
    # -- the engines: models, the backtracker, the race and the merge
    Mutant("CP-SAT rectangle: the table drops a word", "cpmodel/models/rectangle.py",
           "model.add_allowed_assignments(cells, [_codes(w) for w in words])",
           "model.add_allowed_assignments(cells, [_codes(w) for w in words[1:]])"),
    Mutant("CP-SAT rectangle: a stopped search claims it finished", "cpmodel/models/rectangle.py",
           "exhausted = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and",
           "exhausted = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE, cp_model.UNKNOWN) and"),
    # equivalent, as it turned out: the balances sum to 0 on both sides (Σ occ = N = N·Σ root),
    # so "≤" at every cell forces "=" at every cell; no test can kill it
    Mutant("Bananagrams: the flow may lose units (islands)", "cpmodel/models/bananagrams.py",
           "model.add(inflow - outflow == occ[v[0]][v[1]] - n * root[v])",
           "model.add(inflow - outflow <= occ[v[0]][v[1]] - n * root[v])"),
    Mutant("backtracker: the last letter of each prefix is never tried", "heuristics/rectangle.py",
           'letters = trie.get(prefix, "")', 'letters = trie.get(prefix, "")[:-1]'),
    Mutant("race: any complete result wins", "cpmodel/run/portfolio.py",
           "return registry.is_exact(job.puzzle, result.solver) or result.status == FOUND", "return True"),
    Mutant("shards: the merge keeps only the last shard's count", "cpmodel/run/shards.py",
           "self.count += result.count", "self.count = result.count"),
    # -- the CLI: exit codes and the JSON document
    Mutant("CLI: bad input exits 1", "cpmodel/commands/common.py",
           "EXIT_DISAGREE, EXIT_BAD_INPUT, EXIT_INVALID_LAYOUT = 1, 2, 3",
           "EXIT_DISAGREE, EXIT_BAD_INPUT, EXIT_INVALID_LAYOUT = 1, 1, 3"),
    Mutant("CLI: Ctrl-C exits 0", "cpmodel/commands/common.py",
           "EXIT_INTERRUPTED, EXIT_BROKEN_PIPE, EXIT_TERMINATED = 130, 141, 143",
           "EXIT_INTERRUPTED, EXIT_BROKEN_PIPE, EXIT_TERMINATED = 0, 141, 143"),
    Mutant("JSON: complete ignores engines that never ran", "cpmodel/show/documents.py",
           'doc["complete"] = all_ran and all(r.complete for r in results)',
           'doc["complete"] = all(r.complete for r in results)'),
)


def pytest_run(root: Path, args: list[str], timeout: float) -> tuple[int | None, str]:
    """(exit code or None on a time-out, the first failing test's id)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    try:
        proc = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "COLUMNS": "1000"})  # a summary line never cuts a test's id
    except subprocess.TimeoutExpired:
        return None, ""
    failed = next((line.split(" ")[1] for line in proc.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))), "")
    failed = failed.split("@")[0]  # xdist's "@group" suffix is no test id: run alone, it would match nothing
    return proc.returncode, failed


def run_suite(root: Path, mutant: Mutant, workers: int, timeout: float,
              deselect: list[str]) -> tuple[str, float, str, list[str]]:
    """(killed | survived | timeout, seconds, the killing test, the flakes passed over).

    A failing test counts only if, run alone after the machine settles, it
    fails again on the mutant and passes on the original code: otherwise it is
    a flake (it fails under load, not because of the mutant), and the suite
    runs on without it."""
    started, flakes = time.perf_counter(), []
    while True:
        left_out = [f"--deselect={test}" for test in deselect + flakes]
        code, failed = pytest_run(root, ["-x", "-n", str(workers), *left_out], timeout)
        if code is None:
            return "timeout", time.perf_counter() - started, "", flakes
        if code == 0:
            return "survived", time.perf_counter() - started, "", flakes
        if not failed:  # a collection or usage error: the mutant broke the import
            return "killed", time.perf_counter() - started, "(collection)", flakes
        time.sleep(5)  # let the aborted run's children end
        on_mutant, _ = pytest_run(root, ["-n", "0", "--no-cov", failed], timeout)
        with original_code(root, mutant):
            on_original, _ = pytest_run(root, ["-n", "0", "--no-cov", failed], timeout)
        if on_mutant != 0 and on_original == 0:
            return "killed", time.perf_counter() - started, failed, flakes
        flakes.append(failed)


@contextlib.contextmanager
def original_code(root: Path, mutant: Mutant):
    """The mutant taken out for a while, then put back."""
    path = root / mutant.path
    mutated = path.read_text()
    path.write_text(mutated.replace(mutant.new, mutant.old, 1))
    try:
        yield
    finally:
        path.write_text(mutated)


def apply(root: Path, mutant: Mutant) -> str:
    """Write the mutant into the checkout; the original text, to restore."""
    path = root / mutant.path
    original = path.read_text()
    if mutant.old not in original:
        raise SystemExit(f"error: mutant {mutant.name!r} no longer applies to {mutant.path}")
    path.write_text(original.replace(mutant.old, mutant.new, 1))
    return original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout whose suite runs")
    parser.add_argument("--label", default="after", help="names the JSON file: mutants-LABEL.json")
    parser.add_argument("--only", type=int, nargs="*", help="run these mutants (1-based)")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers")
    parser.add_argument("--timeout", type=float, default=900, help="seconds for one suite run")
    parser.add_argument("--deselect", action="append", default=[],
                        help="a test to leave out (a known flake would kill every mutant by itself)")
    args = parser.parse_args()
    console, rows = Console(stderr=True), []
    chosen = [(k, m) for k, m in enumerate(MUTANTS, 1) if not args.only or k in args.only]
    for number, mutant in chosen:
        original = apply(args.root, mutant)
        try:
            outcome, seconds, failed, flakes = run_suite(args.root, mutant, args.workers, args.timeout, args.deselect)
        finally:
            (args.root / mutant.path).write_text(original)
        rows.append({"mutant": number, "name": mutant.name, "path": mutant.path, "outcome": outcome,
                     "seconds": round(seconds, 1), "killed_by": failed, "flakes": flakes})
        console.print(f"{number:>2} {mutant.name}: {outcome} in {seconds:.0f} s {failed} flakes: {flakes}",
                      highlight=False)
    table = Table(title=f"mutation sample ({args.label}): suite at {args.root}")
    for column in ("#", "mutant", "outcome", "s", "killed by (fails again alone)"):
        table.add_column(column)
    for row in rows:
        table.add_row(str(row["mutant"]), row["name"], row["outcome"], f"{row['seconds']:.0f}", row["killed_by"])
    Console().print(table)
    killed = sum(row["outcome"] == "killed" for row in rows)
    print(f"killed {killed} of {len(rows)}")
    out = HERE / "results" / f"mutants-{args.label}.json"
    out.write_text(json.dumps({"root": str(args.root), "deselected": args.deselect, "killed": killed,
                               "mutants": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
