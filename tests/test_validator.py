"""The validator, on answers made wrong by hand, one rule at a time.

Engines rarely produce a wrong answer, so the rest of the suite seldom shows
the validator failing; these tests do, for each rule it checks. The mutation
sample (benchmarks/mutants.py) found that dropping the column check, the
Wordscapes length check or the --distinct check went unnoticed without them.
"""

from __future__ import annotations

import dataclasses

from cpmodel.core.boards import parse_crossword
from cpmodel.core.control import Control
from cpmodel.core.lexicon import Lexicon
from cpmodel.core.specs import banana_spec, rectangle_spec, wordscapes_spec
from cpmodel.core.validate import rectangle_problems, wordscapes_problems
from cpmodel.models import bananagrams as banana_cpsat
from heuristics import bananagrams as banana_backtrack
from tests.conftest import TINY_WORDS

TINY = Lexicon(list(dict.fromkeys(TINY_WORDS)), source="tiny")


def test_a_rectangle_whose_rows_are_words_but_a_column_is_not():
    spec = rectangle_spec(3, 3, TINY)
    assert rectangle_problems(spec, ("bit", "ice", "ten")) == []
    assert rectangle_problems(spec, ("bit", "ice", "tin")) == ["column 2 'ici' is not an allowed word"]


def test_a_word_used_twice_breaks_distinct_only():
    square = ("bit", "ice", "ten")  # a symmetric square: each word is a row and a column
    assert rectangle_problems(rectangle_spec(3, 3, TINY), square) == []
    found = rectangle_problems(rectangle_spec(3, 3, TINY, distinct=True), square)
    assert found == [f"word {w!r} is used more than once" for w in sorted(square)]


def test_a_wordscapes_word_shorter_than_the_minimum():
    lexicon = Lexicon(["tea", "eat", "ate", "at", "ta"], source="tiny")
    spec = wordscapes_spec(parse_crossword("...\n"), "tea", lexicon)
    assert wordscapes_problems(spec, ["tea"]) == []
    stricter = dataclasses.replace(spec, min_len=4)
    assert wordscapes_problems(stricter, ["tea"]) == ["'tea' at (0, 0) is shorter than 4"]


def test_two_words_that_share_no_letter_have_no_layout():
    """cat and dog cannot cross: every layout of the hand is two islands, so CP-SAT must
    prove there is none (a flow that may lose units would lay out the islands), and the
    backtracker, a heuristic here, must not find one."""
    spec = banana_spec("catdog", Lexicon(["cat", "dog"], source="tiny"))
    assert banana_cpsat.solve(spec, Control(time_limit=60)).status == "none"
    assert banana_backtrack.solve(spec, Control(time_limit=60)).status == "unknown"
