"""Searching for a high-scoring board: a pool hill climber and simulated annealing.

Both score boards with the compiled :class:`~heuristics.grid_kernel.BatchScorer`
(boards over the 26 tiles a–z, ``q`` the Qu tile) and both are heuristics:
what they return is the best board *found*, never a proven optimum.

Pool hill climbing (danvk/hybrid-boggle's ``hillclimb.py``): keep the ``pool``
best boards seen; each round, every board of the pool is expanded into all
its neighbours (each one-tile change and each swap of two tiles), and the
best ``pool`` boards among the pool and its neighbours become the next pool.
Boards are put in a canonical form (the smallest of their images under the
grid's symmetries, 8 for a square, 4 for a rectangle), so a board and its
mirror image are scored once. A hash table remembers every board's score, so
a round only scores boards it has never seen. A climb starts with a small
pool and widens it each time it is stuck (cheap early rounds, then breadth);
when the full pool leaves a round unchanged the climb is stuck on its peaks:
it restarts from random boards, keeping the best found.

Annealing (the search :mod:`heuristics.grid` ran before, now on the kernel):
one random change or swap at a time, kept if better or with probability
exp(Δ/T) while T cools geometrically over a run of ``SEED_STEPS`` boards;
runs restart from random boards, keeping the best. The climber starts each
climb from such a run's board.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from cpmodel.core.result import FOUND, UNKNOWN, SolveResult
from cpmodel.core.scoring import ScoreTable
from heuristics import grid_kernel as K

POOL = 500  # boards kept per round (danvk's runs reach the 4x4 optimum 95 times in 100 with 500)
TABLE_BITS = 21  # the score memo: 2M boards (64 MB), cleared when half full
SEED_STEPS = 20000  # each climb starts from a board annealed this many steps (0: from random boards)
ANNEAL_RUN = 10000  # boards per annealing run of the anneal engine (a run settles within a few thousand)
PATIENCE = 3  # rounds of the full pool without a better board before a restart
KICK_SHARE = 0.5  # restarts that start near the best board (a few random moves away) rather than anew
KICK_MOVES = (2, 4)  # how many moves a kick makes, at least and at most
KICK_TEMPERATURE = 10.0  # an annealing run from a kicked best starts this cool (a fresh one at 40)
CHUNK = 16  # pool boards expanded per compiled call, between two looks at the clock
# English letter weights for random boards (the annealing's proposals and the climber's restarts)
WEIGHTS = dict(zip("abcdefghijklmnopqrstuvwxyz", (8, 2, 3, 4, 12, 2, 2, 6, 7, 1, 1, 4, 2, 7, 8, 2, 1, 6, 6, 9, 3, 1, 2, 1, 2, 1), strict=True))


@dataclass(frozen=True)
class BestBoardSpec:
    """What --best searches: a board shape, the word list (as a tile trie) and the scoring."""

    rows: int
    cols: int
    trie: K.AlphabetTrie
    table: ScoreTable
    min_len: int = 3
    max_len: int | None = None

    def scorer(self) -> K.BatchScorer:
        return K.BatchScorer(self.trie, self.rows, self.cols, self.table, self.min_len, self.max_len)


def board_rows(spec: BestBoardSpec, codes) -> tuple[str, ...]:
    """A board as rows of tile notation (``[qu]`` for the Qu tile), a solution's form."""
    texts = [K.ALPHABET[int(c)] for c in codes]
    texts = [t if len(t) == 1 else f"[{t}]" for t in texts]
    return tuple("".join(texts[r * spec.cols:(r + 1) * spec.cols]) for r in range(spec.rows))


def rows_codes(rows: tuple[str, ...]) -> np.ndarray:
    """The inverse of :func:`board_rows`."""
    from cpmodel.core.boards import parse_grid

    codes = K.encode(parse_grid("/".join(rows) + ("/" if len(rows) == 1 else "")))
    assert codes is not None  # board_rows writes only tiles of K.ALPHABET
    return codes


