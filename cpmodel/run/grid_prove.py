"""``grid --best RxC --prove``: the branch and bound of heuristics.grid_breaker, sharded.

The plan: the canonical top-level classes (heuristics.grid_breaker), in
stripes (shard k holds classes k, k+S, k+2S, ...), so heavy and light
classes mix and the shards come out of similar size. A shard is plain data
(:class:`ProveTask`) that any worker runs with :func:`prove_shard`, in a
local process (cpmodel.run.executors' pool) or on a Dask worker. Each shard
is submitted with the best score known so far (the seed: up to 30 s of
``grid --best``'s pool hill climber, which reaches the 3x4 optimum within 1
to 11 s; then whatever the shards found), so later shards prune harder. The
score to beat is most of the proof's cost: on 3x4 a class broken against
1,651 costs about a third of one broken against the 1,208 that a plain
steepest-ascent climb finds in the same time.

What the merged answer claims:

* a finished shard proves that no board of its classes beats the best score
  the run knows (the score it was given was a real board's);
* an unfinished shard proves only its ``upper``: the bound of the class it
  stopped in, and, for classes never bounded, a cheap bound that ignores
  adjacency (every word whose tiles the class's cells could hold,
  heuristics.grid_breaker.Breaker.count_bound);
* so the run's proven upper bound is the best score, or the largest
  ``upper`` of an unfinished shard; the board is *optimal* only when every
  shard finished.

--checkpoint records each finished shard (JSON lines, cpmodel.run.checkpoint's
file format), so a rerun skips them; the plan's key hashes the lexicon, the
board size, the scoring and the shard count.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from typing import cast

from cpmodel.core.control import Control
from cpmodel.core.errors import InputError
from cpmodel.core.scoring import ScoreTable
from cpmodel.run import interrupts
from cpmodel.run.checkpoint import Checkpoint, _json, record_sum
from cpmodel.run.sharded import TIME_UP_DRAIN, Progress, ShardOptions

QUICK_CLASSES = 8  # --quick: this many classes, evenly spaced over the canonical list (a smoke test)
QUICK_SEED_SECONDS = 0.5  # and a short seed search for the score to beat
SEED_SECONDS = 30.0  # the seed search's budget: a weak score to beat costs the proof far more (see seed_board)
SEED_QUIET = 0.3  # and it runs at least this long on 6 cells, twice as long for each cell more
LOCAL_SHARDS = 64  # a local run: ~550 classes a shard on 3x3, a few seconds each
FIXED_SHARDS = 256  # a checkpoint or a cluster: the plan a resume must find again


@dataclass(frozen=True)
class ProveTask:
    """One shard: break these classes against ``best``."""

    shard: int
    rows: int
    cols: int
    words: str  # the lexicon, one word a line (workers build their tables once, see _breaker)
    table: ScoreTable
    codes: tuple[int, ...]
    best: int
    time_limit: float | None


_BREAKERS: dict = {}  # in a worker: the Breaker of the last lexicon and shape seen


def _breaker(task: ProveTask):
    from heuristics.grid_breaker import Breaker

    key = (task.rows, task.cols, hashlib.sha256(task.words.encode()).hexdigest(), repr(task.table))
    if key not in _BREAKERS:
        _BREAKERS.clear()
        _BREAKERS[key] = Breaker(task.words.split("\n"), task.table, task.rows, task.cols)
    return _BREAKERS[key]


def prove_shard(task: ProveTask) -> dict:
    """Run one shard where this is called; a plain dict comes back (it pickles and goes into a checkpoint)."""
    from cpmodel.run import executors

    started = time.process_time()
    breaker = _breaker(task)
    deadline = None if task.time_limit is None else time.monotonic() + task.time_limit
    out = breaker.break_classes(task.codes, task.best, executors.current_stop(), deadline)  # the run's stop flag
    return {"shard": task.shard, "best": out.best, "board": out.board, "given": task.best,
            "classes": len(task.codes), "done": out.done, "complete": out.done == len(task.codes),
            "upper": out.upper, "nodes": out.nodes, "boards": out.boards,
            "cpu_seconds": round(time.process_time() - started, 3)}


@dataclass
class ProveResult:
    rows: int
    cols: int
    best: int
    board: str  # tile letters, "[qu]" for Qu
    upper: int  # no board scores more (proven)
    complete: bool  # every class finished: ``best`` is optimal
    stopped_by: str | None
    classes: int
    classes_done: int
    shards: int
    shards_done: int
    resumed: int
    seed_score: int
    seed_seconds: float
    seconds: float
    where: str
    nodes: int = 0
    boards: int = 0
    cpu_seconds: float = 0.0
    found_by: str = "seed"  # "seed" (the hill climb) or "search" (a shard found a better board)
    history: list = field(default_factory=list)
    all_classes: int = 0  # the canonical classes of the size; more than ``classes`` under --quick
    sampled: bool = False  # --quick: a fixed sample of the classes, so nothing about the others

    @property
    def optimal(self) -> bool:
        return self.complete and not self.sampled


class _Merge:
    """The shards' answers combined (the one place that knows how)."""

    def __init__(self, best: int, board: str, opening: list[int], classes: int):
        self.best, self.board = best, board
        self.found_by = "seed"
        self.open = dict(enumerate(opening))  # shard → its proven upper bound while unfinished
        self.done: set[int] = set()
        self.resumed = 0
        self.classes, self.classes_done = classes, 0
        self.nodes = self.boards = 0
        self.cpu = 0.0

    def add(self, record: dict, resumed: bool = False) -> None:
        if record["board"] and record["best"] > self.best:
            self.best, self.board, self.found_by = record["best"], record["board"], "search"
        self.nodes += record["nodes"]
        self.boards += record["boards"]
        self.cpu += record.get("cpu_seconds", 0.0)
        if record["complete"]:
            self.done.add(record["shard"])
            self.open.pop(record["shard"], None)
            self.classes_done += record["classes"]
            self.resumed += resumed
        else:
            self.open[record["shard"]] = max(record["upper"], record["best"])

    @property
    def upper(self) -> int:
        return max([self.best, *self.open.values()])

    @property
    def finished(self) -> bool:
        return not self.open


