"""Lexicon loading, ranking and caching; the DAWG against its definition."""

from __future__ import annotations

import itertools
import random
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cpmodel.core import lexicon as lex
from cpmodel.core.dawg import accepts, build_dawg
from cpmodel.core.errors import InputError


def test_parse_words_folds_case_and_counts_skips():
    words, skipped = lex.parse_words(["Apple\r", "", "  ", "apple", "it's", "naïve", "Zoo"])
    assert words == ["apple", "zoo"] and skipped == 2


def test_user_file_keeps_line_order_as_rank(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("zebra\r\nant\r\nbee\r\n")
    lexicon = lex.load_file(path)
    assert lexicon.words == ("zebra", "ant", "bee") and lexicon.rank_of["ant"] == 1
    assert lexicon.of_length(3, top=1) == ["ant"]


_LINES = st.lists(st.one_of(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.sampled_from(["", "Tea", "it's", "naïve", "x y", "cat 5", "\r"])))


@given(_LINES, st.sampled_from(["\n", "\r\n"]), st.booleans())
@example(["a", "\r"], "\n", True)  # "a\n\r\n": the "\r" line is a CR LF ending, and the list is plain
@example(["a", "\r"], "\n", False)  # "a\n\r": a stray CR at the end; the fast path declines, the parse keeps "a"
def test_plain_list_fast_path_equals_the_line_by_line_parse(lines, newline, trailing):
    """plain_words takes a list only when the per-line parse would keep every line as
    it is, and then gives the same words in the same order."""
    text = newline.join(lines) + (newline if trailing else "")
    plain = lex.plain_words(text)
    words, skipped = lex.parse_words(text.splitlines())
    lines = text.splitlines()  # the file's own lines: a "\r" line before "\n" is only a CR LF ending
    while lines and not lines[-1]:
        lines = lines[:-1]  # blank lines at the end are only the end of the file
    if lines and all(lex._WORD.fullmatch(line) for line in lines):
        assert plain in (None, words) and skipped == 0  # the fast path may decline, never differ
        if re.fullmatch(r"([a-z]+\r?\n)*[a-z]+(\r?\n)*", text):  # a list of words, LF or CR LF: it takes it
            assert plain == words
    else:
        assert plain is None


@pytest.mark.parametrize("content", ["", "\n\n", "123\n!!\n"])
def test_empty_user_file_is_an_input_error(tmp_path, content):
    path = tmp_path / "w.txt"
    path.write_text(content)
    with pytest.raises(InputError):
        lex.load_file(path)


def test_default_lexicon_ranked_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("CPMODEL_CACHE_DIR", str(tmp_path))
    fresh = lex.load_default()
    assert 180_000 < len(fresh) < 200_000
    assert fresh.rank_of["about"] < fresh.rank_of["zyzzyva"]
    assert fresh.of_length(5, top=3) == ["about", "their", "there"]
    cached_files = list(tmp_path.glob("ranked-*.txt"))
    assert len(cached_files) == 1
    assert lex.load_default().words == fresh.words  # from the cache


def test_stale_or_corrupt_cache_never_changes_results(tmp_path, monkeypatch):
    monkeypatch.setenv("CPMODEL_CACHE_DIR", str(tmp_path))
    good = lex.load_default().words
    cache = next(tmp_path.glob("ranked-*.txt"))
    header, *words = cache.read_text().split("\n")
    cache.write_text("\n".join([header] + list(reversed(words[:-5]))))  # truncated and reordered
    assert lex.load_default().words == good


def test_dawg_accepts_exactly_the_words():
    rng = random.Random(7)
    words = sorted({"".join(rng.choice("abc") for _ in range(4)) for _ in range(40)})
    dawg = build_dawg(words)
    for candidate in map("".join, itertools.product("abcd", repeat=4)):
        assert accepts(dawg, candidate) == (candidate in words)
    # minimal: one state per distinct set of completions (Myhill–Nerode)
    residuals = {frozenset(w[k:] for w in words if w.startswith(p)) for p in {w[:k] for w in words for k in range(5)} for k in [len(p)]}
    assert dawg.num_states == len(residuals)


def test_dawg_layers_follow_word_positions():
    dawg = build_dawg(["cat", "cot", "dog"])
    layer = dawg.layers()
    assert layer[dawg.start] == 0 and all(layer[f] == 3 for f in dawg.finals)
