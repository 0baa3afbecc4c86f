"""Peel, game and SVG: every layout validated, moved counts checked, CLI keys via subprocess."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter

from cpmodel.core.boards import parse_layout
from cpmodel.core.control import Control
from cpmodel.core.validate import banana_problems
from cpmodel.show.svg import layout_svg
from heuristics.bananagrams import WordTable
from heuristics.game import DUMP, PEEL, START, hardness, play
from heuristics.peel import ATTACH, REPAIR, RESOLVE, STUCK, PeelLimits, align, attach, moved_tiles, peel
from tests.conftest import run_cli

WORDS = ["cat", "cats", "at", "as", "ta", "act", "sat", "tas", "scat", "qi", "it", "is", "ti", "si",
         "tic", "tics", "ai", "ais", "sac", "tact", "ax", "xi", "ta", "to", "so", "os", "ox", "on", "no"]
TABLE = WordTable.of_lexicon(list(dict.fromkeys(WORDS)))


def test_peel_attaches_without_moving():
    cells = parse_layout("cat")
    result = peel(cells, "s", TABLE)
    assert result.stage == ATTACH and result.moved == 0
    assert all(result.cells[cell] == letter for cell, letter in cells.items())
    assert banana_problems(result.cells, "acst", TABLE.word_set) == []


def test_peel_falls_back_to_resolve_and_counts_moved_tiles():
    cells = parse_layout("sat")  # no hook for c: csat, sctt, ca, cs, ct are no words
    result = peel(cells, "c", TABLE)
    assert result.stage == RESOLVE and result.cells is not None
    assert banana_problems(result.cells, "acst", TABLE.word_set) == []
    assert result.moved == moved_tiles(cells, result.cells) == 1  # "cats", aligned: a and t stay, s moves


def test_peel_repairs_by_taking_back_one_word():
    cells = parse_layout("a..\nsac")  # "as" down, "sac" across; a second c hooks nowhere
    assert attach(cells, "c", "aaccs", TABLE, Control(), 400)[0] is None  # stage 1 fails
    result = peel(cells, "c", TABLE)
    assert result.stage == REPAIR and result.cells is not None
    assert banana_problems(result.cells, "aaccs", TABLE.word_set) == []
    assert result.moved == moved_tiles(cells, result.cells) == 1  # only the a of "as" was taken back
    assert sum(result.cells.get(cell) == letter for cell, letter in cells.items()) == 3


def test_peel_several_tiles():
    peeled = peel(parse_layout("ta"), "xi", TABLE)
    assert peeled.cells is not None and banana_problems(peeled.cells, "aitx", TABLE.word_set) == []
    assert peeled.moved == moved_tiles(parse_layout("ta"), peeled.cells)


def test_moved_counts_and_alignment():
    old = parse_layout("cat")
    shifted = {(r + 3, c + 5): ch for (r, c), ch in parse_layout("c\na\nt").items()}  # transposed and moved
    assert moved_tiles(old, shifted) == 3
    assert moved_tiles(old, align(shifted, old)) == 0


def test_game_steps_are_valid_and_consistent():
    from cpmodel.core.lexicon import load_default

    table = WordTable.of_lexicon(load_default().words)
    game = play(table, seed=3)
    assert game.steps[0].action == "start" and len(game.steps[0].hand) == 21
    previous = {}
    for step in game.steps:
        cells = parse_layout("\n".join(step.grid))
        placed = "".join(sorted(step.hand))
        for ch in step.rack:
            placed = placed.replace(ch, "", 1)
        assert banana_problems(cells, placed, table.word_set) == []
        assert step.moved >= 0
        previous = cells
    assert game.finished == (len(previous) == 144)
    assert game.finished  # seed 3 is a finishing game (measured)


def step_layout_is_valid(step, word_set) -> bool:
    """The step's grid holds exactly the tiles held minus the rack, and obeys the rules."""
    placed = Counter(step.hand) - Counter(step.rack)
    cells = parse_layout("\n".join(step.grid))
    return banana_problems(cells, "".join(sorted(placed.elements())), word_set) == []


