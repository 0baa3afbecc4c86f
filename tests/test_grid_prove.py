"""grid --best RxC --prove: bounds that are true bounds, proofs checked by brute force, honest stops."""

from __future__ import annotations

import itertools
import json
import math
import random
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cpmodel.core.boards import parse_grid
from cpmodel.core.scoring import score_table
from cpmodel.run.grid_prove import seed_board
from heuristics import grid
from heuristics.grid_bound import Bounder, Tables, adjacency, length_points, letters_of, mask_of
from heuristics.grid_breaker import (
    BUCKETS_SMALL,
    Breaker,
    board_text,
    canonical_classes,
    digits_of,
    split_for,
    symmetries,
    uniform,
)
from tests.conftest import ROOT, run_cli
from tests.test_hardening import _restore_signal_handlers  # noqa: F401  (autouse: cli.main in-process takes signals)

BOGGLE = score_table("boggle")
# A small lexicon over few letters (so that 2x2 brute force over those letters is exhaustive), with Qu words.
WORDS = """eat tea ate eta sea set east seat teas etas sate eats tae tas sat ates rat tar art rats star tsar arts
tars rate tear tare rates stare tears aster taser ere tee tree trees steer reset ester terse rest erst ret
res sae ear era are ares ears eras sear seer quest quiet quire quit quits suet ruse sure user true""".split()
REFERENCE_WORDS = grid.SortedWords.of(WORDS)
LETTERS = "".join(sorted({ch for w in WORDS for ch in w.replace("qu", "q")}))  # every letter a word uses


def reference_score(board: str, cols: int) -> int:
    """The Python reference scorer (heuristics.grid.find_words) on tile letters ('q' is Qu)."""
    tiles = ["[qu]" if ch == "q" else ch for ch in board]
    rows = "/".join("".join(tiles[r:r + cols]) for r in range(0, len(tiles), cols))
    return sum(w.score for w in grid.find_words(parse_grid(rows), REFERENCE_WORDS, BOGGLE))


@pytest.fixture(scope="module")
def breaker22():
    return Breaker(WORDS, BOGGLE, 2, 2)


@pytest.fixture(scope="module")
def brute(breaker22) -> int:
    """The best 2x2 total by brute force: every board over the lexicon's letters, scored."""
    return max(breaker22.score("".join(b)) for b in itertools.product(LETTERS, repeat=4))


@pytest.fixture(scope="module")
def breaker23():
    return Breaker(WORDS, BOGGLE, 2, 3)


def test_kernel_scores_like_the_reference():
    rng = random.Random(7)
    bounder = Bounder(Tables(WORDS, BOGGLE, 9), 3, 3)
    for _ in range(300):
        board = "".join(rng.choice(LETTERS + "ion") for _ in range(9))
        assert bounder.score(letters_of(board)) == reference_score(board, 3), board


def test_proof_on_2x2_matches_brute_force(breaker22, brute):
    """Every 2x2 board over the lexicon's letters (a board with another letter only loses words),
    scored; the branch and bound from scratch (score to beat: 0) finds the same optimum."""
    out = breaker22.break_classes(canonical_classes(2, 2, breaker22.split), 0)
    assert out.stopped_by is None and out.done == len(canonical_classes(2, 2, breaker22.split))
    assert out.best == brute > 0
    assert reference_score(out.board.replace("[qu]", "q"), 2) == brute


def test_proof_prunes_with_the_optimum_as_score_to_beat(breaker22, brute):
    """Seeded with the optimum, no class holds a better board: nothing is found, everything finishes."""
    out = breaker22.break_classes(canonical_classes(2, 2, breaker22.split), brute)
    assert out.board is None and out.best == brute and out.stopped_by is None