def objective(spec: BestBoardSpec, rows: tuple[str, ...]) -> tuple[int, int]:
    """--best's value of a board, smaller is better: (-score, 0)."""
    return (-spec.scorer().score(rows_codes(rows)), 0)


def symmetries(rows: int, cols: int) -> np.ndarray:
    """Cell permutations that map the grid onto itself (8 for a square, else 4)."""
    grid = np.arange(rows * cols).reshape(rows, cols)
    images = [grid, grid[::-1], grid[:, ::-1], grid[::-1, ::-1]]
    if rows == cols:
        images += [grid.T, grid.T[::-1], grid.T[:, ::-1], grid.T[::-1, ::-1]]
    return np.array([image.ravel() for image in images], np.int64)


@dataclass
class Climb:
    """What a search reports: its best board, score and history."""

    codes: np.ndarray
    score: int
    evaluations: int = 0
    history: list = field(default_factory=list)  # [seconds, best score] at each improvement
    restarts: int = 0


def random_boards(rng: np.random.Generator, count: int, cells: int) -> np.ndarray:
    weights = np.array(list(WEIGHTS.values()), float)
    return rng.choice(26, size=(count, cells), p=weights / weights.sum()).astype(np.int8)


def hill_climb(spec: BestBoardSpec, seed: int, control, on_better=None, pool: int = POOL, first_pool: int = 25,
               seed_steps: int = SEED_STEPS, patience: int = PATIENCE, kick_share: float = KICK_SHARE) -> Climb:
    """Pool hill climbing with restarts until ``control`` says stop (see the module docstring).

    Each climb starts from one board annealed for ``seed_steps`` steps (or,
    with 0, from ``first_pool`` random boards), with a small pool that reaches
    good boards in few cheap rounds; when that pool is stuck it widens
    fourfold, up to ``pool``. The full pool restarts when it is stuck or its
    best has not improved for ``patience`` rounds; a share ``kick_share`` of
    the restarts start from the best board after a few random moves (an
    iterated local search: the best boards' neighbours beyond one move are
    where the next better board most often is)."""
    rng = np.random.default_rng(seed)
    scorer = spec.scorer()
    cells = spec.rows * spec.cols
    perms = symmetries(spec.rows, spec.cols)
    keys = np.zeros((1 << TABLE_BITS, 2), np.int64)
    values = np.zeros((1 << TABLE_BITS, 2), np.int64)  # score, round last seen
    filled = np.zeros(1, np.int64)
    best = Climb(np.zeros(cells, np.int8), -1)
    started = time.monotonic()
    round_id = 0
    while control.stop_reason() is None:
        width = min(first_pool, pool)
        if best.score > 0 and rng.random() < kick_share:  # iterated local search: climb again near the best
            current = _canonical_all(kick(best.codes, rng).reshape(1, -1), perms)
        elif seed_steps:
            start = anneal(spec, int(rng.integers(2**31)), control, steps=seed_steps)
            best.evaluations += start.evaluations
            current = _canonical_all(start.codes.reshape(1, -1), perms)
        else:
            current = np.unique(_canonical_all(random_boards(rng, width, cells), perms), axis=0)
        current_scores = scorer.scores(current)
        best.evaluations += len(current)
        _keep_better(best, current[np.argmax(current_scores)], int(current_scores.max()), started, spec, on_better)
        control.solutions = 1
        climb_top, flat_rounds = -1, 0
        while control.stop_reason() is None:
            round_id += 1
            if filled[0] > (1 << TABLE_BITS) // 2:
                keys[:] = 0
                values[:] = 0
                filled[0] = 0
            parts, part_scores = [current], [current_scores]
            _mark(current, values, keys, round_id, TABLE_BITS, current_scores, filled)
            for first in range(0, len(current), CHUNK):
                if control.stop_reason() is not None:
                    break
                scorer.scores(current[:0])  # renews the stamps long before they could overflow
                boards, scores, fresh = _expand(
                    current[first:first + CHUNK], perms, keys, values, filled, round_id, TABLE_BITS,
                    scorer.trie.node, scorer.info, scorer.nbr_mask, scorer.stamp)
                best.evaluations += fresh
                control.nodes = best.evaluations
                parts.append(boards)
                part_scores.append(scores)
            boards, scores = np.concatenate(parts), np.concatenate(part_scores)
            order = np.argsort(-scores, kind="stable")[:width]
            top = int(scores[order[0]])
            _keep_better(best, boards[order[0]], top, started, spec, on_better)
            flat_rounds = flat_rounds + 1 if top <= climb_top and width >= pool else 0
            climb_top = max(climb_top, top)
            if flat_rounds >= patience:
                break  # the full pool's best has not moved for a while: restart
            if len(order) == len(current) and np.array_equal(np.sort(order), np.arange(len(current))):
                if width >= pool:
                    break  # the full pool kept itself: a local optimum of the whole pool; restart
                width = min(pool, width * 4)
                order = np.argsort(-scores, kind="stable")[:width]
            current, current_scores = boards[order], scores[order]
        best.restarts += 1
    best.restarts -= 1
    return best