def plan(rows: int, cols: int, shards: int, sample: int | None = None) -> list[tuple[int, ...]]:
    """The canonical classes, cut into ``shards`` stripes (never more shards than classes);
    ``sample``: only that many, evenly spaced (the same ones every run)."""
    from heuristics.grid_breaker import canonical_classes, split_for

    codes = canonical_classes(rows, cols, split_for(rows, cols))
    if sample is not None and sample < len(codes):
        codes = [codes[k * len(codes) // sample] for k in range(sample)]
    count = max(1, min(shards, len(codes)))
    return [tuple(codes[k::count]) for k in range(count)]


def plan_key(rows: int, cols: int, words: str, table: ScoreTable, stripes: list) -> str:
    from heuristics.grid_breaker import split_for

    plan = ("grid-prove", rows, cols, table.length_points, len(stripes), split_for(rows, cols))
    digest = hashlib.sha256(repr(plan).encode())
    digest.update(words.encode())
    return digest.hexdigest()[:32]


class _ProveCheckpoint(Checkpoint):
    """cpmodel.run.checkpoint's file (locked, checksummed, verified before use) with proof records.

    A record's board is scored again before it counts: a checkpoint cannot
    bring in a score that no board has."""

    FIELDS = {"shard", "best", "board", "given", "classes", "done", "complete", "upper", "nodes", "boards",
              "cpu_seconds"}

    def __init__(self, path: str, key: str, stripes: list, score):
        self.score = score  # board letters ('q' for Qu) → its exact score
        super().__init__(path, key, stripes)

    def _verify(self, line: bytes, number: int):
        record = _json(line)
        if not isinstance(record, dict) or set(record) != self.FIELDS | {"sum"}:
            raise InputError(self._where(number, "not a proof shard record"))
        if record.pop("sum") != record_sum(self.key, record):
            raise InputError(self._where(number, "its checksum does not match (the line was edited or damaged)"))
        shard = record["shard"]
        if type(shard) is not int or not 0 <= shard < len(self.plan):
            raise InputError(self._where(number, f"shard {shard!r} is not in the plan of {len(self.plan)} shards"))
        whole = ("best", "given", "classes", "done", "upper", "nodes", "boards")
        if any(type(record[k]) is not int or record[k] < 0 for k in whole) or record["complete"] is not True:
            raise InputError(self._where(number, "a finished shard's counts must be whole numbers"))
        if record["classes"] != len(self.plan[shard]) or record["done"] != record["classes"]:
            raise InputError(self._where(number, f"shard {shard} has {len(self.plan[shard])} classes"))
        board = record["board"]
        if board is None and record["best"] != record["given"]:
            raise InputError(self._where(number, "a better score without its board"))
        if board is not None and (not isinstance(board, str) or self._score(board) != record["best"]):
            raise InputError(self._where(number, f"its board does not score {record['best']}"))
        return shard, record

    def _score(self, board: str) -> int | None:
        try:
            return self.score(board.replace("[qu]", "q"))
        except ValueError:  # not one letter per cell
            return None

    def record_shard(self, record: dict) -> None:
        self._append({**record, "sum": record_sum(self.key, record)})


def prove(words: list[str], table: ScoreTable, rows: int, cols: int, options: ShardOptions, time_limit: float | None,
          seed: int, stderr, seed_seconds: float = SEED_SECONDS, sample: int | None = None) -> ProveResult:
    """Prove the best R×C board's score, or bound it when stopped; ``sample``
    (--quick): only that many classes, which proves nothing about the rest.

    The stop signals are held from start to end and polled (as for rect's
    sharded runs, cpmodel.run.sharded): a shard's answer that arrived is
    merged and checkpointed exactly once, whenever the signal comes."""
    with interrupts.deferred(reraise=False) as signals:
        return _prove(words, table, rows, cols, options, time_limit, seed, stderr, seed_seconds, signals, sample)


class _Asked:
    """A stop event for the seed's hill climb: set once a stop signal came."""

    def __init__(self, signals):
        self.signals = signals

    def is_set(self) -> bool:
        return self.signals.asked


def seed_board(breaker, words: list[str], table: ScoreTable, seconds: float, seed: int, stop) -> tuple[int, str]:
    """The first score to beat: ``grid --best``'s pool hill climber, for at most ``seconds``.

    It ends sooner once it has gone four times as long as its last improvement
    took without a better board, and has run its minimum: SEED_QUIET on 6
    cells, doubled for each cell more, since the proof's cost grows as fast.
    Small boards settle in milliseconds and 3x3 reaches 545 in about half a
    second, but 3x4 can sit at 1,552 for 9 s before it reaches 1,651 (seeds
    0-7 reach it in 0.8 to 10.5 s, seed 0 last), and 1,552 to beat would make
    the 3x4 proof far dearer: its minimum run, 19 s, and the budget, 30 s,
    are a fraction of a percent of that proof.

    Returns (score, tile letters with 'q' for Qu), scored again by the
    breaker (the proof's own scoring); (-1, "") when stopped before any board."""
    from heuristics import grid_kernel
    from heuristics.grid_search import BestBoardSpec, hill_climb

    spec = BestBoardSpec(breaker.rows, breaker.cols, grid_kernel.build_alphabet_trie(words), table)
    control = _SeedControl(time_limit=seconds, stop=stop)
    control.least = SEED_QUIET * 2.0 ** max(0, breaker.n - 6)
    found = hill_climb(spec, seed, control, control.improved)
    if found.score < 0:
        return -1, ""
    letters = "".join("q" if grid_kernel.ALPHABET[int(c)] == "qu" else grid_kernel.ALPHABET[int(c)]
                      for c in found.codes)
    return breaker.score(letters), letters


class _SeedControl(Control):
    """The seed search's clock: its time limit, or quiet for four times its last improvement's time."""

    last_better: float = 0.0
    least: float = SEED_QUIET

    def improved(self, _rows) -> None:
        self.last_better = self.elapsed()

    def stop_reason(self) -> str | None:
        reason = super().stop_reason()
        if reason is None and self.elapsed() >= max(self.least, 5 * self.last_better):
            return "time-limit"
        return reason


def _prove(words, table, rows, cols, options, time_limit, seed, stderr, seed_seconds, signals, sample) -> ProveResult:
    from heuristics.grid_breaker import Breaker

    started = time.monotonic()
    deadline = None if time_limit is None else started + time_limit
    text = "\n".join(words)
    breaker = Breaker(words, table, rows, cols)
    seed_started = time.monotonic()
    if deadline is not None:  # a short limit: the climb takes at most a third of what is left
        seed_seconds = min(seed_seconds, max(0.0, deadline - seed_started) / 3)
    seed_score, seed_letters = seed_board(breaker, words, table, seed_seconds, seed, _Asked(signals))
    seed_took = time.monotonic() - seed_started
    shards = options.shards or (FIXED_SHARDS if options.checkpoint or options.scheduler else LOCAL_SHARDS)
    stripes = plan(rows, cols, shards, sample)
    all_classes = sum(map(len, stripes)) if sample is None else sum(map(len, plan(rows, cols, 1)))
    opening = [max(breaker.count_bound(code) for code in stripe) for stripe in stripes]
    merge = _Merge(seed_score, seed_letters, opening, sum(map(len, stripes)))
    history = [(round(seed_took, 2), seed_score)]
    checkpoint = None
    if options.checkpoint:
        checkpoint = _ProveCheckpoint(options.checkpoint, plan_key(rows, cols, text, table, stripes), stripes,
                                      breaker.score)
        for record in checkpoint.records.values():
            merge.add(cast(dict, record), resumed=True)  # this subclass's _verify keeps the record's dict
    from cpmodel.run.executors import pool_for

    if signals.asked or merge.finished or (deadline is not None and time.monotonic() >= deadline):
        # stopped (or resumed whole) before any shard could start: no pool to start and close
        stopped_by: str | None = "interrupt" if signals.asked else "time-limit"
        where = "no shard ran"
    else:
        with pool_for(options.jobs, options.scheduler, checkpoint) as pool:
            with _ProveProgress(stderr, f"prove {rows}x{cols}", merge) as progress:
                stopped_by = _drive(pool, stripes, merge, checkpoint, progress, deadline, history, started, signals,
                                    lambda k, best, left: ProveTask(k, rows, cols, text, table, stripes[k], best, left))
        where = pool.where
    return ProveResult(rows, cols, merge.best, _notation(merge.board, cols), merge.upper, merge.finished,
                       None if merge.finished else (stopped_by or "time-limit"), merge.classes,
                       merge.classes_done, len(stripes), len(merge.done), merge.resumed, seed_score,
                       round(seed_took, 2), time.monotonic() - started, where, merge.nodes, merge.boards,
                       round(merge.cpu, 2), merge.found_by, history, all_classes, sample is not None)


def _notation(board: str, cols: int) -> str:
    """Tile letters ('[qu]' for Qu) as board notation with '/' between rows."""
    tiles, i = [], 0
    while i < len(board):
        step = 4 if board.startswith("[qu]", i) else 1
        tiles.append(board[i:i + step])
        i += step
    tiles = ["[qu]" if t == "q" else t for t in tiles]
    return "/".join("".join(tiles[r:r + cols]) for r in range(0, len(tiles), cols))


def _drive(pool, stripes, merge: _Merge, checkpoint, progress, deadline, history, started, signals,
           make_task) -> str | None:
    """Keep 2 shards per worker in flight, each with the best score so far, until all finished,
    a stop signal came (``signals.asked``) or the time ran out; None when all finished."""
    queue = [k for k in reversed(range(len(stripes))) if k not in merge.done]
    in_flight: dict = {}
    stopped_by = None
    while (queue or in_flight) and not signals.asked:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:  # the shards in flight are stopped and drained below
            stopped_by = "time-limit"
            break
        while queue and len(in_flight) < 2 * pool.workers:
            k = queue.pop()
            in_flight[pool.submit_call(prove_shard, make_task(k, merge.best, left))] = k
        finished, _ = wait(in_flight, timeout=0.1, return_when=FIRST_COMPLETED)
        for future in finished:
            in_flight.pop(future)
            _collect(future.result(), merge, checkpoint, history, started)
        progress.update()
    if signals.asked:
        stopped_by = "interrupt"
    elif stopped_by is None and not merge.finished and (deadline is None or time.monotonic() < deadline):
        stopped_by = "worker"  # a shard came back unfinished on its own: its worker lost the scheduler
    if in_flight:
        pool.stop()
        _drain(in_flight, merge, checkpoint, history, started, 3.0 if stopped_by == "interrupt" else TIME_UP_DRAIN)
    progress.update(final=True)
    return None if merge.finished else (stopped_by or "time-limit")


def _collect(record: dict, merge: _Merge, checkpoint, history, started) -> None:
    before = merge.best
    if record["complete"] and checkpoint:
        checkpoint.record_shard(record)  # before it counts as done: a crash now loses only this shard
    merge.add(record)
    if merge.best > before:
        history.append((round(time.monotonic() - started, 2), merge.best))


def _drain(in_flight: dict, merge: _Merge, checkpoint, history, started, seconds: float = 3.0) -> None:
    """After a stop: take what the shards in flight proved before they stopped (a further signal skips the wait)."""
    hurry = interrupts.Mark(fresh=True)
    deadline = time.monotonic() + seconds
    while in_flight and time.monotonic() < deadline and not hurry.asked:
        finished, _ = wait(in_flight, timeout=0.05, return_when=FIRST_COMPLETED)
        for future in finished:
            in_flight.pop(future)
            if not future.cancelled() and future.exception() is None:
                _collect(future.result(), merge, checkpoint, history, started)


class _ProveProgress(Progress):
    """stderr: classes done/total, the best score, the proven upper bound."""

    def __init__(self, stderr, label: str, merge: _Merge):
        super().__init__(stderr, label, merge.classes)
        self.merge = merge

    def update(self, final: bool = False) -> None:  # type: ignore[override]
        super().update(self.merge.classes_done, self.merge.best, final)

    def line(self, done: int, solutions: int) -> str:
        m = self.merge
        elapsed = time.monotonic() - self.started
        return (f"{self.label} · classes {done:,}/{m.classes:,} ({m.classes - done:,} left) · "
                f"best {m.best:,} · upper bound {m.upper:,} · {elapsed:,.1f} s")
