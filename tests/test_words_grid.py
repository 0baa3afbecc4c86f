"""Word finders against brute-force references, and hand-computed scores."""

from __future__ import annotations

import random
import re

import pytest

from cpmodel.core.boards import GridBoard, Tile, parse_grid
from cpmodel.core.errors import InputError
from cpmodel.core.lexicon import load_default
from cpmodel.core.scoring import score_table
from heuristics import grid
from heuristics import words as W


@pytest.fixture(scope="module")
def lexicon_words():
    return [w for w in load_default().words if len(w) <= 7]


@pytest.fixture(scope="module")
def index(lexicon_words):
    return W.WordIndex(lexicon_words)


@pytest.mark.parametrize("seed", range(6))
def test_all_rack_methods_match_brute_force(index, lexicon_words, seed):
    rng = random.Random(seed)
    size = rng.randint(4, 6)
    rack = "".join(rng.choice("aaeeiioorrsttnlcdpmu") for _ in range(size))
    if seed % 2:
        rack = rack[:-1] + "?"  # one blank on odd seeds
    expected = W.by_brute_force(set(lexicon_words), rack)
    assert [f.word for f in W.find_words(index, rack)] == expected
    assert [f.word for f in W.by_prefiltered_trie(index, rack)] == expected
    assert W.by_count_scan(lexicon_words, rack) == expected


def test_blank_positions_are_reported(index):
    found = {f.word: f.blanks for f in W.find_words(index, "ca?")}
    assert found["cat"] == (2,) and found["act"] == (2,) and found["arc"] == (1,)
    assert all(len(b) == 1 for b in found.values())  # 'ca?' has no word without the blank


def test_rack_min_max(index):
    found = W.find_words(index, "retains", min_len=6, max_len=6)
    assert found and all(len(f.word) == 6 for f in found)


def all_path_words(board: GridBoard, word_set: set[str], max_len: int) -> set[str]:
    """Every simple 8-neighbour path, spelled out and looked up: the definition."""
    adjacent = grid.neighbours(board.rows, board.cols)
    found = set()

    def extend(cell, used, text):
        text += board.tiles[cell].text
        if len(text) > max_len:
            return
        if len(text) >= 3 and text in word_set:
            found.add(text)
        for nxt in adjacent[cell]:
            if nxt not in used:
                extend(nxt, used | {nxt}, text)

    for start in range(len(board.tiles)):
        extend(start, {start}, "")
    return found


@pytest.mark.parametrize("seed", range(4))
def test_grid_search_matches_all_paths(lexicon_words, seed):
    rng = random.Random(seed)
    letters = [rng.choice("aeioustrnlcdpm") for _ in range(9)]
    if seed == 3:
        letters[4] = "qu"
    board = GridBoard(3, 3, tuple(Tile(t) for t in letters))
    found = grid.find_words(board, grid.SortedWords.of(lexicon_words), score_table("boggle"), max_len=7)
    assert {w.word for w in found} == all_path_words(board, set(lexicon_words), 7)
    for w in found:  # each reported path really spells the word along adjacent tiles
        assert "".join(board.tile(r, c).text for r, c in w.path) == w.word
        assert all(max(abs(a - c), abs(b - d)) == 1 for (a, b), (c, d) in zip(w.path, w.path[1:], strict=False))
        assert len(set(w.path)) == len(w.path)


def test_qu_tile_spells_two_letters_and_counts_two_for_boggle():
    board = parse_grid("Quits/xxxx/xxxx/xxxx")
    lexicon = grid.SortedWords.of(["quit", "quits", "suit"])
    found = {w.word: w for w in grid.find_words(board, lexicon, score_table("boggle"))}
    assert set(found) == {"quit", "quits"} and len(found["quits"].path) == 4  # Qu, i, t, s
    assert found["quit"].score == 1 and found["quits"].score == 2  # four and five letters
    assert parse_grid("[qu]ait/xxxx/xxxx/xxxx").tiles[0] == Tile("qu")