def test_canonical_classes_cover_every_orbit():
    """Every class is the image of exactly one canonical class under some symmetry,
    with the same buckets everywhere and with 3x4's two-bucket corners."""
    for rows, cols, split in ((2, 2, uniform(("ab", "c", "d", "e"), 4)), (2, 3, uniform(("ab", "c", "d", "e"), 6)),
                              (3, 3, uniform(("a", "b"), 9)), (3, 4, split_for(3, 4))):
        n = rows * cols
        canon = set(canonical_classes(rows, cols, split))
        weights = [math.prod(len(b) for b in split[k + 1:]) for k in range(n)]
        assert all(sum(d * w for d, w in zip(digits_of(code, split), weights, strict=True)) == code for code in canon)
        perms = symmetries(rows, cols)
        radix = [len(b) for b in split]
        for digits in itertools.product(*map(range, radix)):
            images = set()
            for perm in perms:
                image = [0] * n
                for k in range(n):
                    image[perm[k]] = digits[k]
                images.add(tuple(image))
            codes = {sum(d * w for d, w in zip(image, weights, strict=True)) for image in images}
            assert len(codes & canon) == 1


letter_sets = st.lists(st.sampled_from(LETTERS + "lno"), min_size=1, max_size=4).map(lambda xs: "".join(sorted(set(xs))))


@settings(max_examples=40, deadline=None)
@given(st.lists(letter_sets, min_size=6, max_size=6), st.randoms(use_true_random=False))
def test_bounds_are_upper_bounds(breaker23, cells, rnd):
    """Random 2x3 classes: the orderly tree's bound, max/sum and union each bound every board
    of the class, and breaking the class from 0 finds exactly its best board; against one
    point less it finds a board of that score, against the best itself none."""
    breaker = breaker23
    masks = np.array([mask_of(c) for c in cells], dtype=np.int64)
    boards = ["".join(b) for b in itertools.product(*cells)]
    best = max(breaker.score(b) for b in boards)
    breaker.tree.build(masks, breaker.rank, breaker.adj, breaker.deg)
    maxsum, union = Bounder(breaker.tables, 2, 3).bounds(masks)
    assert breaker.tree.bound[0] >= best and maxsum >= best and union >= best
    _, found, letters, *_ = breaker.break_masks(masks, -1, np.zeros(1, np.int8))
    assert found == best
    assert breaker.score(board_text(letters).replace("[qu]", "q")) == best
    _, found, letters, *_ = breaker.break_masks(masks, best - 1, np.zeros(1, np.int8))
    assert found == best and breaker.score(board_text(letters).replace("[qu]", "q")) == best
    _, found, letters, *_ = breaker.break_masks(masks, best, np.zeros(1, np.int8))
    assert found == best and letters is None
    sample = rnd.choice(boards)
    assert breaker.score(sample) == reference_score(sample, 3)


def reference_tree(breaker, cells: list[str]) -> tuple[int, int]:
    """(nodes, root bound) of the class's orderly tree built the plain way: every word-path
    (each word against every simple path of cells), its cells with more than one letter
    sorted by rank, inserted into nested dicts; a word counts once at a leaf."""
    adj, deg = adjacency(breaker.rows, breaker.cols)
    worth = length_points(BOGGLE)
    root: dict = {"points": 0, "words": set(), "choices": {}}

    def paths(tiles, cell, used):
        if cells[cell].count(tiles[0]) == 0:
            return
        if len(tiles) == 1:
            yield (cell,)
            return
        for nb in adj[cell][:deg[cell]]:
            if nb not in used:
                for rest in paths(tiles[1:], nb, used | {nb}):
                    yield (cell, *rest)

    for word in WORDS:
        tiles = word.replace("qu", "q")
        for start in range(breaker.n):
            for path in paths(tiles, start, {start}):
                node = root
                for _, cell, letter in sorted((breaker.rank[c], c, t) for c, t in zip(path, tiles, strict=True)
                                              if len(cells[c]) > 1):
                    options = node["choices"].setdefault(cell, {})
                    node = options.setdefault(letter, {"points": 0, "words": set(), "choices": {}})
                if word not in node["words"]:
                    node["words"].add(word)
                    node["points"] += worth(len(word))

    def size_and_bound(node) -> tuple[int, int]:
        size, bound = 1, node["points"]
        for options in node["choices"].values():
            below = [size_and_bound(child) for child in options.values()]
            size += 1 + sum(s for s, _ in below)
            bound += max(b for _, b in below)
        return size, bound

    return size_and_bound(root)


