"""Words from a bag of letters (Wordscapes' wheel, a Scrabble rack).

A word is spellable from the rack when its letter counts fit inside the
rack's counts; a blank ``?`` stands for any one letter.

Method (``find_words``), as in the published comparison: prefilter, then
walk a trie.

1. Prefilter: every word is filed once under its *letter set* (a 26-bit
   mask). A rack with letter set R can only spell words whose set lies in R
   (plus up to b other letters for b blanks), so the rack's submasks are
   looked up instead of scanning the lexicon; words longer than the rack go.
2. Trie walk: a trie of the survivors is walked depth-first carrying the
   rack's letter counts; a branch dies when its letter is used up, and every
   terminal node reached is a word.

When a rack has too many letter sets to look up (many distinct letters or
several blanks) the walk runs over the whole-lexicon trie instead, which only
enters prefixes spelled from the rack: the same prefilter, applied lazily.
Brute-force permutations and a count-vector scan live here too, for
benchmarks/words.py and the tests that check every method agrees.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

BLANK = "?"
_END = ""  # trie key marking "a word ends here"


@dataclass(frozen=True)
class Found:
    word: str
    blanks: tuple[int, ...] = ()  # positions spelled with a blank


def letter_mask(word: str) -> int:
    mask = 0
    for c in word:
        mask |= 1 << (ord(c) - 97)
    return mask


class WordIndex:
    """The lexicon as a trie (for the walk) and filed by letter set (for the
    materialised prefilter); built once per lexicon, queried many times."""

    def __init__(self, words):
        self.words = list(words)

    @cached_property
    def trie(self) -> dict:
        """The whole lexicon as a trie (for racks the prefilter cannot narrow)."""
        return build_trie(self.words)

    @cached_property
    def by_mask(self) -> dict[int, list[str]]:
        """Letter set → words (only the eager prefilter needs it)."""
        index: dict[int, list[str]] = {}
        for word in self.words:
            index.setdefault(letter_mask(word), []).append(word)
        return index

    def candidates(self, letters: str, blanks: int, max_len: int) -> list[str]:
        """Words no longer than the rack whose letters fit the rack's letter set
        (plus at most ``blanks`` other letters)."""
        rack_mask = letter_mask(letters)
        masks = set(_submasks(rack_mask))
        outside = [1 << k for k in range(26) if not rack_mask >> k & 1]
        for extra in range(1, blanks + 1):
            for chosen in itertools.combinations(outside, extra):
                bits = sum(chosen)
                masks.update(sub | bits for sub in _submasks(rack_mask))
        found = []
        for mask in masks:
            found += [w for w in self.by_mask.get(mask, ()) if len(w) <= max_len]
        return found


def _submasks(mask: int):
    sub = mask
    while True:
        yield sub
        if sub == 0:
            return
        sub = (sub - 1) & mask


def build_trie(words) -> dict:
    """Nested dicts, letter → child; key "" marks the end of a word."""
    root: dict = {}
    for word in words:
        node = root
        for c in word:
            node = node.setdefault(c, {})
        node[_END] = word
    return root


def walk(trie: dict, rack: Counter, blanks: int, min_len: int, max_len: int) -> list[Found]:
    """Every word in ``trie`` spellable from ``rack`` (+ blanks), by depth-first walk.

    The walk without blanks is the hot path and has its own tight loop; with
    blanks it also remembers which positions a blank spelled."""
    if not blanks:
        words: list[str] = []
        _walk_exact(trie, dict(rack), 1, min_len, max_len, words)
        return [Found(w) for w in words]
    found: list[Found] = []
    _walk_blanks(trie, rack, blanks, 0, min_len, max_len, [], found)
    return found


def _walk_exact(node: dict, rack: dict, depth: int, min_len: int, max_len: int, out: list) -> None:
    """Children of ``node`` are at ``depth``; ``rack`` holds the unused counts."""
    for letter, child in node.items():
        left = rack.get(letter)
        if not left:  # letter used up, not in the rack, or the end marker ""
            continue
        rack[letter] = left - 1
        word = child.get(_END)
        if word is not None and depth >= min_len:
            out.append(word)
        if depth < max_len:
            _walk_exact(child, rack, depth + 1, min_len, max_len, out)
        rack[letter] = left


def _walk_blanks(node, rack, blanks, depth, min_len, max_len, used, found) -> None:
    word = node.get(_END)
    if word is not None and depth >= min_len:
        found.append(Found(word, tuple(used)))
    if depth == max_len:
        return
    for letter, child in node.items():
        if letter == _END:
            continue
        if rack[letter] > 0:
            rack[letter] -= 1
            _walk_blanks(child, rack, blanks, depth + 1, min_len, max_len, used, found)
            rack[letter] += 1
        elif blanks:
            used.append(depth)
            _walk_blanks(child, rack, blanks - 1, depth + 1, min_len, max_len, used + [], found)
            used.pop()


def parse_rack(text: str) -> tuple[Counter, int]:
    """'Aet?r' → (counts of a,e,t,r, 1 blank). Letters and '?' only."""
    letters = text.strip().lower()
    return Counter(c for c in letters if c != BLANK), letters.count(BLANK)


PREFILTER_MASKS = 4096  # beyond this many letter sets to look up, walk the whole trie instead


def find_words(index: WordIndex, rack_text: str, min_len: int = 3, max_len: int | None = None) -> list[Found]:
    """Every word spellable from the rack, longest first.

    Prefilter, then walk (``by_prefiltered_trie``) whenever the rack's letter
    sets are few enough to look up: on racks drawn from the Bananagrams bag
    that took 0.27 ms (7 tiles) and 4.7 ms (15 tiles) against 0.37 and 16 ms
    for walking the whole-lexicon trie (benchmarks/words.py). A rack of many
    distinct letters or several blanks has too many letter sets (2^15 for 15
    distinct letters), and then the whole-trie walk wins: its walk only
    enters prefixes spelled from the rack, the prefilter applied lazily."""
    rack, blanks = parse_rack(rack_text)
    outside = 26 - len(rack)
    lookups = 2 ** len(rack) * sum(math.comb(outside, k) for k in range(blanks + 1))
    if lookups <= PREFILTER_MASKS:
        return by_prefiltered_trie(index, rack_text, min_len, max_len)
    return walk_whole_trie(index, rack_text, min_len, max_len)


def walk_whole_trie(index: WordIndex, rack_text: str, min_len: int = 3, max_len: int | None = None) -> list[Found]:
    """The walk over the whole-lexicon trie (no eager prefilter)."""
    rack, blanks = parse_rack(rack_text)
    size = sum(rack.values()) + blanks
    max_len = size if max_len is None else min(max_len, size)
    if not blanks:
        words: list[str] = []
        _walk_exact(index.trie, dict(rack), 1, min_len, max_len, words)
        words.sort(key=lambda w: (-len(w), w))
        return [Found(w) for w in words]
    return sort_found(walk(index.trie, rack, blanks, min_len, max_len))


def by_prefiltered_trie(index: WordIndex, rack_text: str, min_len: int = 3, max_len: int | None = None) -> list[Found]:
    """The published method: filter the lexicon to the rack's letters and length
    (via the letter-set index), build a trie of the survivors, walk it."""
    rack, blanks = parse_rack(rack_text)
    size = sum(rack.values()) + blanks
    max_len = size if max_len is None else min(max_len, size)
    candidates = index.candidates("".join(rack.elements()), blanks, max_len)
    return sort_found(walk(build_trie(candidates), rack, blanks, min_len, max_len))


def sort_found(found: list[Found]) -> list[Found]:
    """Longest first, then alphabetical; one entry per word (fewest blanks)."""
    best: dict[str, Found] = {}
    for f in found:
        if f.word not in best or len(f.blanks) < len(best[f.word].blanks):
            best[f.word] = f
    return sorted(best.values(), key=lambda f: (-len(f.word), f.word))


# -- the slower methods, kept for the benchmark and as references ---------------


def by_count_scan(words, rack_text: str, min_len: int = 3, max_len: int | None = None) -> list[str]:
    """Check every word's letter counts against the rack's (blanks cover shortfalls)."""
    rack, blanks = parse_rack(rack_text)
    size = sum(rack.values()) + blanks
    max_len = size if max_len is None else min(max_len, size)
    hits = []
    for word in words:
        if min_len <= len(word) <= max_len:
            short = sum(max(0, n - rack[c]) for c, n in Counter(word).items())
            if short <= blanks:
                hits.append(word)
    return sorted(hits, key=lambda w: (-len(w), w))


def by_brute_force(word_set: set[str], rack_text: str, min_len: int = 3, max_len: int | None = None) -> list[str]:
    """Every ordering of every sub-multiset of the rack, looked up in a set."""
    rack, blanks = parse_rack(rack_text)
    tiles = list(rack.elements()) + [BLANK] * blanks
    max_len = len(tiles) if max_len is None else min(max_len, len(tiles))
    hits = set()
    for length in range(min_len, max_len + 1):
        for order in set(itertools.permutations(tiles, length)):
            for filled in _fill_blanks(order):
                if filled in word_set:
                    hits.add(filled)
    return sorted(hits, key=lambda w: (-len(w), w))


def _fill_blanks(order: tuple[str, ...]):
    slots = [i for i, c in enumerate(order) if c == BLANK]
    if not slots:
        yield "".join(order)
        return
    for letters in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=len(slots)):
        chars = list(order)
        for i, c in zip(slots, letters, strict=True):
            chars[i] = c
        yield "".join(chars)
