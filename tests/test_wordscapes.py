"""Wordscapes fill: both solvers against each other, a brute force, and none."""

from __future__ import annotations

import pytest

from cpmodel.core.boards import parse_crossword
from cpmodel.core.control import Request
from cpmodel.core.lexicon import Lexicon
from cpmodel.core.specs import wordscapes_spec
from cpmodel.core.validate import wordscapes_problems
from cpmodel.models import wordscapes as cpsat
from heuristics import wordscapes as backtrack
from tests.conftest import brute_force_wordscapes, run_cli

WORDS = Lexicon("""ten net tea eat ate eta tan ant nat tae neat ante etna anet sate seat east teas eats
set sea tee see ens sen tens nets ease tease setae".split()""".split()[:-1], source="tiny")

BOARDS = {
    "cross": "#.#\n...\n#.#",
    "ring": "...\n.#.\n...",
    "prefilled": "t..\n.#.\n...",
    "corner": "...\n.##\n.##",
    "lone": "...\n###\n#.#",
    "prefilled-lone": "...\n###\nn#.",
    "lone-not-on-wheel": "...\n###\nz##",
}


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_both_solvers_match_brute_force(name):
    spec = wordscapes_spec(parse_crossword(BOARDS[name]), "aentst", WORDS)
    expected = brute_force_wordscapes(spec)
    for solver in (backtrack, cpsat):
        result = solver.solve(spec, Request(limit=None))
        assert set(result.solutions) == expected, (name, solver.__name__)
        assert result.count == len(expected) and result.complete
        assert result.status == ("found" if expected else "none")
        assert all(wordscapes_problems(spec, rows) == [] for rows in result.solutions)


def test_unfillable_board_is_none():
    spec = wordscapes_spec(parse_crossword("....\n.##.\n....\n.##.\n...."), "tea", WORDS)
    for solver in (backtrack, cpsat):
        result = solver.solve(spec)
        assert result.status == "none" and result.complete


def test_validator_catches_repeats_and_unspellable():
    spec = wordscapes_spec(parse_crossword("...\n.#.\n..."), "aentst", WORDS)
    assert any("more than once" in p for p in wordscapes_problems(spec, ("ten", "e#e", "ten")))
    assert any("not filled" in p for p in wordscapes_problems(spec, ("te.", "e#e", "ten")))


@pytest.mark.parametrize("board,letters,needle", [
    ("", "abc", "is empty"),
    ("..\n..", "ab1", "letters a-z only"),
    ("..\n.x%", "abc", "unexpected character"),
])
def test_wordscapes_cli_bad_input(tmp_path, board, letters, needle):
    path = tmp_path / "board.txt"
    path.write_text(board)
    proc = run_cli("wordscapes", str(path), letters, "--dict", str(path))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and needle in lines[0], proc.stderr


def test_wordscapes_cli_json_and_both(tmp_path):
    import json

    board = tmp_path / "board.txt"
    board.write_text(BOARDS["ring"])
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS.words))
    proc = run_cli("wordscapes", str(board), "aentst", "--dict", str(words), "--solver", "both", "--all", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["agreement"] == "identical solution sets"
    assert {"status", "count", "complete", "solutions", "seconds"} <= doc.keys()


@pytest.mark.parametrize("board,expected", [("a", {("a",)}), ("z", set()), ("a#.", {("a#a",), ("a#b",), ("a#c",)})])
def test_prefilled_lone_cells_keep_their_letter(board, expected):
    spec = wordscapes_spec(parse_crossword(board), "abc", WORDS)
    assert brute_force_wordscapes(spec) == expected
    for solver in (backtrack, cpsat):
        result = solver.solve(spec, Request(limit=None))
        assert set(result.solutions) == expected and result.count == len(expected), solver.__name__
        assert result.complete and result.status == ("found" if expected else "none"), solver.__name__
