"""Split a job into independent shards, and merge the shards' results.

Embarrassingly parallel search (Régin, Rezgui & Malapert, CP 2013): cut the
search space into many subproblems that share nothing, solve them anywhere,
and combine the answers. Here a subproblem fixes the *first line*:

* ``rect``: the first row (``spec.first_row``) or the first column
  (``spec.first_col``) may only take the words of one group;
* ``wordscapes``: the slot with the most candidates may only take one group
  of them.

Every solution has exactly one word on that line, and that word lies in
exactly one group, so the shards partition the solutions: the union of the
shards' sets is the whole set, their counts add up, and the optimum is the
best of the shards' optima. Each shard is an ordinary :class:`~cpmodel.core.jobs.Job`
that any engine solves without knowing it is a shard.

Which line (rect), and the job restricted to a group of its words: see
:mod:`cpmodel.run.cuts`, which :mod:`cpmodel.run.estimate` shares.

Pairs. When more shards are asked for than there are first-line words (big
clusters, small lists), a shard fixes a *pair*: a group of first-line words
and the first letter of the second line (a pattern cell every engine and the
validator already honour). That splits each word's subtree by the second
line's word, up to 26 ways, at no cost in extra nodes.

Groups are stripes of the rank-ordered words (group k holds words k, k+S,
k+2S, …), so common and rare words mix and the shards come out of similar
size. A backtracker's work is additive in the words it is given, so it gets
a few groups per worker (:func:`default_shards`: fewer jobs, less overhead); CP-SAT's is not, so it
gets one word per shard (see ``engines.wants_small_shards``).

When sharding pays (:func:`worth_sharding`). A pool costs about a second
(processes, imports, word tables in each worker); a search smaller than
that runs in one process. Its size comes from a quick Knuth estimate.

:class:`Merger` is the one place that knows how shard results combine.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from cpmodel.core.control import Request
from cpmodel.core.jobs import Job
from cpmodel.core.result import FOUND, NONE, UNKNOWN, SolveResult
from cpmodel.run.cuts import first_line_words, pin_orientation, restrict, split_line, split_slot
from cpmodel.run.engines import wants_small_shards

DEFAULT_SHARDS = 256  # a fixed plan: a checkpoint or a cluster, whatever the workers
# local runs: the low end of 30-100 per worker. The numpy kernel batches a shard's nodes, so
# bigger shards cost less per node: 5x6 --top 5000 --count --jobs 2 takes ~10% less wall with
# 64 shards than with 256 (benchmarks/scale.py), and 32 per worker still keeps both busy.
SHARDS_PER_WORKER = 32
# Knuth-estimated backtracker nodes below which one process beats a pool (about 2 s of search
# against about 1 s to start 2 workers and build their tables; benchmarks/scale.py measures both)
PAYS_NODES = 2_000_000
# CP-SAT enumerates a whole rectangle slowly well before the backtracker needs a second core
PAYS_NODES_SMALL_SHARDS = 20_000


@dataclass(frozen=True)
class Shard:
    id: int
    job: Job
    words: int  # how many first-line words this shard covers


def shardable(job: Job) -> bool:
    """Enumeration, counting and --best split into shards; a first-solution or --limit run does not."""
    return job.puzzle in ("rect", "wordscapes") and (job.request.limit is None or job.request.best)


def default_shards(workers: int | None) -> int:
    """How many backtracker shards a run gets when --shards is not given: 32 per local
    worker (at least 64); ``workers`` None (a checkpoint, a Dask cluster) gets the fixed
    ``DEFAULT_SHARDS``, so that a resume on another machine finds the same plan."""
    return DEFAULT_SHARDS if workers is None else max(64, SHARDS_PER_WORKER * workers)


def split(job: Job, shards: int | None = None, workers: int | None = None) -> list[Shard]:
    """The job as independent shards, ids 0..S-1. ``shards`` overrides the default count
    (see :func:`default_shards` for ``workers``); more shards than first-line words gives
    pair shards (rect)."""
    job = pin_orientation(job)
    words = first_line_words(job)
    if not words:  # nothing can stand on the first line: one shard, the engine proves it
        return [Shard(0, job, 0)]
    if shards is None:
        shards = len(words) if wants_small_shards(job.puzzle, job.engine) else default_shards(workers)
    if shards > len(words) and job.puzzle == "rect":
        pairs = pair_shards(job, words, shards)
        if pairs:
            return pairs
    count = max(1, min(shards, len(words)))
    groups = [words[k::count] for k in range(count)]
    return [Shard(k, restrict(job, group), len(group)) for k, group in enumerate(groups)]


def pair_shards(job: Job, words: tuple[str, ...], shards: int) -> list[Shard]:
    """About ``shards`` shards, each a group of first-line words and one first letter of the
    second line; [] when the second line cannot split (one line, squares, a fixed letter)."""
    spec = job.spec.transposed() if split_line(job) == "col" else job.spec
    if spec.m < 2 or spec.symmetric or (spec.pattern and spec.pattern[1][0] != "."):
        return []
    prefixes = {w[:2] for w in spec.col_words}  # the first crossing line starts with word[0] + letter
    seconds = {w[0] for w in spec.row_words}  # and the second line starts with that letter
    by_letter: dict[str, list[str]] = {}
    for word in words:
        for letter in sorted({p[1] for p in prefixes if p[0] == word[0]} & seconds):
            by_letter.setdefault(letter, []).append(word)
    pairs = sum(map(len, by_letter.values()))
    plan: list[Shard] = []
    for letter, group_words in sorted(by_letter.items()):
        count = max(1, min(len(group_words), round(shards * len(group_words) / pairs)))
        for k in range(count):
            group = tuple(group_words[k::count])
            plan.append(Shard(len(plan), restrict(job, group, second=letter), len(group)))
    return plan


def worth_sharding(job: Job, probes: int = 200) -> bool:
    """Whether a pool pays for this job: wordscapes always; rect when Knuth's estimate
    of the backtracker's tree is big enough (0.1 s for 200 probes on the full lexicon)."""
    if job.puzzle != "rect":
        return True
    from cpmodel.run.estimate import knuth_estimate

    nodes = knuth_estimate(job, probes)["nodes"]
    return nodes >= (PAYS_NODES_SMALL_SHARDS if wants_small_shards(job.puzzle, job.engine) else PAYS_NODES)