@settings(max_examples=40, deadline=None)
@given(st.lists(letter_sets, min_size=6, max_size=6))
def test_the_sorted_build_makes_the_plain_orderly_tree(breaker23, cells):
    """Random 2x3 classes: collecting, sorting and assembling the word-paths gives the tree
    that inserting them one by one gives, node for node, with the same bound."""
    masks = np.array([mask_of(c) for c in cells], dtype=np.int64)
    nodes = breaker23.tree.build(masks, breaker23.rank, breaker23.adj, breaker23.deg)
    assert (nodes, int(breaker23.tree.bound[0])) == reference_tree(breaker23, cells)


@settings(max_examples=40, deadline=None)
@given(st.lists(letter_sets, min_size=6, max_size=6), st.data())
def test_forcing_cells_on_the_paths_makes_the_subclass_tree(breaker23, cells, data):
    """Forcing the first two open cells of the order on the sorted paths, then assembling,
    gives the plain tree of the subclass with those cells fixed."""
    b = breaker23
    b.tree.build(np.array([mask_of(c) for c in cells], dtype=np.int64), b.rank, b.adj, b.deg)
    paths = b.tree.paths
    for depth in range(2):
        cell = int(b.order[depth])
        letter = data.draw(st.sampled_from(cells[cell]))
        paths = b.tree.force(paths, depth * 26 + ord(letter) - 97 + 1, depth)
        cells = [letter if c == cell else letters for c, letters in enumerate(cells)]
        nodes = b.tree.assemble(paths, b.rank)
        assert (nodes, int(b.tree.bound[0])) == reference_tree(b, cells)


def test_the_seed_search_scores_its_board_as_the_breaker_does_and_ends_when_quiet(breaker22, brute):
    """The proof's first score to beat is a real board's, scored by the breaker; on 2x2 the
    pool hill climber finds the brute-force optimum and stops long before its 60 s."""
    started = time.monotonic()
    score, board = seed_board(breaker22, WORDS, BOGGLE, 60, 1, threading.Event())
    assert score == breaker22.score(board) == brute
    assert time.monotonic() - started < 10


def test_a_set_stop_ends_the_seed_search_with_nothing(breaker22):
    stop = threading.Event()
    stop.set()
    assert seed_board(breaker22, WORDS, BOGGLE, 60, 1, stop) == (-1, "")


def test_the_cp_sat_model_proves_the_brute_force_optimum(breaker22, brute):
    """cpmodel/models/grid_best.py, the constraint side of --prove (benchmarks/grid_prove.py
    compares it): on 2x2 it proves the best board, and its board scores that much."""
    from cpmodel.models import grid_best

    status, best, bound, board, _, pairs = grid_best.solve(2, 2, WORDS, BOGGLE, time_limit=60, workers=1)
    assert status == "OPTIMAL" and best == bound == brute and pairs > 0
    assert breaker22.score(board) == brute


def _prove(*args, timeout=180):
    proc = run_cli("grid", *args, "--json", timeout=timeout)
    return proc, (json.loads(proc.stdout) if proc.stdout.strip() else None)


