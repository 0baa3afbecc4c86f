"""Large inputs (issue 23): a hand with 128 or more of one letter crashed the backtracker
(int8 counts, OverflowError, exit 70); hands up to the CLI's cap now run, and a word that
holds a letter more than 127 times is counted right."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from cpmodel.core.errors import InputError
from cpmodel.core.specs import MAX_HAND, parse_hand
from heuristics.bananagrams import WordTable, count_vector, letter_counts
from tests.conftest import run_cli


@pytest.mark.parametrize("tiles", [127, 128, 129, 255, 256, 300, MAX_HAND])
def test_a_hand_heavy_in_one_letter_runs(tiles):
    hand = "q" * (tiles - 2) + "at"  # before: OverflowError at 128 q's
    proc = run_cli("banana", hand, "--solver", "backtrack", "--time-limit", "1", "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["tiles"] == tiles and doc["status"] in ("found", "unknown") and not doc["complete"]


def test_count_vector_holds_big_counts():
    assert count_vector(Counter({"a": 1000, "z": 300})).tolist()[:1] == [1000]
    assert count_vector(Counter({"z": 300}))[25] == 300


def test_a_long_word_of_one_letter_is_counted_right():
    """A --dict word of 200 a's: its count stays 200 (int8 wrapped it to -56, so it 'fit' any hand)."""
    counts = letter_counts(["a" * 200, "at"])
    assert counts[0, 0] == 200 and counts[1].tolist()[:1] == [1]
    table = WordTable.of_lexicon(["a" * 200, "at", "ta"])
    fits = lambda hand: {table.words[i] for i in table.fitting(Counter(hand))}
    assert fits("a" * 150 + "t") == {"at", "ta"}
    assert fits("a" * 200 + "t") == {"a" * 200, "at", "ta"}


def test_small_words_keep_the_small_type():
    assert letter_counts(["bat", "tab"]).dtype == np.int8


def test_the_cap_is_one_line():
    assert len(parse_hand("a" * MAX_HAND)) == MAX_HAND
    with pytest.raises(InputError, match="at most 1,000 tiles"):
        parse_hand("a" * (MAX_HAND + 1))
    proc = run_cli("banana", "a" * (MAX_HAND + 1))
    assert proc.returncode == 2 and "at most 1,000 tiles" in proc.stderr
