"""Bananagrams: the validator on hand-made layouts, both solvers, honesty, CLI."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from cpmodel.core.boards import parse_layout
from cpmodel.core.control import Control
from cpmodel.core.lexicon import Lexicon
from cpmodel.core.specs import banana_bag, banana_spec, draw_hand, parse_hand
from cpmodel.core.validate import banana_problems
from cpmodel.models import bananagrams as cpsat
from heuristics import bananagrams as backtrack
from tests.conftest import run_cli

WORDS = {"cat", "cats", "act", "sat", "at", "as", "ta", "tas", "sac", "scat", "tact"}


def problems(layout: str, hand: str | None):
    return banana_problems(parse_layout(layout), hand, WORDS)


def test_validator_accepts_a_legal_layout():
    assert problems(".ta\n..c\nsat", "aacstt") == []


@pytest.mark.parametrize("layout,hand,needle", [
    ("cat\n...\nsat", "aacstt", "rule 2: 2 islands"),           # an island
    ("cat\nsat", "aacstt", "rule 3: 'cs' down"),                 # adjacency makes a non-word
    (".ta\n..c\nsat", "aacsttt", "rule 1: tiles not placed: t"),  # a missing tile
    (".ta\n..c\nsat", "acstt", "placed but not in the hand: a"),  # a duplicated tile
])
def test_validator_names_the_rule_and_place(layout, hand, needle):
    found = problems(layout, hand)
    assert any(needle in p for p in found), found


def small_spec(hand: str, words) -> object:
    lexicon = Lexicon(sorted(words), source="tiny")
    return banana_spec(parse_hand(hand), lexicon)


@pytest.mark.parametrize("hand", ["cat", "cats", "aacstt", "at", "t"])
def test_both_solvers_find_valid_layouts(hand):
    spec = small_spec(hand, WORDS)
    for result in (backtrack.solve(spec, "free"), backtrack.solve(spec, "crossing"), cpsat.solve(spec, Control(time_limit=30))):
        assert result.status == "found", (hand, result)
        cells = parse_layout("\n".join(result.solutions[0]))
        assert banana_problems(cells, spec.hand, WORDS) == []


def test_parallel_words_only_free_and_cpsat_find_it():
    words = {"ab", "cd", "ac", "bd"}  # only the 2x2 block ab/cd works: parallel adjacent words
    spec = small_spec("abcd", words)
    free, crossing = backtrack.solve(spec, "free"), backtrack.solve(spec, "crossing")
    exact = cpsat.solve(spec, Control(time_limit=30))
    assert free.status == "found" and exact.status == "found"
    assert sorted(free.solutions[0]) in (["ab", "cd"], ["ac", "bd"])
    assert crossing.status == "unknown" and crossing.stopped_by == "gave-up"  # incomplete, so never 'none'


def test_no_layout_is_proven_none_by_cpsat_only():
    spec = small_spec("qqq", {"qi", "qat"})
    assert cpsat.solve(spec, Control(time_limit=30)).status == "none"
    heuristic = backtrack.solve(spec, "free")
    assert heuristic.status == "unknown" and not heuristic.complete


def test_none_skips_boxes_inside_an_infeasible_one():
    """'none' needs every candidate box settled: solved infeasible, or inside one that is."""
    from tests.conftest import brute_force_bananagrams

    spec = small_spec("aaaaat", WORDS)
    result = cpsat.solve(spec, Control(time_limit=60), tuning=cpsat.Tuning(counting=False))  # the boxes alone
    assert result.status == "none" and brute_force_bananagrams("aaaaat", WORDS) == set()
    settled = {box: how.split()[0] if not how.startswith("inside") else how
               for box, how in (entry.split(":") for entry in result.stats["boxes"])}
    assert {f"{r}x{c}" for r, c in cpsat.candidate_boxes(6)} == settled.keys()
    inside = {box: how.split()[1] for box, how in settled.items() if how.startswith("inside")}
    assert inside and all(settled[big] == "INFEASIBLE" for big in inside.values())
    for box, big in inside.items():
        (r, c), (R, C) = (map(int, b.split("x")) for b in (box, big))
        assert r <= R and c <= C


def test_time_limit_is_unknown():
    spec = small_spec("aacstt", WORDS)
    control = Control()
    control.stop.set()
    assert cpsat.solve(spec, control).status == "unknown"


def test_compact_finds_the_smallest_box():
    spec = small_spec("aacstt", WORDS)
    loose = backtrack.solve(spec, "free").solutions[0]
    padded = tuple(r + "..." for r in loose) + ("." * (len(loose[0]) + 3),)  # a roomier box than needed
    result = cpsat.compact(spec, padded, Control(time_limit=30))
    assert result.status == "found" and result.stats["optimum_proven"]
    assert banana_problems(parse_layout("\n".join(result.solutions[0])), spec.hand, WORDS) == []
    best_area = len(result.solutions[0]) * len(result.solutions[0][0])
    assert best_area <= len(loose) * len(loose[0])
    assert problems("scat\n..ta", "aacstt") == []  # a 2x4 layout found by hand, so the optimum is at most 8
    assert best_area <= 8


def test_bag_and_draws():
    bag = Counter(banana_bag())
    assert sum(bag.values()) == 144 and bag["e"] == 18 and bag["q"] == 2
    hand = draw_hand(21, 7)
    assert len(hand) == 21 and not Counter(hand) - bag and hand == draw_hand(21, 7)


@pytest.mark.parametrize("args,needle", [
    (["banana", " , "], "hand is empty"),
    (["banana", "ab1c"], "only letters"),
    (["banana", "--draw", "145"], "1 to 144"),
    (["banana", "--draw", "0"], "1 to 144"),
    (["banana", "--check", "/no/such/layout.txt"], "layout file not found"),
])
def test_banana_bad_input(args, needle):
    proc = run_cli(*args)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and needle in lines[0], proc.stderr


def test_check_command_reports_rule_and_exit_3(tmp_path, word_file):
    layout = tmp_path / "layout.txt"
    layout.write_text("cat\n...\nsat\n")
    words = word_file(sorted(WORDS))
    proc = run_cli("banana", "aacstt", "--check", str(layout), "--dict", words, "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 3 and doc["valid"] is False and any("islands" in p for p in doc["problems"])


def test_banana_cli_json(word_file):
    words = word_file(sorted(WORDS))
    proc = run_cli("banana", "aacstt", "--dict", words, "--solver", "both", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["status"] == "found" and doc["agreement"] == "both found valid layouts"
    assert {"status", "complete", "seconds", "grid"} <= doc.keys()
    assert all(len(row) == len(doc["grid"][0]) for row in doc["grid"])


def test_restarts_lay_out_a_hand_the_longest_first_order_strands():
    """Seed 40's 40 tiles (jj, xx, q, z): longest first strands a rare letter
    and thrashes; the fail-first restart lays them out in a few nodes."""
    from cpmodel.core.lexicon import load_default

    hand = draw_hand(40, 40)
    table = backtrack.WordTable.of_lexicon(load_default().words).restrict(hand)
    spec = backtrack.BananaSpec(hand, tuple(table.words))
    plain = backtrack.LayoutSearch(spec, "free", Control(), table=table, max_nodes=5000)
    assert plain.run() == "limit"
    result = backtrack.solve(spec, "free", Control(time_limit=60), table=table, max_nodes=20_000)
    assert result.status == "found" and result.stats["order"] == backtrack.HARDEST
    assert result.stats["nodes"] < 5000
    assert banana_problems(parse_layout("\n".join(result.solutions[0])), hand, table.word_set) == []


def test_both_orders_search_the_same_tree():
    """Run dry, both orders visit the same nodes: ordering never drops a move."""
    spec = small_spec("aaaaacst", WORDS)  # too many a's for these words
    visited = []
    for order in (backtrack.LONGEST, backtrack.HARDEST):
        search = backtrack.LayoutSearch(spec, "free", Control(), order=order)
        assert search.run() is None
        visited.append(search.calls)
    assert visited[0] == visited[1] > backtrack.FIRST_BUDGET  # so solve() restarts before it runs dry
    result = backtrack.solve(spec, "free")
    assert result.status == "unknown" and result.stopped_by == "gave-up"
    assert result.stats["nodes"] == 2 * backtrack.FIRST_BUDGET + visited[0]
