"""The compiled grid scorer against the pure-Python reference and brute force."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpmodel.core.boards import GridBoard, Tile, parse_grid
from cpmodel.core.lexicon import load_default
from cpmodel.core.scoring import score_table
from heuristics import grid
from heuristics import grid_kernel as K

LETTERS = "aaabcdeeeefghiiijklmnoooprssstttuuvwxyz"  # vowels often, so boards hold words


@pytest.fixture(scope="module")
def words():
    return list(load_default().words)


@pytest.fixture(scope="module")
def tries(words):
    return grid.SortedWords.of(words), K.build_trie(words), K.build_alphabet_trie(words)


def reference_total(board: GridBoard, lexicon: grid.SortedWords, table, min_len=3, max_len=None) -> int:
    return sum(w.score for w in grid.find_words(board, lexicon, table, min_len, max_len))


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


def spelled_words(trie: K.AlphabetTrie, table=None) -> dict[str, int]:
    """Every word the alphabet trie holds, spelled out (q → qu), with its node, by a walk from the root."""
    found: dict[str, int] = {}

    def walk(v: int, prefix: str) -> None:
        bits, child = int(trie.node[v, 0]), int(trie.node[v, 1])
        if bits & K.WORD:
            found[prefix] = v
        for c in range(26):
            if bits >> c & 1:
                walk(child, prefix + K.ALPHABET[c])
                child += 1

    walk(0, "")
    return found


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abqu", min_size=1, max_size=6), max_size=25), st.sampled_from([2, 3, 4]))
def test_alphabet_trie_holds_exactly_the_spellable_words_breadth_first(words, min_len):
    trie = K.build_alphabet_trie(words)
    spellable = {w for w in words if w.count("q") == w.count("qu")}
    nodes = spelled_words(trie)
    assert set(nodes) == spellable
    tiles = {w.replace("qu", "q") for w in spellable}
    assert trie.nodes == 1 + len({t[:k] for t in tiles for k in range(1, len(t) + 1)})
    depth = [len(w.replace("qu", "q")) for w in sorted(nodes, key=nodes.get)]
    assert depth == sorted(depth)  # breadth first: no word's node comes before a shallower one's
    geo = K.geometry(3, 3, K.ALPHABET, score_table("boggle"), min_len)
    points = K.node_points(trie, geo)
    for word, v in nodes.items():
        assert points[v] == (geo.points[len(word)] if min_len <= len(word) <= geo.max_len else 0)
    assert points[[v for v in range(trie.nodes) if v not in nodes.values()]].sum() == 0


@pytest.mark.parametrize("kind", ["boggle", "scramble"])
def test_batch_scorer_equals_reference_on_random_boards(tries, kind):
    """600 random boards per scoring, 3x3 to 5x5, some with the Qu tile."""
    lexicon, _, alphabet = tries
    table = score_table(kind)
    rng = random.Random(7)
    for rows, cols in [(3, 3), (4, 4), (5, 5), (3, 5)]:
        boards = [random_board(rng, rows, cols) for _ in range(150)]
        scorer = K.BatchScorer(alphabet, rows, cols, table)
        codes = np.array([K.encode(b) for b in boards])
        assert list(scorer.scores(codes)) == [reference_total(b, lexicon, table) for b in boards]


@pytest.mark.parametrize("kind", ["boggle", "scramble"])
def test_general_kernel_equals_reference_with_multipliers_and_long_tiles(tries, kind):
    """Multipliers, [qu] and other multi-letter tiles: totals, words, scores and paths all equal."""
    lexicon, kernel_trie, _ = tries
    table = score_table(kind)
    scorer = K.Scorer(kernel_trie)
    rng = random.Random(11)
    for _ in range(300):
        rows, cols = rng.choice([(3, 3), (4, 4), (5, 5), (2, 4)])
        tiles = []
        for _ in range(rows * cols):
            text = rng.choice(["qu", "th", "er", "in"]) if rng.random() < 0.1 else rng.choice(LETTERS)
            tiles.append(Tile(text, rng.choice([1, 1, 1, 2, 3]), rng.choice([1, 1, 1, 1, 2, 3])))
        board = GridBoard(rows, cols, tuple(tiles))
        min_len, max_len = rng.choice([(3, None), (2, None), (4, 6)])
        geo = K.board_geometry(board, table, min_len, max_len)
        expected = grid.find_words(board, lexicon, table, min_len, max_len)
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
    for board, total in zip(boards, totals, strict=True):
        expected = all_path_words(board, word_set)
        geo = K.board_geometry(board, table)
        assert {w for w, _, _ in scorer.find(board, geo)} == expected
        assert total == sum(table.score(w, []) for w in expected)


def test_known_boards_on_the_default_list(tries):
    lexicon, _, alphabet = tries
    table = score_table("boggle")
    board = parse_grid("perslatgsineters")
    assert K.BatchScorer(alphabet, 4, 4, table).score(K.encode(board)) == reference_total(board, lexicon, table)
    assert K.encode(parse_grid("a+2bcdefghijklmnop")) is None  # a multiplier: the general kernel's job
    assert K.encode(parse_grid("[th]bcdefghijklmnop")) is None


# -- the command: --score-file and --best ------------------------------------------------

from tests.conftest import run_cli, run_json  # noqa: E402
from tests.test_hardening import _restore_signal_handlers  # noqa: E402,F401  (autouse: cli.main in-process)

SMALL = ["tea", "eat", "ate", "teas", "seat", "east", "sat", "set", "net", "ten", "tens", "nest", "quest", "quiet",
         "sent", "tees", "seen", "teen", "teens", "ease", "eats"]


def test_score_file_prints_one_total_per_board_equal_to_grid(word_file, tmp_path):
    path = word_file(SMALL)
    boards = ["tea/sen/ttq", "[qu]est/eats/tens/east", "t+2e*2a/sen/xxx", "te/as"]
    (tmp_path / "boards.txt").write_text("\n".join(boards[:2]) + "\n\n" + "\n".join(boards[2:]) + "\n")
    proc = run_cli("grid", "--score-file", str(tmp_path / "boards.txt"), "--dict", path, "--score", "scramble")
    assert proc.returncode == 0, proc.stderr
    expected = [run_json("grid", b, "--dict", path, "--score", "scramble")[0]["total"] for b in boards]
    assert [int(line) for line in proc.stdout.split()] == expected and max(expected) > 0
    doc, _ = run_json("grid", "--score-file", str(tmp_path / "boards.txt"), "--dict", path, "--score", "scramble")
    assert doc["totals"] == expected and doc["boards"] == 4


def test_score_file_bad_line_keeps_the_totals_before_it_and_exits_2(word_file):
    import subprocess
    import sys

    from tests.conftest import ROOT

    path = word_file(SMALL)
    proc = subprocess.run([sys.executable, "-m", "cpmodel", "grid", "--score-file", "-", "--dict", path],
                          input="tea/sen/xxx\nte1/abc/def\n", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stdout.split() == [str(run_json("grid", "tea/sen/xxx", "--dict", path)[0]["total"])]
    assert "line 2" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("size,kind", [("2x2", "boggle"), ("3x4", "scramble")])
def test_best_finds_a_board_says_best_found_and_claims_nothing(word_file, size, kind):
    path = word_file(SMALL)
    doc, proc = run_json("grid", "--best", size, "--time-limit", "3", "--dict", path, "--score", kind, "--jobs", "2")
    assert proc.returncode == 0 and doc["optimal"] is False and doc["complete"] is False
    assert doc["best_found"] == doc["total"] > 0 and doc["history"][-1][1] == doc["total"]
    assert doc["portfolio"]["engines"] == ["hillclimb", "anneal"] and doc["evaluations"] > 0
    # the limit is the whole command's: under load, Python and the kernels' loading can take 2 s of the 3
    text = run_cli("grid", "--best", size, "--time-limit", "3", "--dict", path, "--score", kind).stdout
    assert "best board found" in text and "optimal" not in text.replace("not proven optimal", "")


def test_best_2x2_reaches_the_exhaustive_optimum(word_file):
    """Every 2x2 board over a-z (26^4, scored by the kernel) against what --best finds in 3 s."""
    from cpmodel.core.scoring import score_table

    words = ["tea", "eat", "ate", "eta", "teat", "seat", "east", "sate", "etas", "teas", "eats", "rate", "tear"]
    batch = K.BatchScorer(K.build_alphabet_trie(words), 2, 2, score_table("boggle"))
    every = np.array(list(itertools.product(range(26), repeat=4)), np.int8)
    optimum = int(batch.scores(every).max())
    doc, _ = run_json("grid", "--best", "2x2", "--time-limit", "3", "--dict", word_file(words))
    assert doc["total"] == optimum and doc["optimal"] is False


def test_best_stops_at_its_target_and_says_so(word_file):
    """--target: the race ends as soon as a board scores that much, well before the limit."""
    words = ["tea", "eat", "ate", "eta", "teat", "seat", "east", "sate", "etas", "teas", "eats", "rate", "tear"]
    path = word_file(words)
    doc, proc = run_json("grid", "--best", "2x2", "--time-limit", "60", "--target", "2", "--dict", path, "--jobs", "2")
    assert proc.returncode == 0 and doc["stopped_by"] == "target" and doc["total"] >= 2
    assert doc["seconds"] < 30 and doc["optimal"] is False
    beyond = run_cli("grid", "--best", "2x2", "--time-limit", "2", "--target", "1000", "--dict", path, "--json")
    assert json.loads(beyond.stdout)["stopped_by"] == "time-limit"  # an unreachable target: the limit stops it


@pytest.mark.parametrize("argv", [["tea/sen/xxx", "--target", "5"], ["--best", "2x2", "--prove", "--target", "5"]])
def test_target_needs_a_best_board_search(argv):
    proc = run_cli("grid", *argv)
    assert proc.returncode == 2 and "--target goes with --best" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_best_refuses_sizes_beyond_5x5():
    proc = run_cli("grid", "--best", "6x6")
    assert proc.returncode == 2 and "2x2 to 5x5" in proc.stderr


def test_score_file_ctrl_c_keeps_the_lines_printed(word_file):
    """Boards stream in on stdin; after two batches are printed, Ctrl-C: exit 130, every printed line whole."""
    import os
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", "grid", "--score-file", "-", "--dict", word_file(SMALL)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    proc.stdin.write("tea/sen/xxx\n" * 5000)
    proc.stdin.flush()  # stdin stays open: the command waits for the rest of the third batch
    lines = [proc.stdout.readline() for _ in range(4096)]
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert lines == [lines[0]] * 4096 and lines[0].strip().isdigit() and rest == ""


def test_score_file_json_stopped_keeps_the_totals_scored(word_file, tmp_path, monkeypatch, capsys):
    """With --json nothing is printed before the end: a stop gave a generic empty
    document and lost every total. Now the document holds the totals scored so far."""
    from cpmodel.commands import cli
    from cpmodel.commands import grid as grid_command

    boards = [parse_grid(b) for b in ("tea/sen/xxx", "sat/eat/ten", "qua/tes/nie", "xyz/abc/def")]
    scored = [reference_total(b, grid.SortedWords.of(SMALL), score_table("boggle")) for b in boards]

    def two_batches_then_a_stop(chunks, drop_bom=True):
        from heuristics.grid_lines import BoardBlock

        yield [(BoardBlock.of(boards[:2]), 0, 2)]
        yield [(BoardBlock.of(boards[2:]), 0, 2)]
        raise KeyboardInterrupt  # Ctrl-C while the third batch is read

    monkeypatch.setattr(grid_command, "_batches", two_batches_then_a_stop)
    (tmp_path / "boards.txt").write_text("unused\n")
    code = cli.main(["grid", "--score-file", str(tmp_path / "boards.txt"), "--dict", word_file(SMALL), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 130 and doc["totals"] == scored and doc["boards"] == 4
    assert doc["status"] == "found" and doc["complete"] is False and doc["stopped_by"] == "interrupt"


def test_best_stopped_before_any_board_is_unknown_never_none(word_file):
    doc, proc = run_json("grid", "--best", "3x3", "--time-limit", "0.01", "--dict", word_file(SMALL))
    assert proc.returncode == 0 and doc["complete"] is False and doc["optimal"] is False
    assert doc["status"] == "unknown" and doc["board"] is None or doc["status"] == "found" and doc["total"] >= 0


def test_a_climb_stopped_before_its_first_round_hands_back_its_seed_board(tries):
    """The climber seeds each climb with a short annealing run; stopped there (a slow
    machine, an early Ctrl-C), it returned no board at all, though it had scored some."""
    from cpmodel.core.control import Control
    from heuristics import grid_search as S

    lexicon, _, alphabet = tries
    spec = S.BestBoardSpec(4, 4, alphabet, score_table("boggle"))
    class StopsDuringTheSeed(Control):
        looks = 0

        def stop_reason(self):
            self.looks += 1
            return None if self.looks == 1 else "interrupt"  # the climb starts, then its seed is stopped

    climb = S.hill_climb(spec, 1, StopsDuringTheSeed())
    board = parse_grid("/".join(S.board_rows(spec, climb.codes)))
    assert climb.score > 0 and climb.score == reference_total(board, lexicon, score_table("boggle"))
    assert [score for _, score in climb.history][-1] == climb.score


@pytest.mark.parametrize("rows,cols", [(4, 4), (3, 5)])
def test_canonical_form_is_shared_by_every_symmetric_image_and_keeps_the_score(tries, rows, cols):
    from heuristics import grid_search as S

    _, _, alphabet = tries
    perms = S.symmetries(rows, cols)
    assert len(perms) == (8 if rows == cols else 4) and all(sorted(p) == list(range(rows * cols)) for p in perms)
    scorer = K.BatchScorer(alphabet, rows, cols, score_table("boggle"))
    board = np.random.default_rng(3).integers(0, 26, rows * cols).astype(np.int8)
    images = np.array([board[p] for p in perms])
    canonical = S._canonical_all(images, perms)
    assert (canonical == canonical[0]).all() and tuple(canonical[0]) == min(tuple(i) for i in images)
    assert len(set(scorer.scores(images))) == 1 and scorer.score(canonical[0]) == scorer.score(board)


def test_documents_match_docs_json(word_file, tmp_path):
    from tests.test_hardening import _matches

    path = word_file(SMALL)
    (tmp_path / "b.txt").write_text("tea/sen/xxx\n")
    _matches(run_json("grid", "--score-file", str(tmp_path / "b.txt"), "--dict", path)[0], "grid --score-file")
    _matches(run_json("grid", "--best", "2x3", "--time-limit", "1", "--dict", path)[0], "`grid`")
    _matches(run_json("grid", "--best", "2x3", "--time-limit", "0.001", "--dict", path)[0], "`grid`")


def test_grid_plan_gives_the_climber_every_core_but_one_to_annealing():
    from cpmodel.run.portfolio import Entrant, grid_plan

    assert grid_plan(1) == [Entrant("hillclimb")]
    assert grid_plan(2) == [Entrant("hillclimb"), Entrant("anneal")]
    assert [str(e) for e in grid_plan(4)] == ["hillclimb×3", "anneal"]