def test_game_reaches_a_dump_and_goes_on():
    """A small lexicon (300 words of each length) and node-only limits, so the
    run is the same on any machine: seed 2 gets stuck at a peel, dumps the
    rack's hardest letter for three tiles, and still finishes."""
    from cpmodel.core.lexicon import load_default

    table = WordTable.of_lexicon(load_default().words, top=300)
    limits = PeelLimits(repair_seconds=600, resolve_seconds=600, resolve_nodes=2000)
    game = play(table, seed=2, limits=limits)
    actions = [s.action for s in game.steps]
    assert DUMP in actions and game.finished and game.to_json()["stopped_by"] is None
    at = actions.index(DUMP)
    stuck, dump = game.steps[at - 1], game.steps[at]
    assert stuck.action == PEEL and stuck.stage == STUCK and stuck.rack
    difficulty = hardness(table)
    assert dump.dumped == min(stuck.rack, key=lambda letter: (difficulty[letter], letter))
    assert len(dump.drawn) == 3
    assert Counter(dump.hand) == Counter(stuck.hand) - Counter(dump.dumped) + Counter(dump.drawn)
    assert all(step_layout_is_valid(step, table.word_set) for step in game.steps)
    assert moved_tiles(parse_layout("\n".join(stuck.grid)), parse_layout("\n".join(dump.grid))) == dump.moved


def test_svg_is_well_formed():
    doc = layout_svg(parse_layout("cat\n..a"), {(1, 2): 4}, "t", "legend")
    root = ET.fromstring(doc)
    assert root.tag.endswith("svg") and doc.count("<rect") == 1 + 4


def test_cli_peel_json(tmp_path, word_file):
    words = word_file(WORDS)
    layout = tmp_path / "layout.txt"
    layout.write_text("cat\n")
    proc = run_cli("banana", "s", "--peel", str(layout), "--dict", words, "--json", "--svg", str(tmp_path / "p.svg"))
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["status"] == "found" and doc["moved"] == 0 and doc["stage"] == "attach"
    assert banana_problems(parse_layout("\n".join(doc["grid"])), "acst", set(WORDS)) == []
    (tmp_path / "l.json").write_text(json.dumps({"grid": doc["grid"]}))
    again = json.loads(run_cli("banana", "a", "--peel", str(tmp_path / "l.json"), "--dict", words, "--json").stdout)
    assert {"status", "grid", "moved", "stage", "seconds"} <= again.keys()
    bad = run_cli("banana", "s", "--peel", str(layout), "--dict", word_file(["dog"]))
    assert bad.returncode == 2 and "not a valid layout" in bad.stderr
    ET.parse(tmp_path / "p.svg")


GAME_KEYS = {"puzzle", "seed", "players", "dump_policy", "finished", "tiles_placed", "bag_left", "peels", "dumps",
             "moved_total", "stopped_by", "seconds", "steps"}  # docs/json.md, banana --game
STEP_KEYS = {"action", "drawn", "dumped", "hand", "rack", "grid", "moved", "stage", "seconds", "nodes"}


def test_cli_game_json_has_the_documented_keys_and_valid_steps(tmp_path):
    from cpmodel.core.lexicon import load_default

    game = run_cli("banana", "--game", "--seed", "3", "--json", "--svg", str(tmp_path / "g.svg"))
    doc = json.loads(game.stdout)
    assert game.returncode == 0 and GAME_KEYS <= doc.keys() and doc["finished"] is True
    assert doc["steps"][0]["action"] == START and len(doc["steps"][0]["hand"]) == 21
    word_set = set(load_default().words)
    for step in doc["steps"]:
        assert STEP_KEYS <= step.keys() and step["action"] in {START, PEEL, DUMP}
        assert isinstance(step["moved"], int) and step["seconds"] >= 0
        placed = Counter(step["hand"]) - Counter(step["rack"])
        assert banana_problems(parse_layout("\n".join(step["grid"])), "".join(placed.elements()), word_set) == []
    assert doc["tiles_placed"] == 144 and doc["bag_left"] == 0
    assert doc["peels"] == sum(s["action"] == PEEL for s in doc["steps"])
    assert doc["moved_total"] == sum(s["moved"] for s in doc["steps"])
    ET.parse(tmp_path / "g.svg")
