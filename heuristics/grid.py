"""Grid word search (Boggle, WordHero, Scramble) and a search for rich boards.

A word is a path of 8-neighbour-adjacent tiles, each used at most once,
whose tile texts spell it (a Qu tile spells two letters). ``find_words``
walks the board depth first from every tile, keeping the run of the sorted
lexicon that begins with the letters so far, so a path is abandoned as soon
as its letters are no word's prefix. A word found along several paths keeps
its best-scoring one.

The sorted list serves as the trie (:class:`SortedWords`): sorting 173k words
takes milliseconds where building a trie of them takes 0.3 s, and one board's
walk takes about 15 ms. So ``grid BOARD`` scores a single board here, in a
process that starts in well under half a second, and leaves the compiled
kernel (whose import and load cost a second) to ``--score-file`` and ``--best``.

``best_board`` looks for a high-scoring board by simulated annealing: change
one tile's letter or swap two tiles, keep the change if it scores better or,
with probability exp(Δ/T), even if worse, while T cools. Seeded, so a seed
and a time limit reproduce a run up to the speed of the machine.

This module is also the readable reference: the compiled
:mod:`heuristics.grid_kernel` is tested equal to ``find_words`` here, and
``grid --best`` searches with :mod:`heuristics.grid_search`.
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_left
from dataclasses import dataclass

from cpmodel.core.boards import GridBoard, Tile
from cpmodel.core.scoring import ScoreTable, points_for_length

_END = ""  # the trie's end-of-word key (heuristics.words.build_trie), for boggle_total
_AFTER_Z = "{"  # the character just after "z": prefix + _AFTER_Z sorts after every word with that prefix

# The 16 classic Boggle dice (Qu is one face).
CLASSIC_DICE = (
    "aaciot", "abilty", "abjmoQ", "acdemp", "acelrs", "adenvz", "ahmors", "biforx",
    "denosw", "dknotu", "eefhiy", "egkluy", "egintv", "ehinps", "elpstu", "gilruw",
)


@dataclass(frozen=True)
class GridWord:
    word: str
    score: int
    path: tuple[tuple[int, int], ...]


def neighbours(rows: int, cols: int) -> list[tuple[int, ...]]:
    """For each cell index, the indices of its (up to 8) neighbours."""
    result = []
    for r in range(rows):
        for c in range(cols):
            result.append(tuple(
                (r + dr) * cols + (c + dc)
                for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
            ))
    return result


@dataclass(frozen=True)
class SortedWords:
    """A lexicon in sorted order, used as a trie: the words that begin with a
    prefix are one contiguous run, found by two binary searches."""

    words: tuple[str, ...]

    @classmethod
    def of(cls, words) -> SortedWords:
        return cls(tuple(sorted(words)))  # a Lexicon holds each word once

    def run_of(self, prefix: str, lo: int, hi: int) -> tuple[int, int]:
        """The run of words in ``words[lo:hi]`` that begin with ``prefix`` (empty: lo == hi)."""
        lo = bisect_left(self.words, prefix, lo, hi)
        return lo, bisect_left(self.words, prefix + _AFTER_Z, lo, hi)


def find_words(board: GridBoard, lexicon: SortedWords, table: ScoreTable, min_len: int = 3,
               max_len: int | None = None) -> list[GridWord]:
    """Every dictionary word on the board with its best path, highest score first."""
    adjacent = neighbours(board.rows, board.cols)
    texts = [t.text for t in board.tiles]
    max_len = max_len or sum(len(t) for t in texts)
    best: dict[str, GridWord] = {}

    def extend(prefix: str, lo: int, hi: int, cell: int, path: list[int]) -> None:
        prefix += texts[cell]  # a Qu tile adds two letters
        if len(prefix) > max_len:
            return
        lo, hi = lexicon.run_of(prefix, lo, hi)
        if lo == hi:
            return  # no word begins with these letters: abandon the path
        path.append(cell)
        if len(prefix) >= min_len and lexicon.words[lo] == prefix:
            score = table.score(prefix, [board.tiles[i] for i in path])
            if prefix not in best or score > best[prefix].score:
                best[prefix] = GridWord(prefix, score, tuple(divmod(i, board.cols) for i in path))
        for nxt in adjacent[cell]:
            if nxt not in path:
                extend(prefix, lo, hi, nxt, path)
        path.pop()

    for start in range(len(texts)):
        extend("", 0, len(lexicon.words), start, [])
    return sorted(best.values(), key=lambda w: (-w.score, w.word))


def boggle_total(letters: list[str], adjacent, trie: dict, points: list[int]) -> int:
    """Total Boggle score of a board of tile texts: the annealing's objective.

    The same walk as find_words with no paths or objects kept: ``points``
    maps a word length to its score, and a set keeps each word once."""
    seen: set[str] = set()
    total = 0
    last = len(points) - 1

    def extend(node: dict, cell: int, used: int, length: int) -> None:
        nonlocal total
        for letter in letters[cell]:
            child = node.get(letter)
            if child is None:
                return
            node = child
        length += len(letters[cell])
        word = node.get(_END)
        if word is not None and word not in seen:
            seen.add(word)
            total += points[min(length, last)]
        used |= 1 << cell
        for nxt in adjacent[cell]:
            if not used >> nxt & 1:
                extend(node, nxt, used, length)

    for start in range(len(letters)):
        extend(trie, start, 0, 0)
    return total


def points_by_length(table: ScoreTable, longest: int = 17) -> list[int]:
    """Boggle points as a list indexed by length (the last entry covers longer words)."""
    return [points_for_length(table.length_points, n) for n in range(longest + 1)]


def roll_dice(seed: int) -> GridBoard:
    """The 16 classic dice, shuffled into a 4×4 grid, each showing a random face."""
    rng = random.Random(seed)
    dice = list(CLASSIC_DICE)
    rng.shuffle(dice)
    tiles = []
    for die in dice:
        face = rng.choice(die)
        tiles.append(Tile("qu" if face == "Q" else face))
    return GridBoard(4, 4, tuple(tiles))


# English letter weights for proposing new letters (common letters more often).
_LETTER_WEIGHTS = {
    "e": 12, "t": 9, "a": 8, "o": 8, "i": 7, "n": 7, "s": 6, "r": 6, "h": 6, "d": 4, "l": 4, "u": 3, "c": 3,
    "m": 2, "w": 2, "f": 2, "g": 2, "y": 2, "p": 2, "b": 1, "v": 1, "k": 1, "j": 1, "x": 1, "qu": 1, "z": 1,
}


@dataclass
class AnnealResult:
    board: GridBoard
    score: int
    evaluations: int
    seconds: float
    history: list[tuple[float, int]]  # (seconds, best score) at each improvement
    stopped_by: str


def best_board(rows: int, cols: int, trie: dict, table: ScoreTable, seed: int, time_limit: float,
               stop=None, progress=None, start_temperature: float = 40.0) -> AnnealResult:
    """Simulated annealing over boards for a high Boggle score.

    T cools geometrically from ``start_temperature`` to 1 over the time limit,
    and the search restarts from the best board when it has not improved for
    a while. ``start_temperature=0`` is plain hill climbing (never accept a
    worse board), the baseline in benchmarks/grid.py."""
    rng = random.Random(seed)
    adjacent = neighbours(rows, cols)
    points = points_by_length(table, rows * cols * 2 + 1)
    alphabet, weights = list(_LETTER_WEIGHTS), list(_LETTER_WEIGHTS.values())
    current = rng.choices(alphabet, weights, k=rows * cols)
    current_score = boggle_total(current, adjacent, trie, points)
    best, best_score = list(current), current_score
    started = time.monotonic()
    history = [(0.0, best_score)]
    evaluations, since_best, stopped_by = 1, 0, "time-limit"
    while True:
        elapsed = time.monotonic() - started
        if elapsed >= time_limit:
            break
        if stop is not None and stop.is_set():
            stopped_by = "interrupt"
            break
        temperature = start_temperature * (1.0 / start_temperature) ** (elapsed / time_limit) if start_temperature else 0.0
        candidate = list(current)
        if rng.random() < 0.5:
            candidate[rng.randrange(len(candidate))] = rng.choices(alphabet, weights)[0]
        else:
            i, j = rng.randrange(len(candidate)), rng.randrange(len(candidate))
            candidate[i], candidate[j] = candidate[j], candidate[i]
        score = boggle_total(candidate, adjacent, trie, points)
        evaluations += 1
        since_best += 1
        if score >= current_score or (temperature and rng.random() < math.exp((score - current_score) / temperature)):
            current, current_score = candidate, score
        if current_score > best_score:
            best, best_score, since_best = list(current), current_score, 0
            history.append((round(time.monotonic() - started, 2), best_score))
            if progress:
                progress(best_score, evaluations)
        elif since_best > 20000:
            current, current_score, since_best = list(best), best_score, 0
    board = GridBoard(rows, cols, tuple(Tile(t) for t in best))
    return AnnealResult(board, best_score, evaluations, time.monotonic() - started, history, stopped_by)
