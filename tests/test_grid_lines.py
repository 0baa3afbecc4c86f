"""Board files parsed in bulk (heuristics.grid_lines) against the per-line reference, parse_grid.

The reference reads the file as the command did before: UTF-8 text (a byte-order
mark dropped), universal newlines, each non-blank line through ``parse_grid``,
the first bad one an error with its line number."""

from __future__ import annotations

import io
import random
import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cpmodel.core.boards import GridBoard, Tile, parse_grid
from cpmodel.core.errors import InputError
from cpmodel.core.scoring import score_table
from heuristics import grid_kernel as K
from heuristics import grid_lines as L
from tests.conftest import ROOT

TEXTS = (*K.ALPHABET, "q")  # the tile of each code: 16 is Qu, LONE_Q a q alone
WORDS = ["tea", "eat", "ate", "teas", "seat", "east", "sat", "set", "net", "ten", "tens", "nest", "quest", "quiet",
         "qat", "qats", "sent", "tees", "seen", "teen", "teens", "ease", "eats", "aqua"]


def reference(data: bytes, limit: int = 64 * 1024) -> tuple[list[GridBoard], str | None]:
    """The boards and the first error, line by line as the command read them before."""
    boards: list[GridBoard] = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return boards, "not UTF-8"
    for number, line in enumerate(io.StringIO(text, newline=None), 1):
        if len(line) > limit:
            return boards, f"board file line {number} is longer than {limit:,} characters; refusing to read it"
        if not line.strip():
            continue
        try:
            boards.append(parse_grid(line))
        except InputError as exc:
            return boards, f"board file line {number}: {exc}"
    return boards, None


def bulk(data: bytes, cuts: list[int], limit: int = 64 * 1024) -> tuple[list[GridBoard], str | None]:
    """The boards the bulk reader gives for ``data`` arriving in pieces cut at ``cuts``."""
    edges = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
    chunks = [data[a:b] for a, b in zip(edges, edges[1:], strict=False)]
    boards: list[GridBoard] = []
    for block, error in L.read_blocks(iter(chunks), limit=limit):
        for b in range(len(block)):
            s = int(block.shape_of[b])
            if s < 0:
                boards.append(block.others[b])
            else:
                rows, cols, _ = block.shapes[s]
                codes = block.codes[s][block.row_of[b]]
                boards.append(GridBoard(rows, cols, tuple(Tile(TEXTS[int(c)]) for c in codes)))
        if error is not None:
            return boards, str(error)
    return boards, None


def random_plain(rng: random.Random) -> str:
    """A board line the bulk path takes: 4x4 or rows with '/', Qu, upper case, a lone q."""
    rows, cols = rng.choice([(4, 4), (4, 4), (3, 3), (2, 5), (5, 5), (7, 9), (3, 1)])
    tiles = [rng.choice(["Qu", "q", "Q", "E"] + list("abcdefghijklmnoprstuvwxyz")) for _ in range(rows * cols)]
    tiles = [("q" if t == "Q" and after.startswith("u") else t) for t, after in zip(tiles, [*tiles[1:], ""], strict=True)]
    cut = ["".join(tiles[r * cols:(r + 1) * cols]) for r in range(rows)]
    return "".join(cut) if (rows, cols) == (4, 4) and rng.random() < 0.5 else "/".join(cut)


LINE = st.one_of(
    st.builds(random_plain, st.randoms(use_true_random=False)),
    st.text(alphabet="abcqQuU/ \t+*23[]1é\x0b\u2003", max_size=20),
    st.sampled_from(["", " ", "[qu]bcdefghijklmno", "a+2bcdefghijklmnop", "tea/se/xxx", "/abc/def/ghi",
                     "abc/def/ghi/", "abcdefghijklmnopq", "Qu" * 16, "QUabcdefghijklmn", "\ufeffabcdefghijklmnop"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=30), st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3),
       st.booleans(), st.booleans(), st.lists(st.integers(0, 400), max_size=6))
def test_bulk_parse_equals_the_per_line_reference(lines, ends, bom, last_newline, cuts):
    data = "".join(line + ends[k % len(ends)] for k, line in enumerate(lines))
    if not last_newline and data:
        data = data.rstrip("\r\n")
    raw = (b"\xef\xbb\xbf" if bom else b"") + data.encode("utf-8")
    assert bulk(raw, cuts) == reference(raw)


