"""The Bananagrams speed-ups against their definitions: the minimal line
automaton accepts what the trie accepts, the word-count relaxation never
rules out a hand that has a layout (brute force), hints are checked."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from cpmodel.core.boards import parse_layout
from cpmodel.core.control import Control
from cpmodel.core.lexicon import Lexicon
from cpmodel.core.specs import BananaSpec, banana_spec
from cpmodel.core.validate import banana_problems
from cpmodel.models import bananagrams as cpsat
from cpmodel.models import bananagrams_words as counts
from heuristics.bananagrams import boxes_below
from tests.conftest import brute_force_bananagrams, run_cli, run_json

WORDS = ("at", "ta", "as", "cat", "act", "sat", "tas", "cats", "scat", "tact", "aa", "st")


def accepts(automaton, line: tuple[int, ...]) -> bool:
    start, finals, transitions = automaton
    step = {(s, a): t for s, a, t in transitions}
    state = start
    for symbol in line:
        if (state, symbol) not in step:
            return False
        state = step[(state, symbol)]
    return state in finals


@given(words=st.lists(st.text("abc", min_size=2, max_size=4), max_size=8))
@settings(max_examples=60, deadline=None)
def test_the_minimal_automaton_accepts_the_same_lines_as_the_trie(words):
    alphabet = "abc" + cpsat.BLANK
    trie = cpsat.line_automaton(words, alphabet, minimal=False)
    minimal = cpsat.line_automaton(words, alphabet, minimal=True)
    assert len({s for s, _, _ in minimal[2]}) <= len({s for s, _, _ in trie[2]})
    for length in range(1, 6):
        for line in itertools.product(range(len(alphabet)), repeat=length):
            assert accepts(trie, line) == accepts(minimal, line), line


@given(hand=st.text("acst", min_size=2, max_size=5))
@settings(max_examples=40, deadline=None)
def test_the_word_counts_never_rule_out_a_hand_with_a_layout(hand):
    spec = banana_spec(hand, Lexicon(sorted(WORDS), source="tiny"))
    verdict = counts.counts_feasible(spec, time_limit=10)
    layouts = brute_force_bananagrams(spec.hand, WORDS)
    if layouts:
        assert verdict is True, (hand, sorted(layouts)[0])
    if verdict is False:
        assert not layouts


def test_the_word_counts_prove_none_and_name_the_conflict():
    spec = banana_spec("cttts", Lexicon(sorted(WORDS), source="tiny"))  # no vowel: no word but "st"
    assert counts.counts_feasible(spec) is False
    result = cpsat.solve(spec, Control(time_limit=30))
    assert result.status == "none" and result.complete and result.stats["proof"] == "word counts"
    assert brute_force_bananagrams(spec.hand, WORDS) == set()
    conflict = counts.explain(spec)
    assert conflict and any("every c" in part or "every t" in part for part in conflict), conflict


def test_a_box_too_small_for_the_runs_is_ruled_out_by_counts():
    spec = banana_spec("cats", Lexicon(["cats"], source="tiny"))
    assert counts.counts_feasible(spec) is True
    assert counts.counts_feasible(spec, box=(2, 2)) is False  # "cats" needs a line of 4


def fits(layout: tuple[str, ...], box: tuple[int, int]) -> bool:
    """The layout fits the box, either way round (boxes are R ≤ C; a layout may be transposed)."""
    height, width = len(layout), len(layout[0])
    return (height <= box[0] and width <= box[1]) or (width <= box[0] and height <= box[1])


@given(hand=st.text("acst", min_size=2, max_size=5))
@settings(max_examples=40, deadline=None)
def test_full_lines_never_rule_out_a_box_that_holds_a_layout(hand):
    spec = banana_spec(hand, Lexicon(sorted(WORDS), source="tiny"))
    layouts = brute_force_bananagrams(spec.hand, WORDS)
    for box in boxes_below(spec.size, spec.size * spec.size + 1):
        verdict = counts.full_lines_allow(spec, box)
        holders = [layout for layout in layouts if fits(layout, box)]
        if holders:
            assert verdict is not False, (hand, box, holders[0])


def test_full_lines_rule_out_a_box_whose_full_row_is_no_word():
    spec = banana_spec("aacstt", Lexicon(sorted(WORDS), source="tiny"))
    assert counts.full_lines_allow(spec, (1, 6)) is False  # the one row is a 6-letter word: none
    assert counts.full_lines_allow(spec, (2, 3)) is False  # both rows full: two 3-letter words from aacstt, and
    # three 2-letter columns: "cat"+"tas" fits, but the columns need three of at, ta, as, aa, st at once: a, a only twice
    assert brute_force_bananagrams(spec.hand, WORDS) and not any(
        fits(layout, (2, 3)) for layout in brute_force_bananagrams(spec.hand, WORDS))
    assert counts.full_lines_allow(spec, (3, 4)) is True  # 6 blanks: no line must be full
    result = cpsat.compact(spec, cpsat.solve(spec, Control(time_limit=30)).solutions[0], Control(time_limit=30))
    assert result.stats["boxes"] == ["2x3:INFEASIBLE (full lines)", "1x6:INFEASIBLE (full lines)"]
    assert result.stats["optimum_proven"] and result.stats["area"] == 8 and result.stats["ruled_out"] == ["2x3", "1x6"]


def test_a_hint_is_checked_and_answered_in_its_own_box():
    spec = banana_spec("aacstt", Lexicon(sorted(WORDS), source="tiny"))
    result = cpsat.solve(spec, Control(time_limit=30))
    assert result.status == "found" and "(hinted)" in result.stats["boxes"][0]
    assert banana_problems(parse_layout("\n".join(result.solutions[0])), spec.hand, set(WORDS)) == []


def test_every_tuning_finds_the_same_answer():
    spec = banana_spec("aacstt", Lexicon(sorted(WORDS), source="tiny"))
    for tuning in (cpsat.BASELINE, cpsat.FAST, cpsat.Tuning(hint=False)):
        result = cpsat.solve(spec, Control(time_limit=30), tuning=tuning)
        assert result.status == "found", tuning
        assert banana_problems(parse_layout("\n".join(result.solutions[0])), spec.hand, set(WORDS)) == []


def test_the_command_line_says_why_a_hand_has_no_layout(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    doc, _ = run_json("banana", "cttts", "--dict", str(words), "--solver", "cpsat")
    assert doc["status"] == "none" and doc["complete"]
    stats = doc["solvers"][0]["stats"]
    assert stats["proof"] == "word counts" and stats["conflict"], stats
    text = run_cli("banana", "cttts", "--dict", str(words))
    assert text.returncode == 0 and "why: these already conflict: every" in text.stdout, text.stdout


def test_compact_names_the_boxes_it_ruled_out(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    doc, _ = run_json("banana", "aacstt", "--dict", str(words), "--compact", "--time-limit", "60")
    step = doc["solvers"][-1]["stats"]
    assert step["optimum_proven"] and doc["complete"]
    ruled = {tuple(map(int, box.split("x"))) for box in step["ruled_out"]}
    assert all(r * c < step["area"] for r, c in ruled)  # every box ruled out is smaller than the answer
    assert set(boxes_below(6, step["area"])) == ruled  # and every one of them is


def test_the_compact_heuristic_skips_boxes_it_cannot_pack():
    """``densest``: boxes the tiles would fill beyond it are not tried (nothing is proven there anyway)."""
    from heuristics.bananagrams import smallest_box_layout

    spec = BananaSpec("aacstt", tuple(WORDS))
    _, every = smallest_box_layout(spec, 40, Control(time_limit=5))
    _, loose = smallest_box_layout(spec, 40, Control(time_limit=5), densest=0.5)
    assert loose and all(6 <= 0.5 * r * c for r, c in loose)
    assert 6 > 0.5 * every[0][0] * every[0][1]  # without the limit it starts in the densest box
