"""explain and compare, through the command line."""

from __future__ import annotations

import json

from tests.conftest import ROOT, TINY_WORDS, run_cli


def test_explain_rect_counts_the_model(word_file):
    path = word_file(TINY_WORDS)
    proc = run_cli("explain", "rect", "3x3", "--dict", path, "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert doc["constraints"]["table"] == 6 and doc["constraints"]["exactly_one"] == 9
    assert doc["variables"] == 9 * 26 + 9  # b[i,j,c] and ℓ[i,j]
    three_letter = len({w for w in TINY_WORDS if len(w) == 3})
    assert [s["words"] for s in doc["slots"]] == [three_letter] * 6


def test_explain_points_at_the_lines_that_add_each_family(word_file):
    path = word_file(TINY_WORDS)
    for args in (["rect", "3x3", "--distinct", "--symmetric"], ["banana", "cat"], ["rect", "3x3", "--encoding", "automaton"]):
        doc = json.loads(run_cli("explain", *args, "--dict", path, "--json").stdout)
        for family in doc["families"]:
            where = family["code"].split(" ")[0]
            file, line = where.rsplit(":", 1)
            text = (ROOT / file).read_text().splitlines()[int(line) - 1]
            assert text.strip(), family  # a real line of code or its comment
    kinds = json.loads(run_cli("explain", "banana", "cat", "--dict", path, "--json").stdout)["constraints"]
    assert kinds["automaton"] >= 2 and "linear" in kinds


def test_compare_suite_agrees_or_says_undecided(word_file):
    path = word_file(TINY_WORDS)
    proc = run_cli("compare", "--dict", path, "--time-limit", "120", "--json", timeout=300)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert len(doc["rows"]) == 12 and doc["complete"] and doc["stopped_by"] is None
    assert {r["agreement"] for r in doc["rows"]} <= {"identical sets", "same count", "same optimum", "both valid",
                                                     "undecided"}
    rect_3x3 = doc["rows"][0]
    assert rect_3x3["agreement"] == "identical sets" and rect_3x3["engines"] == ["backtrack", "cp", "cpsat"]
    assert rect_3x3["backtrack"]["count"] == rect_3x3["cp"]["count"] == rect_3x3["cpsat"]["count"]
    assert rect_3x3["fastest_model"] in ("cp", "cpsat") and rect_3x3["model_over_backtrack"] > 0
    # an engine that cannot decide a case sits it out, and the row says why
    big = next(r for r in doc["rows"] if r["case"] == "5x6 --top 3000 --all")
    assert big["engines"] == ["backtrack", "cp"] and "enumerate" in big["not_run"]["cpsat"]
    assert all(r["agreement"] != "undecided" for r in doc["rows"] if r["puzzle"] == "rect")


def test_compare_keeps_its_time_limit_for_the_whole_suite(word_file):
    """--time-limit is the suite's: it ends in time, with the cases it reached, and says so."""
    proc = run_cli("compare", "--dict", word_file(TINY_WORDS), "--time-limit", "0.2", "--json", timeout=300)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["stopped_by"] == "time-limit" and not doc["complete"]
    assert len(doc["rows"]) < 12


def test_compare_plot_writes_a_png(word_file, tmp_path):
    import pytest

    pytest.importorskip("matplotlib")
    path = word_file(TINY_WORDS)
    png = tmp_path / "compare.png"
    proc = run_cli("compare", "--quick", "--dict", path, "--time-limit", "1", "--plot", str(png), timeout=300)
    assert proc.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
