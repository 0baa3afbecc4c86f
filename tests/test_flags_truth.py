"""Flags that tell the truth (issue 23): ``complete`` means every engine asked for completed,
``stopped_by`` names the first real cause; a heuristic search never claims completeness."""

from __future__ import annotations

import json

import pytest

from cpmodel.commands.banana import banana_complete
from cpmodel.core.result import SolveResult
from tests.conftest import ROOT, run_cli


def result(solver: str, complete: bool, stopped_by: str | None = None, found: bool = True) -> SolveResult:
    return SolveResult(solver, "found" if found else "unknown", complete, int(found), [("ab",)] if found else [],
                       stopped_by=stopped_by)


@pytest.mark.parametrize("results, asked, expected", [
    ([result("backtrack", True), result("cpsat", True)], 2, (True, None)),
    ([result("backtrack", True), result("cpsat", False, "time-limit", found=False)], 2, (False, "time-limit")),
    ([result("backtrack", False, "gave-up", found=False), result("cpsat", True)], 2, (False, "gave-up")),
    ([result("backtrack", True)], 2, (False, "interrupt")),  # a signal before CP-SAT had its turn
    ([result("backtrack", True)], 1, (True, None)),
])
def test_banana_complete_needs_every_engine(results, asked, expected):
    assert banana_complete(results, results[0], asked) == expected


def test_banana_cross_check_is_not_complete_when_cpsat_stopped():
    """Before: complete true while CP-SAT stopped unknown at its time limit."""
    proc = run_cli("banana", "--draw", "15", "--seed", "3", "--solver", "both", "--time-limit", "1", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    engines = doc["solvers"]
    assert [e["solver"] for e in engines] == ["backtrack", "cpsat"]
    assert doc["complete"] == all(e["complete"] for e in engines)
    if not doc["complete"]:
        assert doc["stopped_by"] == next(e["stopped_by"] for e in engines if not e["complete"])


def test_grid_best_never_claims_complete():
    """Before: complete true with stopped_by time-limit. Annealing proves nothing."""
    proc = run_cli("grid", "--best", "3x3", "--time-limit", "0.5", "--top", "3000", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["complete"] is False and doc["stopped_by"] == "time-limit" and doc["optimal"] is False


def test_grid_on_a_given_board_is_complete():
    doc = json.loads(run_cli("grid", "abc/def/ghi", "--json").stdout)
    assert doc["complete"] is True


def _section(name: str) -> tuple[set[str], set[str]]:
    from tests.test_hardening import _documented

    return _documented(name)


@pytest.mark.parametrize("puzzle", ["rect", "wordscapes"])
def test_estimate_documents_match_their_section(tmp_path, puzzle):
    """Before: --estimate's document had no section; it now has its own (no status: nothing ran)."""
    if puzzle == "rect":
        args = ("rect", "3x3", "--top", "60")
    else:
        board = tmp_path / "ring.txt"
        board.write_text("....\n.##.\n....\n")
        args = ("wordscapes", str(board), "retains", "--top", "3000")
    proc = run_cli(*args, "--count", "--estimate", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    required, optional = _section("Estimating")
    assert required <= doc.keys() <= required | optional
    estimate = doc["estimate"]
    assert {"first_line_words", "sampled_shards", "cpu_hours", "workers_for_one_hour", "shards", "engine"} <= estimate.keys()
    assert ("knuth" in estimate) == (puzzle == "rect")
    text = (ROOT / "docs" / "json.md").read_text()
    assert all(f"`{key}`" in text for key in estimate)  # every key named in the docs
