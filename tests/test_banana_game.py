"""Peel, game and SVG: every layout validated, moved counts checked, CLI keys via subprocess."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from conftest import run_cli
from cpmodel.boards import parse_layout
from cpmodel.game import play
from cpmodel.svg import layout_svg
from cpmodel.validate import banana_problems
from heuristics.bananagrams import WordTable
from heuristics.peel import ATTACH, RESOLVE, align, moved_tiles, peel

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
    from cpmodel.lexicon import load_default

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


def test_svg_is_well_formed():
    doc = layout_svg(parse_layout("cat\n..a"), {(1, 2): 4}, "t", "legend")
    root = ET.fromstring(doc)
    assert root.tag.endswith("svg") and doc.count("<rect") == 1 + 4


def test_cli_peel_and_game_json(tmp_path, word_file):
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
    game = run_cli("banana", "--game", "--seed", "3", "--json", "--svg", str(tmp_path / "g.svg"))
    gdoc = json.loads(game.stdout)
    assert game.returncode == 0 and isinstance(gdoc["finished"], bool)
    assert {"action", "hand", "grid", "moved", "seconds"} <= gdoc["steps"][0].keys()
    assert {s["action"] for s in gdoc["steps"]} <= {"start", "peel", "dump"}
    ET.parse(tmp_path / "g.svg")
