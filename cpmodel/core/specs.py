"""Problem specs: the solver-free statement of each puzzle instance.

A spec holds everything a solver needs and nothing it does not: sizes,
the words each slot may take (already cut to ``--top``), fixed letters and
side conditions. Both solvers of a puzzle read the same spec, and the
validator checks answers against it, which is what makes ``--solver both``
a real cross-check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cpmodel.core.boards import CrosswordBoard
from cpmodel.core.checks import ascii_lower
from cpmodel.core.errors import InputError
from cpmodel.core.lexicon import Lexicon

MAX_SIDE = 15
_SIZE = re.compile(r"\s*([0-9]+)\s*[x×X*]\s*([0-9]+)\s*")  # ASCII digits: \d also takes ٣


@dataclass(frozen=True)
class RectangleSpec:
    """An m×n word rectangle (TAOCP 7.2.2, exercise 24).

    ``rows`` m-many words of length n read across; ``cols`` n-many words of
    length m read down. ``row_words``/``col_words`` are the allowed words in
    rank order, so a word's rank is its index in its own list.
    """

    m: int
    n: int
    row_words: tuple[str, ...]
    col_words: tuple[str, ...]
    pattern: tuple[str, ...] | None = None  # m strings of n chars; '.' = free
    distinct: bool = False  # no word used twice among all m + n words
    symmetric: bool = False  # word square: row i equals column i (m == n)
    first_row: tuple[str, ...] | None = None  # the words row 1 may take (a shard); None = any row word
    first_col: tuple[str, ...] | None = None  # the words column 1 may take; None = any column word

    @property
    def size(self) -> str:
        return f"{self.m}x{self.n}"

    def transposed(self) -> RectangleSpec:
        """The same puzzle read down instead of across (rows ↔ columns)."""
        pattern = None if self.pattern is None else tuple("".join(col) for col in zip(*self.pattern, strict=True))
        return RectangleSpec(self.n, self.m, self.col_words, self.row_words, pattern, self.distinct, self.symmetric,
                             first_row=self.first_col, first_col=self.first_row)


def parse_size(text: str, most: int = MAX_SIDE) -> tuple[int, int]:
    """'5x6' or '5×6' → (5, 6): m rows by n columns, each side 1..most (a server caps it lower,
    and its message then names the server's limit)."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise InputError(f"size must look like 5x6 (rows x columns), got {text!r}")
    m, n = int(match.group(1)), int(match.group(2))
    for side in (m, n):
        if not 1 <= side <= most:
            raise InputError(f"each side of the size must be between 1 and {most}, got {text!r}")
    return m, n


def parse_pattern(text: str, m: int, n: int) -> tuple[str, ...]:
    """Rows separated by '/' (or one string of m·n characters); '.' is free."""
    cleaned = ascii_lower(text.strip())
    rows = cleaned.split("/") if "/" in cleaned else [cleaned[i * n:(i + 1) * n] for i in range(m)]
    if len(cleaned.replace("/", "")) != m * n or any(len(r) != n for r in rows) or len(rows) != m:
        raise InputError(f"pattern must be {m} rows of {n} characters ('.' for a free cell), got {text!r}")
    if not re.fullmatch(r"[a-z.]*", "".join(rows)):
        raise InputError(f"pattern may hold only letters and '.', got {text!r}")
    return tuple(rows)


def rectangle_spec(
    m: int,
    n: int,
    row_lexicon: Lexicon,
    col_lexicon: Lexicon | None = None,
    top: int | None = None,
    pattern: tuple[str, ...] | None = None,
    distinct: bool = False,
    symmetric: bool = False,
) -> RectangleSpec:
    """Cut the lexicon(s) to the slot lengths (and ``top``) and check the options."""
    if top is not None and top < 1:
        raise InputError(f"--top must be at least 1, got {top}")
    if symmetric and m != n:
        raise InputError(f"--symmetric needs a square size, got {m}x{n}")
    col_lexicon = col_lexicon or row_lexicon
    return RectangleSpec(
        m=m,
        n=n,
        row_words=tuple(row_lexicon.of_length(n, top)),
        col_words=tuple(col_lexicon.of_length(m, top)),
        pattern=pattern,
        distinct=distinct,
        symmetric=symmetric,
    )


# -- Wordscapes -------------------------------------------------------------------


@dataclass(frozen=True)
class WordscapesSpec:
    """Fill the open cells of a crossword board from the wheel's letters.

    ``slots`` are the maximal runs of ≥ 2 open cells; ``candidates[k]`` are
    the words that fit slot k: the right length, spellable from the wheel
    (letter counts within it), at least ``min_len`` long, and agreeing with
    the pre-filled letters. Every slot word must be distinct.
    """

    board: CrosswordBoard
    wheel: str
    min_len: int
    slots: tuple[tuple[tuple[int, int], ...], ...]
    candidates: tuple[tuple[str, ...], ...]
    lone_cells: tuple[tuple[int, int], ...]  # open cells in no slot: a wheel letter (kept if pre-filled)
    ranks: tuple[tuple[int, ...], ...] = ()  # ranks[k][i]: rank of candidates[k][i] among words of its length

    def slot_words(self, rows: tuple[str, ...]) -> list[str]:
        """The word each slot spells in a filled board, in slot order."""
        return ["".join(rows[r][c] for r, c in slot) for slot in self.slots]

    def fill_objective(self, rows: tuple[str, ...]) -> tuple[int, int]:
        """(largest rank, sum of ranks) of a fill's words: what ``--best`` minimises."""
        ranks = [dict(zip(words, ranks, strict=True))[word]
                 for words, ranks, word in zip(self.candidates, self.ranks, self.slot_words(rows), strict=True)]
        return (max(ranks, default=0), sum(ranks))

    def render(self, letters: dict) -> tuple[str, ...]:
        """Rows of the filled board: letters, '#' for blocked cells."""
        return tuple(
            "".join(letters.get((r, c), "#") if (r, c) in self.board.cells else "#" for c in range(self.board.cols))
            for r in range(self.board.rows)
        )


def spellable(word: str, wheel_counts) -> bool:
    """The word's letter counts fit inside ``wheel_counts`` (a Counter)."""
    from collections import Counter

    return not Counter(word) - Counter(wheel_counts)


def wordscapes_spec(board, wheel: str, lexicon: Lexicon, min_len: int = 3) -> WordscapesSpec:
    from collections import Counter

    wheel = ascii_lower(wheel.strip())
    if not wheel or not re.fullmatch(r"[a-z]+", wheel):
        raise InputError(f"LETTERS must be letters a-z only, got {wheel!r}")
    if min_len < 1:
        raise InputError(f"--min must be at least 1, got {min_len}")
    counts = Counter(wheel)
    slots = tuple(board.slots())
    by_length: dict[int, list[tuple[int, str]]] = {}  # (rank among words of this length, word)
    for length in {len(s) for s in slots}:
        by_length[length] = [(rank, w) for rank, w in enumerate(lexicon.of_length(length))
                             if length >= min_len and spellable(w, counts)]
    candidates, ranks = [], []
    for slot in slots:
        fixed = [(k, board.cells[cell]) for k, cell in enumerate(slot) if board.cells[cell]]
        fitting = [(rank, w) for rank, w in by_length[len(slot)] if all(w[k] == c for k, c in fixed)]
        candidates.append(tuple(w for _, w in fitting))
        ranks.append(tuple(rank for rank, _ in fitting))
    in_slots = {cell for slot in slots for cell in slot}
    lone = tuple(cell for cell in sorted(board.cells) if cell not in in_slots)
    return WordscapesSpec(board, wheel, min_len, slots, tuple(candidates), lone, tuple(ranks))


# -- Bananagrams --------------------------------------------------------------------

MAX_HAND = 1000  # tiles in a hand: about seven bags; CP-SAT's model still builds in seconds
BANANA_BAG = "A13 B3 C3 D6 E18 F3 G4 H3 I12 J2 K2 L5 M3 N8 O11 P3 Q2 R9 S6 T9 U6 V3 W3 X2 Y3 Z2"  # 144 tiles


@dataclass(frozen=True)
class BananaSpec:
    """Place every tile of ``hand`` on a grid: one 4-connected crossword whose
    maximal runs of ≥ 2 letters are all words of ``words`` (the dictionary
    words spellable from the hand, longest first)."""

    hand: str  # sorted letters, one per tile
    words: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.hand)


