"""Split a job into independent shards, and merge the shards' results.

Embarrassingly parallel search (Régin, Rezgui & Malapert, CP 2013): cut the
search space into many subproblems that share nothing, solve them anywhere,
and combine the answers. Here a subproblem fixes the *first line*:

* ``rect``: row 1 may only take the words of one group (``spec.first_row``);
* ``wordscapes``: the slot with the most candidates may only take one group
  of them.

Every solution has exactly one word on that line, and that word lies in
exactly one group, so the shards partition the solutions: the union of the
shards' sets is the whole set, their counts add up, and the optimum is the
best of the shards' optima. Each shard is an ordinary :class:`~cpmodel.jobs.Job`
that any engine solves without knowing it is a shard.

Groups are stripes of the rank-ordered words (group k holds words k, k+S,
k+2S, …), so common and rare words mix and the shards come out of similar
size. A backtracker's work is additive in the words it is given, so it gets
``DEFAULT_SHARDS`` groups (fewer jobs, less overhead); CP-SAT's is not, so it
gets one word per shard (see ``engines.wants_small_shards``).

:class:`Merger` is the one place that knows how shard results combine.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from cpmodel.control import Request
from cpmodel.engines import wants_small_shards
from cpmodel.jobs import Job
from cpmodel.result import FOUND, NONE, UNKNOWN, SolveResult

DEFAULT_SHARDS = 256  # 30-100 per worker on 2-8 workers; --shards N for bigger clusters


@dataclass(frozen=True)
class Shard:
    id: int
    job: Job
    words: int  # how many first-line words this shard covers


def shardable(job: Job) -> bool:
    """Enumeration, counting and --best split into shards; a first-solution or --limit run does not."""
    return job.puzzle in ("rect", "wordscapes") and (job.request.limit is None or job.request.best)


def first_line_words(job: Job) -> tuple[str, ...]:
    """The words the first line can take, in rank order (the shards' raw material)."""
    spec = job.spec
    if job.puzzle == "rect":
        words = spec.first_row if spec.first_row is not None else spec.row_words
        fixed = spec.pattern[0] if spec.pattern else "." * spec.n
        starts = {w[0] for w in spec.col_words}  # row 1's letter j starts column j
        return tuple(w for w in words if all(c in starts and f in (".", c) for c, f in zip(w, fixed)))
    return spec.candidates[split_slot(spec)] if spec.slots else ()


def split_slot(spec) -> int:
    """Wordscapes: the slot with the most candidates (the first of equals) carries the split."""
    return max(range(len(spec.slots)), key=lambda k: (len(spec.candidates[k]), -k))


def split(job: Job, shards: int | None = None) -> list[Shard]:
    """The job as independent shards, ids 0..S-1. ``shards`` overrides the default count."""
    words = first_line_words(job)
    if not words:  # nothing can stand on the first line: one shard, the engine proves it
        return [Shard(0, job, 0)]
    if shards is None:
        shards = len(words) if wants_small_shards(job.puzzle, job.engine) else DEFAULT_SHARDS
    count = max(1, min(shards, len(words)))
    groups = [words[k::count] for k in range(count)]
    return [Shard(k, restrict(job, group), len(group)) for k, group in enumerate(groups)]


def restrict(job: Job, group: tuple[str, ...]) -> Job:
    spec = job.spec
    if job.puzzle == "rect":
        return replace(job, spec=replace(spec, first_row=group))
    slot = split_slot(spec)
    candidates = spec.candidates[:slot] + (group,) + spec.candidates[slot + 1:]
    rank_of = dict(zip(spec.candidates[slot], spec.ranks[slot])) if spec.ranks else {}
    ranks = spec.ranks[:slot] + (tuple(rank_of[w] for w in group),) + spec.ranks[slot + 1:] if spec.ranks else ()
    # ranks[k] stays aligned with candidates[k]: --best reads a word's rank from them
    return replace(job, spec=replace(spec, candidates=candidates, ranks=ranks))


def with_bound(job: Job, bound: tuple[int, int] | None, time_limit: float | None) -> Job:
    """A shard as it is submitted: --best's bound so far, and the time left."""
    request = replace(job.request, bound=bound) if job.request.best else job.request
    return replace(job, request=request, time_limit=time_limit)


def job_key(job: Job, shards: int) -> str:
    """A hash of the question and the shard plan: what a checkpoint must match.

    The engine is left out (any exact engine gives the same shard answers),
    as are the time limit and --best's bound."""
    question = Request(limit=job.request.limit, count_only=job.request.count_only, best=job.request.best)
    text = repr((job.puzzle, job.spec, question, shards))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Merger:
    """Combines shard results into the answer of the whole job.

    ``keep_solutions`` is off when solutions are streamed (--jsonl), so that
    memory stays flat whatever the count."""

    def __init__(self, job: Job, total: int, keep_solutions: bool):
        self.job, self.total, self.keep = job, total, keep_solutions
        self.done: set[int] = set()  # shards that finished what they were asked
        self.resumed = 0  # of those, how many came from a checkpoint
        self.count = 0
        self.by_shard: dict[int, list[tuple[str, ...]]] = {}
        self.best: tuple[int, int] | None = None
        self.best_rows: tuple[str, ...] | None = None
        self.nodes = self.branches = 0

    @property
    def bound(self) -> tuple[int, int] | None:
        """--best: the objective every later shard must beat."""
        return self.best

    def add(self, shard_id: int, result: SolveResult, resumed: bool = False) -> None:
        if result.complete:
            self.done.add(shard_id)
            self.resumed += resumed
        self.nodes += result.stats.get("nodes", 0)
        self.branches += result.stats.get("branches", 0)
        if self.job.request.best:
            if result.objective is not None and (self.best is None or result.objective < self.best):
                self.best, self.best_rows = result.objective, result.solutions[0]
            return
        self.count += result.count
        if self.keep and result.solutions:
            self.by_shard.setdefault(shard_id, []).extend(result.solutions)

    @property
    def found(self) -> int:
        """Solutions so far (for --best: 1 once any rectangle is known)."""
        return int(self.best is not None) if self.job.request.best else self.count

    @property
    def finished(self) -> bool:
        return len(self.done) == self.total

    def solutions(self) -> list[tuple[str, ...]]:
        """The kept solutions, shard by shard (a stable order for a given plan)."""
        if self.job.request.best:
            return [self.best_rows] if self.best_rows else []
        return [rows for k in sorted(self.by_shard) for rows in self.by_shard[k]]

    def result(self, seconds: float, stopped_by: str | None) -> SolveResult:
        """The whole job's result. ``none`` needs every shard exhausted."""
        count = self.found
        complete = self.finished
        status = FOUND if count else (NONE if complete else UNKNOWN)
        stats = {"shards": self.total, "shards_done": len(self.done), "resumed": self.resumed}
        if self.nodes:
            stats["nodes"] = self.nodes
        if self.branches:
            stats["branches"] = self.branches
        return SolveResult(self.job.engine, status, complete, count, self.solutions(), seconds,
                           None if complete else (stopped_by or "time-limit"), self.best, stats)
