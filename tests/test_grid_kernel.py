"""The compiled grid scorer against the pure-Python reference and brute force."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from cpmodel.core.boards import GridBoard, Tile, parse_grid
from cpmodel.core.lexicon import load_default
from cpmodel.core.scoring import score_table
from heuristics import grid
from heuristics import grid_kernel as K
from heuristics.words import build_trie

LETTERS = "aaabcdeeeefghiiijklmnoooprssstttuuvwxyz"  # vowels often, so boards hold words


@pytest.fixture(scope="module")
def words():
    return list(load_default().words)


@pytest.fixture(scope="module")
def tries(words):
    return build_trie(words), K.build_trie(words), K.build_alphabet_trie(words)


def reference_total(board: GridBoard, trie, table, min_len=3, max_len=None) -> int:
    return sum(w.score for w in grid.find_words(board, trie, table, min_len, max_len))


def random_board(rng: random.Random, rows: int, cols: int, qu: float = 0.05) -> GridBoard:
    return GridBoard(rows, cols, tuple(Tile("qu" if rng.random() < qu else rng.choice(LETTERS)) for _ in range(rows * cols)))


def test_trie_arrays_hold_exactly_the_words():
    trie = K.build_trie(["cat", "cats", "ca", "dog", "z"])
    spelled = set()

    def walk(node, prefix):
        if trie.word_of[node] >= 0:
            assert trie.words[trie.word_of[node]] == prefix
            spelled.add(prefix)
        for letter in range(26):
            if trie.children[node, letter]:
                walk(trie.children[node, letter], prefix + chr(97 + letter))

    walk(0, "")
    assert spelled == {"cat", "cats", "ca", "dog", "z"}
    assert len(trie.children) == 1 + len({w[:k] for w in spelled for k in range(1, len(w) + 1)})


@pytest.mark.parametrize("kind", ["boggle", "scramble"])
def test_batch_scorer_equals_reference_on_random_boards(tries, kind):
    """1,500 random boards per scoring, 3x3 to 5x5, some with the Qu tile."""
    trie, _, alphabet = tries
    table = score_table(kind)
    rng = random.Random(7)
    for rows, cols in [(3, 3), (4, 4), (5, 5), (3, 5)]:
        boards = [random_board(rng, rows, cols) for _ in range(375)]
        scorer = K.BatchScorer(alphabet, rows, cols, table)
        codes = np.array([K.encode(b) for b in boards])
        assert list(scorer.scores(codes)) == [reference_total(b, trie, table) for b in boards]


@pytest.mark.parametrize("kind", ["boggle", "scramble"])
def test_general_kernel_equals_reference_with_multipliers_and_long_tiles(tries, kind):
    """Multipliers, [qu] and other multi-letter tiles: totals, words, scores and paths all equal."""
    trie, kernel_trie, _ = tries
    table = score_table(kind)
    scorer = K.Scorer(kernel_trie)
    rng = random.Random(11)
    for n in range(300):
        rows, cols = rng.choice([(3, 3), (4, 4), (5, 5), (2, 4)])
        tiles = []
        for _ in range(rows * cols):
            text = rng.choice(["qu", "th", "er", "in"]) if rng.random() < 0.1 else rng.choice(LETTERS)
            tiles.append(Tile(text, rng.choice([1, 1, 1, 2, 3]), rng.choice([1, 1, 1, 1, 2, 3])))
        board = GridBoard(rows, cols, tuple(tiles))
        min_len, max_len = rng.choice([(3, None), (2, None), (4, 6)])
        geo = K.board_geometry(board, table, min_len, max_len)
        expected = grid.find_words(board, trie, table, min_len, max_len)
        found = sorted(scorer.find(board, geo), key=lambda w: (-w[1], w[0]))
        assert [(w.word, w.score, [r * cols + c for r, c in w.path]) for w in expected] == [tuple(f) for f in found]
        assert scorer.total(np.arange(rows * cols), geo) == sum(w.score for w in expected)


def all_path_words(board: GridBoard, word_set: set[str]) -> set[str]:
    """Every simple 8-neighbour path spelled out and looked up: the definition."""
    adjacent = grid.neighbours(board.rows, board.cols)
    found = set()

    def extend(cell, used, text):
        text += board.tiles[cell].text
        if len(text) >= 3 and text in word_set:
            found.add(text)
        for nxt in adjacent[cell]:
            if nxt not in used:
                extend(nxt, used | {nxt}, text)

    for start in range(len(board.tiles)):
        extend(start, {start}, "")
    return found


def test_every_2x2_board_over_a_tiny_alphabet_against_brute_force():
    """All 4^4 boards of a 2x2 over {a, e, t, qu}: the set of words, and the Boggle total."""
    word_set = {"tea", "eat", "ate", "tee", "teat", "quat", "equa", "aqua", "tat", "quate", "eta", "etat"}
    table = score_table("boggle")
    alphabet, scorer = K.build_alphabet_trie(word_set), K.Scorer(K.build_trie(word_set))
    batch = K.BatchScorer(alphabet, 2, 2, table)
    boards = [GridBoard(2, 2, tuple(Tile(t) for t in combo)) for combo in itertools.product(["a", "e", "t", "qu"], repeat=4)]
    totals = batch.scores(np.array([K.encode(b) for b in boards]))
    for board, total in zip(boards, totals):
        expected = all_path_words(board, word_set)
        geo = K.board_geometry(board, table)
        assert {w for w, _, _ in scorer.find(board, geo)} == expected
        assert total == sum(table.score(w, []) for w in expected)


def test_known_boards_on_the_default_list(tries):
    trie, _, alphabet = tries
    table = score_table("boggle")
    board = parse_grid("perslatgsineters")
    assert K.BatchScorer(alphabet, 4, 4, table).score(K.encode(board)) == reference_total(board, trie, table)
    assert K.encode(parse_grid("a+2bcdefghijklmnop")) is None  # a multiplier: the general kernel's job
    assert K.encode(parse_grid("[th]bcdefghijklmnop")) is None