def test_boggle_points_by_length():
    table = score_table("boggle")
    assert [table.score("x" * n, []) for n in range(2, 11)] == [0, 1, 1, 2, 3, 5, 11, 11, 11]


def test_scramble_multipliers_and_length_bonus():
    table = score_table("scramble")
    # c+2 (4·2) a*2 (1) t (1): (8 + 1 + 1) · 2 = 20
    board = parse_grid("c+2a*2t/xxx/xxx")
    assert board.tiles[0] == Tile("c", 2, 1) and board.tiles[1] == Tile("a", 1, 2)
    assert table.score("cat", board.tiles[:3]) == 20
    # a five-letter word: s1 t1 a1 r1 e1 = 5, +3 length bonus, word ×3 = 5·3 + 3 = 18
    five = [Tile("s"), Tile("t", 1, 3), Tile("a"), Tile("r"), Tile("e")]
    assert table.score("stare", five) == 18


def test_score_table_override():
    table = score_table("scramble", '{"letter_values": {"c": 9}, "length_bonus": {"5": 100}}')
    assert table.score("cat", [Tile("c"), Tile("a"), Tile("t")]) == 11
    assert table.score("stare", [Tile(c) for c in "stare"]) == 105
    with pytest.raises(InputError):
        score_table("scramble", '{"letter_values": {"c": "many"}}')


@pytest.mark.parametrize("text,needle", [
    ("abc", "needs 16 tiles"),
    ("abc/de", "same number of tiles"),
    ("a+5bcdefghijklmnop", "unknown multiplier"),
    ("[qubcdefghijklmnop", "unbalanced '['"),
    ("ab1defghijklmnop", "unexpected character"),
    ("", "empty"),
])
def test_bad_boards(text, needle):
    with pytest.raises(InputError, match=re.escape(needle)):
        parse_grid(text)


def test_dice_roll_is_seeded_and_uses_every_die():
    board = grid.roll_dice(5)
    assert board == grid.roll_dice(5) and board != grid.roll_dice(6)
    import networkx as nx

    faces = [t.text for t in board.tiles]
    dice = [set(d.replace("Q", "")) | ({"qu"} if "Q" in d else set()) for d in grid.CLASSIC_DICE]
    graph = nx.Graph()  # tile k — die d when die d has tile k's face
    graph.add_nodes_from((("tile", k) for k in range(16)), bipartite=0)
    graph.add_edges_from((("tile", k), ("die", d)) for k, f in enumerate(faces) for d, die in enumerate(dice) if f in die)
    matching = nx.bipartite.maximum_matching(graph, top_nodes=[("tile", k) for k in range(16)])
    assert len(matching) == 32  # every tile shows a face of its own die


def test_annealing_improves_on_its_start(lexicon_words):
    trie = W.build_trie(lexicon_words)
    result = grid.best_board(3, 3, trie, score_table("boggle"), seed=1, time_limit=1.0)
    adjacent = grid.neighbours(3, 3)
    points = grid.points_by_length(score_table("boggle"))
    assert result.score == grid.boggle_total([t.text for t in result.board.tiles], adjacent, trie, points)
    assert result.score > result.history[0][1] and result.evaluations > 10


def test_finder_validators_catch_bad_answers():
    from cpmodel.core.validate import grid_word_problems, rack_word_problems

    words = {"cat", "act", "tact"}
    assert rack_word_problems("cat", "tac", (), words) == []
    assert rack_word_problems("cat", "ta?", (0,), words) == []
    assert any("beyond the rack" in p for p in rack_word_problems("tact", "tac", (), words))
    assert any("not a dictionary word" in p for p in rack_word_problems("tac", "tac", (), words))
    board = parse_grid("cat/xxx/xxx")
    assert grid_word_problems(board, "cat", [(0, 0), (0, 1), (0, 2)], words) == []
    assert any("do not touch" in p for p in grid_word_problems(board, "act", [(0, 1), (0, 0), (0, 2)], words))
    assert any("twice" in p for p in grid_word_problems(board, "tact", [(0, 2), (0, 1), (0, 0), (0, 1)], words))
