"""The backtracker's numpy kernel against its pure-Python reference.

The numpy kernel (heuristics/rectangle_numpy.py) must be the same search:
same solutions in the same order, same counts, same nodes per level, the same
status and reason to stop. Small lists fit one bucket, so the tests that must
reach the bucket skipping shrink the buckets to one 64-bit word (``tiny_buckets``).
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import words_over

import heuristics.rectangle_numpy as kernel
from cpmodel.core.control import Control, Request
from cpmodel.core.lexicon import Lexicon, load_default
from cpmodel.core.specs import rectangle_spec
from heuristics import rectangle as backtrack
from tests.conftest import brute_force_rectangles

ALL, COUNT = Request(limit=None), Request(limit=None, count_only=True)
MODES = [ALL, COUNT, Request(limit=1), Request(limit=3)]


@pytest.fixture(scope="module")
def default_lexicon() -> Lexicon:
    return load_default()


@pytest.fixture
def tiny_buckets(monkeypatch):
    """Buckets of 64 words, so that even small lists are cut into many."""
    monkeypatch.setattr(kernel, "ONE_BUCKET_UP_TO", 0)
    monkeypatch.setattr(kernel, "BUCKET_LIMBS", 1)
    kernel._tables_cache.clear()
    yield
    kernel._tables_cache.clear()


def both_kernels(spec, request, orientation):
    python = backtrack.solve(spec, request, orientation=orientation, kernel="python")
    batched = backtrack.solve(spec, request, orientation=orientation, kernel="numpy")
    return python, batched


def assert_same(python, batched, label):
    assert batched.solutions == python.solutions, label  # the same rectangles in the same order
    assert batched.count == python.count, label
    assert batched.stats["profile"] == python.stats["profile"], label
    assert (batched.status, batched.complete, batched.stopped_by) == (python.status, python.complete, python.stopped_by), label
    assert batched.stats["kernel"] == "numpy" and python.stats["kernel"] == "python"


def specs_on(lexicon):
    """Plain, patterned, and restricted as a shard restricts (first row, first column)."""
    rng = random.Random(13)
    for (m, n), top in [((3, 3), 100), ((3, 4), 250), ((4, 3), 250), ((4, 5), 500), ((2, 5), 150)]:
        spec = rectangle_spec(m, n, lexicon, top=top)
        yield f"{m}x{n} top {top}", spec
        yield f"{m}x{n} pattern", replace(spec, pattern=("s" + "." * (n - 1),) + ("." * n,) * (m - 1))
        yield f"{m}x{n} first row", replace(spec, first_row=tuple(rng.sample(spec.row_words, 25)))
        yield f"{m}x{n} first col", replace(spec, first_col=tuple(rng.sample(spec.col_words, 25)))


@pytest.mark.parametrize("buckets", ["one bucket", "tiny buckets"])
def test_numpy_kernel_is_the_reference_search(default_lexicon, request, buckets):
    if buckets == "tiny buckets":
        request.getfixturevalue("tiny_buckets")
    for label, spec in specs_on(default_lexicon):
        for orientation in ("rows", "cols"):
            for mode in MODES:
                python, batched = both_kernels(spec, mode, orientation)
                assert_same(python, batched, (label, orientation, mode))


def test_first_solutions_come_in_rank_order_across_slices(default_lexicon, monkeypatch, tiny_buckets):
    # slices of 7 nodes: the search crosses many slice boundaries before its 5th solution
    monkeypatch.setattr(kernel, "SLICE", 7)
    spec = rectangle_spec(4, 4, default_lexicon, top=400)
    for mode in (Request(limit=5), ALL):
        python, batched = both_kernels(spec, mode, "rows")
        assert_same(python, batched, mode)
    assert python.count > 5


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lexicon=words_over("abc", range(1, 5), per_length=20), size=st.sampled_from([(1, 2), (2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 3)]),
       orientation=st.sampled_from(["rows", "cols"]), limit=st.sampled_from([None, 1, 2]))
def test_kernels_agree_with_brute_force_on_generated_lists(tiny_buckets, lexicon, size, orientation, limit):
    spec = rectangle_spec(*size, lexicon)
    expected = brute_force_rectangles(spec)
    for mode in (Request(limit=limit), COUNT):
        python, batched = both_kernels(spec, mode, orientation)
        assert_same(python, batched, mode)
        assert batched.count == (len(expected) if limit is None or mode is COUNT else min(limit, len(expected)))
        assert set(batched.solutions) <= expected


def test_set_bits_lists_every_bit_in_order():
    rng = np.random.default_rng(7)
    for density in (0.0, 0.01, 0.3, 1.0):
        bits = np.packbits(rng.random((9, 5 * 64)) < density, axis=1, bitorder="little").view(np.uint64).reshape(9, 5)
        expected = [(r, i) for r in range(9) for i in range(5 * 64) if int(bits[r, i // 64]) >> (i % 64) & 1]
        for set_bits in (kernel.set_bits, kernel.set_bits_dense):
            rows, index = set_bits(bits)
            assert list(zip(rows.tolist(), index.tolist(), strict=True)) == expected


def test_popcount_without_numpy_2_agrees(default_lexicon, monkeypatch):
    words = np.array([0, 1, 2**63, 2**64 - 1, 0xF0F0, 12345678901234567], dtype=np.uint64).reshape(2, 3)
    assert kernel.popcount_by_bytes(words).tolist() == [[bin(int(w)).count("1") for w in row] for row in words]
    monkeypatch.setattr(kernel, "popcount", kernel.popcount_by_bytes)  # as on numpy 1.x
    spec = rectangle_spec(3, 4, default_lexicon, top=250)
    for mode in (ALL, COUNT):
        assert_same(*both_kernels(spec, mode, "rows"), mode)


def test_stops_are_honest_in_the_numpy_kernel(default_lexicon):
    spec = rectangle_spec(5, 6, default_lexicon, pattern=("......",) * 4 + ("zzzzzz",))
    control = Control()
    control.stop.set()
    result = backtrack.solve(spec, ALL, control, kernel="numpy")
    assert result.status == "unknown" and result.stopped_by == "interrupt" and not result.complete
    timed = backtrack.solve(spec, ALL, Control(time_limit=0.2), kernel="numpy")
    assert timed.status == "unknown" and timed.stopped_by == "time-limit"


def test_auto_kernel_falls_back_for_side_conditions(default_lexicon):
    spec = rectangle_spec(3, 3, default_lexicon, top=60)
    assert backtrack.solve(spec, ALL).stats["kernel"] == "numpy"
    assert backtrack.solve(spec, Request(limit=None, best=True)).stats["kernel"] == "python"
    assert backtrack.solve(replace(spec, distinct=True), ALL).stats["kernel"] == "python"
    with pytest.raises(ValueError):
        backtrack.solve(spec, Request(limit=None, best=True), kernel="numpy")


def test_orientation_fills_from_a_list_at_most_half_as_long():
    lexicon = Lexicon([f"{a}{b}{c}" for a in "abc" for b in "abc" for c in "abc"] + ["ab", "ba", "aa"])
    wide = rectangle_spec(2, 3, lexicon)  # 27 three-letter rows, 3 two-letter columns
    assert backtrack.choose_orientation(wide) == "cols"
    assert backtrack.choose_orientation(rectangle_spec(3, 2, lexicon)) == "rows"
    even = rectangle_spec(2, 3, Lexicon(["abc", "bca", "cab", "ab", "bc", "ca"]))
    assert backtrack.choose_orientation(even) == "rows"  # the longer words, as before
    # a shard fixes the first row's (or column's) words: fill that direction, so the shards split one tree
    assert backtrack.choose_orientation(replace(wide, first_row=("abc",))) == "rows"
    assert backtrack.choose_orientation(replace(even, first_col=("ab",))) == "cols"
