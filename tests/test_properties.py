"""Property-based tests (hypothesis): generated tiny puzzles on every engine.

For each generated instance: every answer passes the validator, the engines
agree (solution sets for --all, counts, optima for --best), and the answer
matches a brute force of the definition, so every ``none`` is confirmed.
The inputs are tiny on purpose (2-4 letter alphabets, a dozen words, boards
up to 3x4, hands up to 4 tiles), where brute force is cheap and where the
corner cases live: empty slot lengths, lone and pre-filled cells, one tile.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from cpmodel.commands.cli import build_parser
from cpmodel.core.boards import parse_crossword, parse_layout
from cpmodel.core.control import Control, Request
from cpmodel.core.dawg import accepts, build_dawg
from cpmodel.core.errors import InputError
from cpmodel.core.lexicon import Lexicon, parse_words
from cpmodel.core.specs import banana_spec, parse_hand, rectangle_spec, wordscapes_spec
from cpmodel.core.validate import banana_problems, rank_objective, rectangle_problems, wordscapes_problems
from cpmodel.models import bananagrams as banana_cpsat
from cpmodel.models import rectangle as rect_cpsat
from cpmodel.models import rectangle_cp as rect_cp
from cpmodel.models import wordscapes as scapes_cpsat
from cpmodel.models import wordscapes_cp as scapes_cp
from heuristics import bananagrams as banana_backtrack
from heuristics import rectangle as rect_backtrack
from heuristics import wordscapes as scapes_backtrack
from tests.conftest import brute_force_bananagrams, brute_force_rectangles, brute_force_wordscapes

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
ALL, COUNT, BEST = Request(limit=None), Request(limit=None, count_only=True), Request(limit=None, best=True)


@st.composite
def words_over(draw, alphabet: str, lengths: range, per_length: int):
    """A tiny lexicon: up to ``per_length`` distinct words of each length over
    ``alphabet``, in a generated rank order. A small alphabet makes it dense,
    so many puzzles have answers and some have none."""
    words = []
    for k in lengths:
        every = ["".join(letters) for letters in itertools.product(alphabet, repeat=k)]
        words += draw(st.lists(st.sampled_from(every), max_size=per_length, unique=True))
    return Lexicon(draw(st.permutations(words)), source="generated")


# -- rectangles ----------------------------------------------------------------------


@st.composite
def rectangle_specs(draw):
    m, n = draw(st.sampled_from([(1, 1), (1, 2), (2, 1), (1, 3), (2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2)]))
    alphabet = draw(st.sampled_from(["ab", "abc", "at"]))
    lengths = sorted({m, n})
    lexicon = draw(words_over(alphabet, range(lengths[0], lengths[-1] + 1), per_length=10))
    pattern = None
    if draw(st.integers(0, 2)) == 0:
        pattern = tuple(draw(st.text(alphabet + "....", min_size=n, max_size=n)) for _ in range(m))
    symmetric = m == n and draw(st.booleans())
    top = draw(st.none() | st.integers(1, 6))
    return rectangle_spec(m, n, lexicon, top=top, pattern=pattern, distinct=draw(st.integers(0, 2)) == 0, symmetric=symmetric)


@settings(max_examples=150, **SETTINGS)
@given(spec=rectangle_specs(), encoding=st.sampled_from(rect_cpsat.ENCODINGS), limit=st.integers(1, 3))
def test_rectangles_every_engine_matches_brute_force(spec, encoding, limit):
    expected = brute_force_rectangles(spec)
    event("rectangles exist" if expected else "proven none")
    engines = [
        ("backtrack-rows", lambda request: rect_backtrack.solve(spec, request, orientation="rows")),
        ("backtrack-cols", lambda request: rect_backtrack.solve(spec, request, orientation="cols")),
        (f"cpsat-{encoding}", lambda request: rect_cpsat.solve(spec, request, encoding=encoding)),
        ("cp", lambda request: rect_cp.solve(spec, request)),
    ]
    optimum = min((rank_objective(spec, rows) for rows in expected), default=None)
    for name, solve in engines:
        every = solve(ALL)
        assert set(every.solutions) == expected and every.count == len(every.solutions) == len(expected), name
        assert every.complete and every.status == ("found" if expected else "none"), name
        assert all(rectangle_problems(spec, rows) == [] for rows in every.solutions), name
        assert solve(COUNT).count == len(expected), name
        first = solve(Request(limit=limit))
        assert first.count == min(limit, len(expected)) and set(first.solutions) <= expected and first.complete, name
        best = solve(BEST)
        assert best.objective == optimum and best.complete, name
        assert best.solutions == [] if optimum is None else rank_objective(spec, best.solutions[0]) == optimum, name


# -- Wordscapes ------------------------------------------------------------------------


@st.composite
def wordscapes_specs(draw):
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    wheel = draw(st.text("aet", min_size=4, max_size=8))
    # open and blocked cells (blocks make lone cells), a few pre-filled, some with a letter off the wheel
    cell = st.sampled_from("........######aets")
    lines = ["".join(draw(st.lists(cell, min_size=cols, max_size=cols))) for _ in range(rows)]
    assume(any(ch != "#" for line in lines for ch in line))
    on_wheel = "".join(sorted(set(wheel)))
    lexicon = draw(words_over(draw(st.sampled_from([on_wheel, on_wheel, "aets"])), range(2, 5), per_length=16))
    return wordscapes_spec(parse_crossword("\n".join(lines)), wheel, lexicon, min_len=draw(st.sampled_from([1, 2, 2, 3])))


@settings(max_examples=200, **SETTINGS)
@given(spec=wordscapes_specs())
def test_wordscapes_engines_agree_and_match_brute_force(spec):
    fills = math.prod(len(c) for c in spec.candidates) * len(set(spec.wheel)) ** len(spec.lone_cells)
    assume(fills <= 20_000)  # keeps brute force and enumeration small
    expected = brute_force_wordscapes(spec)
    event("fills exist" if expected else "proven none")
    event(f"{len(spec.lone_cells)} lone cells")
    optimum = min((spec.fill_objective(rows) for rows in expected), default=None)
    for engine in (scapes_backtrack, scapes_cpsat, scapes_cp):
        every = engine.solve(spec, ALL)
        assert set(every.solutions) == expected and every.count == len(expected), engine.__name__
        assert every.complete and every.status == ("found" if expected else "none"), engine.__name__
        assert all(wordscapes_problems(spec, rows) == [] for rows in every.solutions), engine.__name__
        assert engine.solve(spec, COUNT).count == len(expected), engine.__name__
        first = engine.solve(spec)
        assert first.count == min(1, len(expected)) and set(first.solutions) <= expected, engine.__name__
        best = engine.solve(spec, BEST)
        assert best.complete and best.objective == optimum, engine.__name__
        assert best.solutions == [] if optimum is None else spec.fill_objective(best.solutions[0]) == optimum, engine.__name__


# -- Bananagrams -----------------------------------------------------------------------


@st.composite
def banana_cases(draw):
    hand = parse_hand(draw(st.text("aest", min_size=1, max_size=4)))
    lexicon = draw(words_over(draw(st.sampled_from(["aest", "ae", "st"])), range(2, 5), per_length=8))
    return banana_spec(hand, lexicon)


@settings(max_examples=120, **SETTINGS)
@given(spec=banana_cases(), mode=st.sampled_from(["free", "crossing"]))
def test_bananagrams_engines_never_contradict_brute_force(spec, mode):
    layouts = brute_force_bananagrams(spec.hand, spec.words)
    event("layouts exist" if layouts else "proven none")
    exact = banana_cpsat.solve(spec, Control(time_limit=60))
    assert exact.complete and exact.status == ("found" if layouts else "none"), (spec, exact)
    heuristic = banana_backtrack.solve(spec, mode)
    assert heuristic.status in ("found", "unknown")  # a heuristic never claims none
    if not layouts:
        assert heuristic.status == "unknown"
    for result in (exact, heuristic):
        for rows in result.solutions:
            cells = parse_layout("\n".join(rows))
            assert banana_problems(cells, spec.hand, set(spec.words)) == []
            assert tuple(rows) in layouts  # the brute force knows every layout


# -- lexicons --------------------------------------------------------------------------

line_text = st.text(st.sampled_from("abcAB '-é\t\r") | st.characters(codec="utf-8"), max_size=8)


@settings(max_examples=200, **SETTINGS)
@given(lines=st.lists(line_text, max_size=20))
def test_parse_words_keeps_distinct_az_words_in_first_seen_order(lines):
    words, skipped = parse_words(lines)
    assert all(w.isascii() and w.isalpha() and w.islower() for w in words)
    assert len(set(words)) == len(words)
    folded = [line.strip().lower() for line in lines]
    kept = [w for w in folded if w and w.isascii() and w.isalpha()]
    assert words == list(dict.fromkeys(kept))
    assert skipped == sum(1 for w in folded if w and not (w.isascii() and w.isalpha()))


@settings(max_examples=100, **SETTINGS)
@given(lexicon=words_over("abc", range(1, 5), per_length=10), length=st.integers(1, 5), top=st.none() | st.integers(1, 8))
def test_of_length_and_dawg_hold_exactly_the_words(lexicon, length, top):
    chosen = lexicon.of_length(length, top)
    assert chosen == [w for w in lexicon.words if len(w) == length][:top]  # rank order, cut to top
    if chosen:
        dawg = build_dawg(chosen)
        assert all(accepts(dawg, w) for w in chosen)
        others = {w for w in lexicon.words if len(w) == length} - set(chosen)
        assert not any(accepts(dawg, w) for w in others)
    assert Counter(len(w) for w in lexicon.words)[length] >= len(chosen)


# -- time limits -----------------------------------------------------------------------


@settings(max_examples=200, **SETTINGS)
@given(value=st.floats() | st.integers(-10, 10), command=st.sampled_from([["rect", "3x3"], ["banana", "abc"], ["grid", "--random"]]))
def test_time_limit_is_accepted_exactly_when_finite_and_positive(value, command):
    text = repr(value)
    try:
        args = build_parser().parse_args(command + [f"--time-limit={text}"])
    except InputError as error:
        assert not (math.isfinite(value) and value > 0) and "--time-limit" in str(error)
    else:
        assert math.isfinite(value) and value > 0 and args.time_limit == float(text)