def test_cli_proves_2x2_and_resumes_from_a_checkpoint(word_file, tmp_path, brute):
    words = word_file(WORDS)
    ckpt = str(tmp_path / "prove.ckpt")
    proc, doc = _prove("--best", "2x2", "--prove", "--dict", words, "--jobs", "2", "--checkpoint", ckpt)
    assert proc.returncode == 0, proc.stderr
    assert doc["total"] == brute and doc["optimal"] is True and doc["complete"] is True
    assert doc["status"] == "found" and doc["upper_bound"] == brute
    assert sum(w["score"] for w in doc["words"]) == brute
    assert "classes" in proc.stderr and "upper bound" in proc.stderr
    proc, again = _prove("--best", "2x2", "--prove", "--dict", words, "--jobs", "1", "--checkpoint", ckpt)
    assert proc.returncode == 0, proc.stderr
    assert again["prove"]["resumed"] == again["prove"]["shards"] and again["total"] == brute and again["optimal"]


def test_cli_rich_says_proven_optimal(word_file):
    proc = run_cli("grid", "--best", "2x2", "--prove", "--dict", word_file(WORDS), "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    assert "proven optimal" in proc.stdout


def test_a_stopped_proof_never_claims_optimal():
    """3x3 on 3,000 words cannot finish in 5 s: the best found and a proven upper bound, not optimal.
    (In 1 s a loaded machine may not have scored a board yet: honest, but not what this tests.)"""
    proc, doc = _prove("--best", "3x3", "--prove", "--top", "3000", "--time-limit", "5", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    assert doc["complete"] is False and doc["optimal"] is False and doc["stopped_by"] == "time-limit"
    assert doc["upper_bound"] > doc["total"] > 0
    proc = run_cli("grid", "--best", "3x3", "--prove", "--top", "3000", "--time-limit", "2", "--jobs", "1")
    assert "not proven" in proc.stdout and "proven optimal" not in proc.stdout


def test_quick_bounds_a_fixed_sample_and_claims_nothing_else():
    """--quick: the same 8 classes every run, in seconds; never complete, never optimal, no global bound."""
    from cpmodel.run.grid_prove import QUICK_CLASSES, plan

    proc, doc = _prove("--best", "3x4", "--prove", "--quick", "--top", "50", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    assert doc["complete"] is False and doc["optimal"] is False and doc["stopped_by"] == "sample"
    assert doc["upper_bound"] is None and doc["prove"]["classes_done"] == doc["prove"]["classes"] == QUICK_CLASSES
    sample = doc["prove"]["sample"]
    # every sampled class finished: none of their boards beats the best score known (the climb's, maybe outside)
    assert sample["classes"] == QUICK_CLASSES and sample["of"] > 10 * QUICK_CLASSES and sample["upper_bound"] == doc["total"]
    assert sum(w["score"] for w in doc["words"]) == doc["total"] > 0
    assert plan(3, 4, 4, QUICK_CLASSES) == plan(3, 4, 4, QUICK_CLASSES)  # a fixed sample
    text = run_cli("grid", "--best", "2x3", "--prove", "--quick", "--top", "1000", "--jobs", "1").stdout
    assert "--quick" in text and "proven optimal" not in text


@pytest.mark.parametrize("args, message", [
    (["--best", "4x4", "--prove"], "up to 12 cells"),
    (["--best", "2x2", "--prove", "--min", "4"], "drop --min/--max"),
    (["--random", "--prove"], "--prove goes with --best"),
    (["--best", "2x2", "--prove", "--score", "scramble"], "Boggle"),
    (["--best", "2x2", "--quick"], "--quick goes with --best RxC --prove"),
    (["--best", "2x2", "--prove", "--quick", "--checkpoint", "x.ckpt"], "no --checkpoint"),
])
def test_prove_refuses_what_it_cannot_do(args, message):
    proc = run_cli("grid", *args, "--top", "100")
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_dask_proves_like_the_local_pool(dask_cluster, word_file, brute):
    """The same shards on a real Dask scheduler and two workers: the same proven optimum."""
    address, _ = dask_cluster
    proc, doc = _prove("--best", "2x2", "--prove", "--dict", word_file(WORDS), "--scheduler", address)
    assert proc.returncode == 0, proc.stderr
    assert doc["optimal"] is True and doc["total"] == brute and doc["prove"]["where"].startswith("Dask")


def test_count_bound_bounds_every_board_of_a_class(breaker22):
    """The cheap bound a stopped run reports for classes it never bounded: exhaustive on every
    2x2 class, and on 2x3 with two kinds of cells (corners and middles, whose buckets cut
    the letters finer). A letter no word uses only loses words, so each cell tries the
    lexicon's letters of its bucket (or any one letter when it has none)."""
    corner = ("aeiost", "bcdfghjklmnpqruvwxyz")
    mixed = Breaker(WORDS, BOGGLE, 2, 3, (corner, BUCKETS_SMALL, corner) * 2)
    for breaker in (breaker22, mixed):
        for code in canonical_classes(breaker.rows, breaker.cols, breaker.split):
            buckets = [b[d] for b, d in zip(breaker.split, digits_of(code, breaker.split), strict=True)]
            cells = ["".join(ch for ch in b if ch in LETTERS) or b[0] for b in buckets]
            best = max(breaker.score("".join(b)) for b in itertools.product(*cells))
            assert breaker.count_bound(code) >= best


def test_a_checkpoint_cannot_bring_in_a_board_that_does_not_score(word_file, tmp_path):
    """A record edited to claim a higher score (checksum redone) is refused in one line, exit 2."""
    from cpmodel.run.checkpoint import record_sum

    words = word_file(WORDS)
    ckpt = tmp_path / "prove.ckpt"
    proc, doc = _prove("--best", "2x2", "--prove", "--dict", words, "--jobs", "1", "--checkpoint", str(ckpt))
    assert proc.returncode == 0, proc.stderr
    header, first, *rest = ckpt.read_text().splitlines()
    key = json.loads(header)["key"]
    record = json.loads(first)
    record.pop("sum")
    record.update(best=record["best"] + 100, board="eats")
    forged = json.dumps({**record, "sum": record_sum(key, record)})
    ckpt.write_text("\n".join([header, forged, *rest]) + "\n")
    proc = run_cli("grid", "--best", "2x2", "--prove", "--dict", words, "--jobs", "1", "--checkpoint", str(ckpt))
    assert proc.returncode == 2 and "does not score" in proc.stderr and "Traceback" not in proc.stderr


def test_prove_documents_match_the_docs(word_file):
    from tests.test_hardening import _documented

    _, doc = _prove("--best", "2x2", "--prove", "--dict", word_file(WORDS), "--jobs", "1")
    required, optional = _documented("`grid`")
    assert required <= doc.keys() <= required | optional
    text = (ROOT / "docs" / "json.md").read_text()
    assert all(f"`{key}`" in text for key in doc["prove"])  # every key named in the docs


def test_a_proof_stopped_before_any_board_is_unknown_with_its_bound(word_file, monkeypatch, capsys):
    """A stop in the proof's first second, before the seed's climb scored a board, ended
    with "error: the board is empty" and no document. Now: one document, board and
    total null, status unknown, the opening upper bound, exit 143."""
    import os
    import signal

    from cpmodel.commands import cli
    from cpmodel.run import grid_prove, interrupts
    from tests.test_hardening import _documented

    def stopped_seed(breaker, words, table, seconds, seed, stop):
        os.kill(os.getpid(), signal.SIGTERM)  # held by the proof, seen by the seed search at once
        assert stop.is_set()
        return -1, ""

    monkeypatch.setattr(grid_prove, "seed_board", stopped_seed)
    monkeypatch.setattr(interrupts, "received", None)
    code = cli.main(["grid", "--best", "2x2", "--prove", "--dict", word_file(WORDS), "--jobs", "1", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 143
    assert doc["board"] is None and doc["total"] is None and doc["status"] == "unknown" and doc["words"] == []
    assert doc["complete"] is False and doc["optimal"] is False and doc["stopped_by"] == "interrupt"
    assert doc["upper_bound"] > 0 and doc["prove"]["classes_done"] == 0
    required, optional = _documented("`grid`")
    assert required <= doc.keys() <= required | optional