def kick(codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The board after a few random moves (each a tile changed to a random letter, or two tiles swapped)."""
    board = codes.copy()
    for _ in range(int(rng.integers(KICK_MOVES[0], KICK_MOVES[1] + 1))):
        if rng.random() < 0.5:
            board[rng.integers(len(board))] = random_boards(rng, 1, 1)[0, 0]
        else:
            i, j = rng.integers(len(board), size=2)
            board[i], board[j] = board[j], board[i]
    return board


def _keep_better(best: Climb, codes: np.ndarray, score: int, started: float, spec, on_better) -> None:
    """Make ``codes`` the best board if it beats it. The seed board counts too: a climb
    stopped before its first round (a slow machine, an early Ctrl-C) still hands back a board."""
    if score > best.score:
        best.codes, best.score = codes.copy(), score
        best.history.append([round(time.monotonic() - started, 2), score])
        if on_better is not None:
            on_better(board_rows(spec, best.codes))


def anneal(spec: BestBoardSpec, seed: int, control, on_better=None, time_limit: float = 60.0,
           start_temperature: float = 40.0, steps: int | None = None, start: np.ndarray | None = None) -> Climb:
    """Simulated annealing from ``start`` (or a random board); T cools from ``start_temperature``
    to 1 over ``time_limit`` seconds, or over ``steps`` boards when given (then it stops after them)."""
    rng = np.random.default_rng(seed)
    scorer = spec.scorer()
    cells = spec.rows * spec.cols
    current = random_boards(rng, 1, cells)[0] if start is None else start.copy()
    score = scorer.score(current)
    best = Climb(current.copy(), score, 1, [[0.0, score]])
    started, since_best = time.monotonic(), 0
    weights = np.array(list(WEIGHTS.values()), float)
    cumulative = np.cumsum(weights / weights.sum())
    while True:
        if best.evaluations % 256 == 0 and control.stop_reason() is not None:
            break
        if steps is not None and best.evaluations >= steps:
            break
        progress = best.evaluations / steps if steps else (time.monotonic() - started) / time_limit
        temperature = start_temperature * (1.0 / start_temperature) ** min(1.0, progress)
        candidate = current.copy()
        if rng.random() < 0.5:
            candidate[rng.integers(cells)] = min(25, int(np.searchsorted(cumulative, rng.random())))
        else:
            i, j = rng.integers(cells, size=2)
            candidate[i], candidate[j] = candidate[j], candidate[i]
        value = scorer.score(candidate)
        best.evaluations += 1
        since_best += 1
        if value >= score or rng.random() < math.exp((value - score) / temperature):
            current, score = candidate, value
        if score > best.score:
            best.codes, best.score, since_best = current.copy(), score, 0
            best.history.append([round(time.monotonic() - started, 2), score])
            if steps is None:  # a whole search, not a climb's start: report progress
                control.nodes, control.solutions = best.evaluations, 1
            if on_better is not None:
                on_better(board_rows(spec, best.codes))
        elif since_best > 20000:
            current, score, since_best = best.codes.copy(), best.score, 0
            best.restarts += 1
        if best.evaluations % 1024 == 0 and steps is None:
            control.nodes = best.evaluations
    if steps is None:
        control.nodes = best.evaluations
    return best


def anneal_restarts(spec: BestBoardSpec, seed: int, control, on_better=None, steps: int = ANNEAL_RUN) -> Climb:
    """Annealing runs of ``steps`` boards each until stopped, keeping the best: one run
    settles on its local peak within a few thousand steps (measured), so new starts
    find more peaks than a longer run would. Half the runs start from fresh random
    boards; the other half, cooler, from the best board after a few random moves."""
    rng = np.random.default_rng(seed)
    best = Climb(np.zeros(spec.rows * spec.cols, np.int8), -1)
    started = time.monotonic()
    while control.stop_reason() is None:
        if best.score > 0 and rng.random() < KICK_SHARE:  # a cool run near the best board
            run = anneal(spec, int(rng.integers(2**31)), control, steps=steps, start=kick(best.codes, rng),
                         start_temperature=KICK_TEMPERATURE)
        else:
            run = anneal(spec, int(rng.integers(2**31)), control, steps=steps)
        best.evaluations += run.evaluations
        control.nodes = best.evaluations
        if run.score > best.score:
            best.codes, best.score = run.codes, run.score
            best.history.append([round(time.monotonic() - started, 2), run.score])
            control.solutions = 1
            if on_better is not None:
                on_better(board_rows(spec, best.codes))
        best.restarts += 1
    return best


def solve(spec: BestBoardSpec, method: str, seed: int, control, request) -> SolveResult:
    """An engine's answer (cpmodel.run.engines): found, never complete (nothing is proven)."""
    started = time.monotonic()
    if method == "hillclimb":
        found = hill_climb(spec, seed, control, request.on_solution)
    else:
        found = anneal_restarts(spec, seed, control, request.on_solution)
    stats = {"score": found.score, "evaluations": found.evaluations, "history": found.history,
             "restarts": found.restarts, "seed": seed, "nodes": found.evaluations}
    if found.score < 0:  # stopped before a single board was scored: nothing to report
        return SolveResult(method, UNKNOWN, complete=False, count=0, seconds=time.monotonic() - started,
                           stopped_by=control.stop_reason() or "interrupt", stats=stats)
    rows = board_rows(spec, found.codes)
    return SolveResult(method, FOUND, complete=False, count=1, solutions=[rows],
                       seconds=time.monotonic() - started, stopped_by=control.stop_reason() or "interrupt",
                       objective=(-found.score, 0), stats=stats)


def warm_up(spec: BestBoardSpec) -> None:
    """Compile the search's kernels (or load them from numba's cache) once, here:
    a portfolio forks its processes after this, and they inherit the machine code
    instead of each compiling it (seconds each, on the first run)."""
    scorer = spec.scorer()
    board = np.zeros((1, spec.rows * spec.cols), np.int8)
    perms = symmetries(spec.rows, spec.cols)
    keys, values, filled = np.zeros((16, 2), np.int64), np.zeros((16, 2), np.int64), np.zeros(1, np.int64)
    _canonical_all(board, perms)
    _mark(board, values, keys, 1, 4, scorer.scores(board), filled)
    _expand(board[:0], perms, keys, values, filled, 1, 4, scorer.trie.node, scorer.info, scorer.nbr_mask,
            scorer.stamp)


# -- compiled parts of a round -------------------------------------------------------


@njit(cache=True)
def _canonical(board, perms, out):
    """The lexicographically smallest image of ``board`` under ``perms``, into ``out``."""
    cells = len(board)
    for c in range(cells):
        out[c] = board[perms[0, c]]
    for s in range(1, len(perms)):
        for c in range(cells):
            value = board[perms[s, c]]
            if value != out[c]:
                if value < out[c]:
                    for d in range(cells):
                        out[d] = board[perms[s, d]]
                break


@njit(cache=True)
def _canonical_all(boards, perms):
    out = np.empty_like(boards)
    for b in range(len(boards)):
        _canonical(boards[b], perms, out[b])
    return out


@njit(cache=True)
def _key(board):
    """Two 64-bit words holding 13 cells each in base 26 (26^13 < 2^63; up to 26 cells)."""
    k0 = np.int64(0)
    k1 = np.int64(0)
    for c in range(len(board)):
        if c < 13:
            k0 = k0 * 26 + board[c]
        else:
            k1 = k1 * 26 + board[c]
    return k0 + 1, k1  # k0 + 1: an empty slot is all zeros


@njit(cache=True)
def _slot(keys, k0, k1, bits):
    """The table slot holding (k0, k1), or the empty slot where it would go (linear probing)."""
    mask = (1 << bits) - 1
    h = ((k0 * np.int64(-7046029254386353131)) ^ (k1 * np.int64(-4658895280553007687))) >> 20
    slot = h & mask
    while keys[slot, 0] != 0 and (keys[slot, 0] != k0 or keys[slot, 1] != k1):
        slot = (slot + 1) & mask
    return slot


@njit(cache=True)
def _mark(boards, values, keys, round_id, bits, scores, filled):
    """Note the pool's boards as seen this round (so no neighbour repeats them)."""
    for b in range(len(boards)):
        k0, k1 = _key(boards[b])
        slot = _slot(keys, k0, k1, bits)
        if keys[slot, 0] == 0:
            keys[slot, 0], keys[slot, 1] = k0, k1
            filled[0] += 1
        values[slot, 0] = scores[b]
        values[slot, 1] = round_id


@njit(cache=True)
def _expand(pool, perms, keys, values, filled, round_id, bits, node, info, nbr_mask, stamp):
    """Every canonical neighbour of the pool's boards not yet seen this round, with
    its score (from the table, or scored now); also how many were scored now."""
    cells = pool.shape[1]
    most = len(pool) * (cells * 25 + cells * (cells - 1) // 2)
    out = np.empty((most, cells), np.int8)
    scores = np.empty(most, np.int64)
    one = np.empty((1, cells), np.int8)
    canon = np.empty(cells, np.int8)
    st_cell, st_node, st_free = np.empty(cells, np.int64), np.empty(cells, np.int64), np.empty(cells, np.int64)
    n = 0
    fresh = 0
    for b in range(len(pool)):
        board = pool[b]
        for move in range(cells * 26 + cells * cells):
            one[0, :] = board
            if move < cells * 26:
                cell, letter = move // 26, move % 26
                if board[cell] == letter:
                    continue
                one[0, cell] = letter
            else:
                i, j = (move - cells * 26) // cells, (move - cells * 26) % cells
                if j <= i or board[i] == board[j]:
                    continue
                one[0, i], one[0, j] = board[j], board[i]
            _canonical(one[0], perms, canon)
            k0, k1 = _key(canon)
            slot = _slot(keys, k0, k1, bits)
            if keys[slot, 0] != 0:
                if values[slot, 1] == round_id:
                    continue  # already a candidate this round
                score = values[slot, 0]
            else:
                stamp[0] += 1
                score = K._alphabet_walk(node, info, canon, nbr_mask, stamp[0], st_cell, st_node, st_free)
                fresh += 1
                keys[slot, 0], keys[slot, 1] = k0, k1
                filled[0] += 1
            values[slot, 0] = score
            values[slot, 1] = round_id
            out[n, :] = canon
            scores[n] = score
            n += 1
    return out[:n].copy(), scores[:n].copy(), fresh
