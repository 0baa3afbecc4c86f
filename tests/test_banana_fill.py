"""The exact fill of nearly full boxes (heuristics.banana_fill) against brute force:
it finds a layout in an R×C box exactly when one whose bounding box is R×C exists,
every layout it gives is legal, and a stop is never reported as an empty box."""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cpmodel.core.boards import parse_layout
from cpmodel.core.control import Control
from cpmodel.core.lexicon import Lexicon, load_default
from cpmodel.core.specs import banana_spec, draw_hand
from cpmodel.core.validate import banana_problems
from cpmodel.models import bananagrams as cpsat
from heuristics.banana_fill import EMPTY, FOUND, STOPPED, _placement_masks, _slot_arrays, decide_box
from tests.conftest import brute_force_bananagrams

WORDS = ("at", "ta", "as", "cat", "act", "sat", "tas", "cats", "scat", "tact", "aa", "st", "ats", "tat")


@cache
def shapes_with_layouts(hand: str) -> frozenset:
    """The bounding boxes (rows, cols) of every layout of the hand, by brute force."""
    return frozenset((len(rows), len(rows[0])) for rows in brute_force_bananagrams(hand, WORDS))


@given(hand=st.lists(st.sampled_from("aacstt"), min_size=2, max_size=5).map(lambda t: "".join(sorted(t))))
@settings(max_examples=25, deadline=None)
def test_the_fill_finds_a_layout_exactly_where_brute_force_does(hand):
    spec = banana_spec(hand, Lexicon(list(WORDS)))
    if not spec.words:
        return
    n = len(hand)
    for rows in range(1, n + 1):
        for cols in range(1, n + 1):
            if not (n <= rows * cols <= n + 3 and rows + cols <= n + 1):
                continue
            status, layout, _ = decide_box(spec, rows, cols)
            assert status == (FOUND if (rows, cols) in shapes_with_layouts(hand) else EMPTY), (hand, rows, cols)
            assert decide_box(spec, rows, cols, workers=1)[0] == status  # one thread decides the same
            if layout is not None:
                assert (len(layout), len(layout[0])) == (rows, cols)
                assert banana_problems(parse_layout("\n".join(layout)), hand, set(WORDS)) == []


def test_the_fill_and_cp_sat_decide_the_same_boxes_for_real_hands():
    """Deeper searches than brute force can check: 8- and 10-tile hands from a real word
    list, every nearly full box (up to two blanks), filled and solved by CP-SAT's tight box
    model. 15 of these 24 boxes hold a layout; the fill must say so exactly for those."""
    from ortools.sat.python import cp_model

    lexicon = load_default().top(3000)
    decided = []
    for tiles, seed in itertools.product((8, 10), range(1, 5)):
        spec = banana_spec(draw_hand(tiles, seed), lexicon)
        for rows, cols in itertools.product(range(2, tiles), repeat=2):
            if rows > cols or not tiles <= rows * cols <= tiles + 2 or rows + cols > tiles + 1:
                continue
            status, layout, _ = decide_box(spec, rows, cols)
            box, _, _ = cpsat._solve_box(spec, rows, cols, "table", Control(time_limit=30), False, tight=True)
            assert box in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE)
            assert (status == FOUND) == (box != cp_model.INFEASIBLE), (spec.hand, rows, cols)
            if layout is not None:
                assert banana_problems(parse_layout("\n".join(layout)), spec.hand, set(spec.words)) == []
            decided.append(status)
    assert len(decided) == 24 and decided.count(FOUND) == 15


def test_a_stop_leaves_the_box_undecided():
    spec = banana_spec("aacstt", Lexicon(list(WORDS)))
    control = Control()
    control.stop.set()
    status, layout, _ = decide_box(spec, 2, 4, control)
    assert status == STOPPED and layout is None


def test_compact_says_which_boxes_the_fill_decided():
    """With the heuristic kept to roomy boxes, the dense ones below go to the fill, or to CP-SAT without it."""
    spec = banana_spec("aacstt", Lexicon(list(WORDS)))
    start = ("cats", "a...", "t...")
    results = [cpsat.compact(spec, start, Control(time_limit=30), tuning=cpsat.Tuning(heuristic_fill=0.5, exact_fill=fill))
               for fill in (True, False)]
    for result in results:
        assert result.stats["optimum_proven"] and result.stats["area"] == 8  # scat/..ta
        assert banana_problems(parse_layout("\n".join(result.solutions[0])), spec.hand, set(WORDS)) == []
    with_fill, without = (result.stats["boxes"] for result in results)
    assert any("(fill " in box for box in with_fill), with_fill
    assert not any("(fill " in box for box in without), without


def reference_placements(rows: int, cols: int, blanks: int) -> list[int]:
    """Every choice of blank cells whose tiles touch all four sides and are one piece, by sets."""
    kept = []
    for chosen in itertools.combinations(range(rows * cols), blanks):
        tiles = {(c // cols, c % cols) for c in range(rows * cols)} - {(c // cols, c % cols) for c in chosen}
        sides = ({r for r, _ in tiles} >= {0, rows - 1}) and ({c for _, c in tiles} >= {0, cols - 1})
        seen, todo = set(), [min(tiles)]
        while todo:
            cell = todo.pop()
            if cell in tiles and cell not in seen:
                seen.add(cell)
                todo += [(cell[0] + 1, cell[1]), (cell[0] - 1, cell[1]), (cell[0], cell[1] + 1), (cell[0], cell[1] - 1)]
        if sides and seen == tiles:
            kept.append(sum(1 << c for c in chosen))
    return kept


@given(rows=st.integers(1, 5), cols=st.integers(1, 6), data=st.data())
@settings(max_examples=40, deadline=None)
def test_the_placements_are_the_tight_connected_choices_of_blanks(rows, cols, data):
    blanks = data.draw(st.integers(0, min(4, rows * cols - 1)))
    assert list(_placement_masks(rows, cols, blanks)) == reference_placements(rows, cols, blanks)


@given(rows=st.integers(1, 5), cols=st.integers(1, 6), data=st.data())
@settings(max_examples=40, deadline=None)
def test_the_slots_are_the_maximal_runs_of_open_cells(rows, cols, data):
    blank = data.draw(st.integers(0, (1 << rows * cols) - 1))
    by_length = np.arange(5 * (max(rows, cols) + 1)).reshape(-1, 5)
    length, cells, offsets = _slot_arrays(blank, rows, cols, by_length)
    found = [tuple(cells[s, :length[s]]) for s in range(len(length))]
    lines = [[r * cols + c for c in range(cols)] for r in range(rows)] + [[r * cols + c for r in range(rows)] for c in range(cols)]
    runs = [tuple(run) for line in lines
            for is_open, group in itertools.groupby(line, key=lambda c: not (blank >> c) & 1) if is_open
            for run in [list(group)] if len(run) >= 2]
    assert found == runs
    assert [tuple(row) for row in offsets] == [tuple(by_length[len(run)]) for run in runs]