def test_errors_name_their_line_after_the_boards_before_it():
    raw = b"abcdefghijklmnop\n\r\n  \ntea/sen/xxx\r\nbad line\nabcdefghijklmnop\n"
    boards, error = bulk(raw, [3, 20])
    assert len(boards) == 2 and error == "board file line 5: unexpected character ' ' in board 'bad line'"
    assert (boards, error) == reference(raw)
    assert bulk(b"abcdefghijklmnop\n\xff\xfe\n", [])[1] == "board file line 2 is not UTF-8 text"


def test_long_lines_and_streams_without_newlines_are_refused_with_flat_memory():
    raw = b"abcdefghijklmnop\n" + b"a" * 200 + b"\n"
    assert bulk(raw, [50], limit=100) == reference(raw, limit=100)
    assert "line 2 is longer than 100 characters" in bulk(raw, [50], limit=100)[1]
    endless = (b"a" * 64 for _ in range(10**6))  # 64 MB without a newline: refused after a few hundred bytes
    blocks = list(L.read_blocks(endless, limit=100))
    assert len(blocks) == 1 and "line 1 is longer than 100" in str(blocks[0][1])


def test_batches_hold_the_boards_in_order_then_the_error():
    raw = b"abcdefghijklmnop\n" * 5 + b"x\n" + b"abcdefghijklmnop\n"
    sizes, error = [], None
    try:
        for batch in L.batches(L.read_blocks(iter([raw[:40], raw[40:]])), 2):
            sizes.append(sum(stop - start for _, start, stop in batch))
    except InputError as exc:
        error = str(exc)
    assert sizes == [2, 2, 1] and error and error.startswith("board file line 6:")


def test_plain_totals_equal_the_parsed_boards_totals():
    """Plain codes (lone q included, several shapes in one block) score as their parsed boards do."""
    rng = random.Random(7)
    lines = [random_plain(rng) for _ in range(300)] + ["a+2bcdefghijklmnop", "[th]e/as"]
    rng.shuffle(lines)
    block, error = L.parse_block("".join(line + "\n" for line in lines).encode())
    assert error is None and block.shapes and block.others
    for table in (score_table("boggle"), score_table("scramble")):
        scorer = K.FileScorer(WORDS + ["tees", "ten", "qi", "suq"], table, threads=2)
        got = block.totals(0, len(block), scorer.plain, scorer.scores)
        expected = scorer.scores([parse_grid(line) for line in lines])
        assert got.tolist() == expected and max(expected) > 0


def test_threads_split_a_batch_without_changing_a_total():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 26, (3000, 16)).astype(np.int8)
    table = score_table("boggle")
    one = K.FileScorer(WORDS, table, threads=1).plain(4, 4, False, codes)
    two = K.FileScorer(WORDS, table, threads=3).plain(4, 4, False, codes)
    assert one.tolist() == two.tolist() and one.sum() > 0


def test_score_file_prints_every_total_before_a_bad_line_past_a_batch(word_file, tmp_path):
    """A bad line after more than one batch: every board before it printed, in order,
    then one line naming it; the same from a file and from stdin."""
    from cpmodel.commands.grid import SCORE_BATCH

    rng = random.Random(3)
    boards = ["".join(rng.choice("aeinstqu") for _ in range(16)) for _ in range(SCORE_BATCH + 500)]
    text = "\n".join(boards) + "\nabc\n" + "abcdefghijklmnop\n" * 3
    path = tmp_path / "boards.txt"
    path.write_text(text)
    dictionary = word_file(WORDS)
    scorer = K.FileScorer(WORDS, score_table("boggle"))
    expected = [str(t) for t in scorer.scores([parse_grid(b) for b in boards])]
    for source, stdin in ((str(path), None), ("-", text)):
        proc = subprocess.run([sys.executable, "-m", "cpmodel", "grid", "--score-file", source, "--dict", dictionary],
                              input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert proc.returncode == 2 and proc.stdout.split() == expected
        assert proc.stderr.strip().splitlines() == [
            f"error: board file line {len(boards) + 1}: a board without '/' is 4x4 and needs 16 tiles, got 3 in 'abc'"]