def with_bound(job: Job, bound: tuple[int, int] | None, time_limit: float | None) -> Job:
    """A shard as it is submitted: --best's bound so far, and the time left."""
    request = replace(job.request, bound=bound) if job.request.best else job.request
    return replace(job, request=request, time_limit=time_limit)


def job_key(job: Job, plan: list[Shard]) -> str:
    """A hash of the question and the shard plan: what a checkpoint must match.

    The plan is hashed shard by shard (the line and words each fixes), so a
    change of the cutting rule cannot resume into the wrong shards. The
    engine is left out (any exact engine gives the same shard answers), as
    are the time limit and --best's bound."""
    question = Request(limit=job.request.limit, count_only=job.request.count_only, best=job.request.best)
    digest = hashlib.sha256(repr((job.puzzle, job.spec, question, len(plan))).encode())
    for shard in plan:
        digest.update(repr(_cut(shard.job)).encode())
    return digest.hexdigest()[:32]


def _cut(job: Job) -> tuple:
    spec = job.spec
    if job.puzzle == "rect":
        return spec.first_row, spec.first_col, spec.pattern
    return spec.candidates[split_slot(spec)]


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
        self.stopped_by: str | None = None  # why the first shard that did not finish stopped
        self.cpu_seconds = 0.0  # the shards' own CPU time, summed (what the work costs on an idle core)

    @property
    def bound(self) -> tuple[int, int] | None:
        """--best: the objective every later shard must beat."""
        return self.best

    def add(self, shard_id: int, result: SolveResult, resumed: bool = False) -> None:
        if result.complete:
            self.done.add(shard_id)
            self.resumed += resumed
        else:
            self.stopped_by = self.stopped_by or result.stopped_by
        self.nodes += result.stats.get("nodes", 0)
        self.branches += result.stats.get("branches", 0)
        self.cpu_seconds += result.stats.get("cpu_seconds", 0.0)
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
        stats: dict[str, float] = {"shards": self.total, "shards_done": len(self.done), "resumed": self.resumed}
        if self.nodes:
            stats["nodes"] = self.nodes
        if self.branches:
            stats["branches"] = self.branches
        if self.cpu_seconds:
            stats["cpu_seconds"] = round(self.cpu_seconds, 3)
        return SolveResult(self.job.engine, status, complete, count, self.solutions(), seconds,
                           None if complete else (stopped_by or "time-limit"), self.best, stats)