def parse_hand(text: str) -> str:
    """'aei rst, lp' → 'aeilprst'. Spaces and commas between letters are fine."""
    cleaned = ascii_lower(re.sub(r"[\s,]+", "", text))
    if not cleaned:
        raise InputError("the hand is empty")
    if len(cleaned) > MAX_HAND:
        raise InputError(f"a hand holds at most {MAX_HAND:,} tiles, got {len(cleaned):,}")
    bad = sorted({c for c in cleaned if not "a" <= c <= "z"})
    if bad:
        raise InputError(f"the hand may hold only letters (spaces and commas between them are fine), found {''.join(bad)!r}")
    return "".join(sorted(cleaned))


def parse_rack(text: str) -> str:
    """A rack for ``words``: letters a-z and ``?`` for a blank, lowercased ('Reta?ns' → 'reta?ns')."""
    rack = ascii_lower(text.strip())
    if not rack or not all(c == "?" or "a" <= c <= "z" for c in rack):
        raise InputError(f"LETTERS must be letters a-z or '?' for a blank, got {text!r}")
    return rack


def banana_bag() -> list[str]:
    return [entry[0].lower() for entry in BANANA_BAG.split() for _ in range(int(entry[1:]))]


def draw_hand(tiles: int, seed: int) -> str:
    """``tiles`` drawn without replacement from the official 144-tile bag."""
    import random

    if not 1 <= tiles <= 144:
        raise InputError(f"--draw takes 1 to 144 tiles (the whole bag), got {tiles}")
    return "".join(sorted(random.Random(seed).sample(banana_bag(), tiles)))


def banana_spec(hand: str, lexicon: Lexicon, finder=None) -> BananaSpec:
    """Keep the words whose letters fit in the hand (every word of a layout
    is made of distinct tiles of the hand), longest first, then by rank.

    ``finder(hand)`` may supply those words faster (a trie walk under the
    hand's counts, heuristics.words); by default the lexicon is scanned.
    The hand is read as on the command line (spaces and commas are fine).

    >>> banana_spec("ta, b", Lexicon(["bat", "tab", "at", "zoo"])).words
    ('bat', 'tab', 'at')
    """
    from collections import Counter

    hand = parse_hand(hand)
    if finder is not None:
        words = [w for w in finder(hand) if len(w) >= 2]
    else:
        counts = Counter(hand)
        words = [w for w in lexicon.words if 2 <= len(w) <= len(hand) and spellable(w, counts)]
    rank = lexicon.rank_of
    words.sort(key=lambda w: (-len(w), rank.get(w, len(rank))))
    return BananaSpec(hand, tuple(words))
