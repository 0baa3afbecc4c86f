"""Sharded runs of ``rect`` and ``wordscapes``: the driver loop behind --jobs, --scheduler, --checkpoint.

:func:`run_sharded` splits the job (cpmodel.run.shards), replays a checkpoint,
keeps a window of shards in flight on the pool (cpmodel.run.executors), merges
what comes back, streams validated solutions, shows progress on stderr and
returns the merged answer. --best shares its bound: every shard is submitted
with the best objective found so far, so later shards only look for better ones.
:func:`run_streaming` is the unsharded --jsonl run (--jobs 1).

Signals. A sharded run holds the stop signals (cpmodel.run.interrupts.deferred)
from start to end and polls them between merges: a signal never lands in the
middle of a merge, so a shard result that arrived is merged, checkpointed and
streamed exactly once, and the count always equals what was streamed,
whether the signal comes before, during or after the last shard. After a
stop the shards in flight get a moment to hand back what they found, and the
pool is closed with a deadline (cpmodel.run.executors).

Nothing here prints an answer: solutions go to a *sink* the caller builds
(an object with ``solutions(rows_list)``; the command line's formats rich,
JSON or JSON lines, see cpmodel.show.output), and the answer is returned.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass

from rich.console import Console
from rich.live import Live
from rich.text import Text

from cpmodel.core.jobs import Job
from cpmodel.core.result import SolveResult
from cpmodel.run import interrupts, watch

DRAIN_SECONDS = 2.0  # how long stopped shards in flight get to hand back what they found
TIME_UP_DRAIN = 0.3  # the same at the time limit: the shards' own limits end them then too


@dataclass(frozen=True)
class ShardOptions:
    """How the command line asked a sharded run to go (plain data, from argparse)."""

    jobs: int  # local worker processes
    scheduler: str | None = None  # a Dask scheduler address instead of local processes
    checkpoint: str | None = None
    shards: int | None = None  # None: the default plan of cpmodel.run.shards
    output: str = "rich"  # "rich", "json" or "jsonl"


@dataclass
class Sharded:
    """A sharded run's answer: the merged result, what the JSON document adds about the
    run (``shards``, ``where``, ``engine``; ``solver``/``answered_by`` for auto), and why it
    stopped early (None: every shard finished)."""

    result: SolveResult
    extra: dict
    stopped_by: str | None


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def shard_engine(puzzle: str, engine: str) -> str:
    """The concrete exact engine a shard runs: a portfolio (``auto``) becomes the backtracker."""
    from cpmodel.run.engines import engines_for

    return engine if engine in engines_for(puzzle) else "backtrack"


def shards_pay(job: Job, options: ShardOptions, engines: int) -> bool:
    """Whether to run ``job`` (on ``engines`` engines) as shards: sharding was asked for
    (--scheduler, --checkpoint, --shards), or there are several workers and the search is
    big enough for a pool to pay (cpmodel.run.shards.worth_sharding)."""
    from cpmodel.run.shards import shardable, worth_sharding

    asked = bool(options.scheduler or options.checkpoint or options.shards)  # shard even a small search
    sharded = shardable(job) and engines == 1 and (
        asked or (options.jobs > 1 and worth_sharding(job.with_engine(shard_engine(job.puzzle, job.engine)))))
    if (job.engine == "auto" and job.request.best or job.request.improve_for is not None) and not asked:
        # auto's race splits --best into stripes that share the bound as they run (cpmodel.run.portfolio);
        # the familiar-words default (rect, no mode option) streams its first rectangle and stops improving in time
        sharded = False
    return sharded


class Progress:
    """stderr: shards done/total, solutions, rate and ETA (a live line on a terminal,
    a plain line every few seconds otherwise)."""

    def __init__(self, stderr: Console, label: str, total: int):
        self.stderr, self.label, self.total = stderr, label, total
        self.started = time.monotonic()
        self.first_done: int | None = None  # shards already done when this run began (resumed)
        self.live = Live(Text(""), console=stderr, transient=True) if stderr.is_terminal else None
        self.last_plain = self.started

    def __enter__(self):
        if self.live:
            self.live.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.live:
            self.live.stop()

    def update(self, done: int, solutions: int, final: bool = False) -> None:
        if self.first_done is None:
            self.first_done = done
        line = self.line(done, solutions)
        watch.tell("progress", line=line, found=solutions, shards_done=done, shards=self.total,
                   seconds=round(time.monotonic() - self.started, 2))
        if self.live:
            self.live.update(Text(line, style="cyan"))
        elif final or time.monotonic() - self.last_plain >= 5.0:
            self.last_plain = time.monotonic()
            self.stderr.print(line, style="cyan", highlight=False, soft_wrap=True)

    def line(self, done: int, solutions: int) -> str:
        elapsed = time.monotonic() - self.started
        ran = done - (self.first_done or 0)
        rate = ran / elapsed if elapsed > 0 else 0.0
        left = self.total - done
        eta = f"{left / rate:,.0f} s" if rate > 0 else "?"
        return (f"{self.label} · shards {done:,}/{self.total:,} · {solutions:,} found · "
                f"{rate:,.1f} shards/s · ETA {eta} · {elapsed:,.1f} s")


def run_sharded(job: Job, options: ShardOptions, label: str, stderr: Console, sink) -> Sharded:
    """Run ``job`` as shards; ``sink.solutions`` gets each batch of validated solutions as it
    is merged (not for --best: its optimum is known only at the end). A stop signal since the
    caller began holding them (cpmodel.run.interrupts.Mark) stops the run."""
    with interrupts.deferred(reraise=False) as signals:
        return _run_sharded(job, options, label, stderr, sink, signals)


def _run_sharded(job: Job, options: ShardOptions, label: str, stderr: Console, sink, signals) -> Sharded:
    from cpmodel.run.checkpoint import Checkpoint
    from cpmodel.run.executors import pool_for
    from cpmodel.run.shards import Merger, job_key, split

    started = time.perf_counter()
    deadline = None if job.time_limit is None else time.monotonic() + job.time_limit  # splitting counts too
    chosen = job.engine
    job = job.with_engine(shard_engine(job.puzzle, job.engine))
    shards = split(job, options.shards, plan_workers(options))
    # only one JSON document needs every solution at the end: the others stream them (memory stays flat)
    merger = Merger(job, len(shards), keep_solutions=options.output == "json" and not job.request.count_only)
    checkpoint = Checkpoint(options.checkpoint, job_key(job, shards), shards) if options.checkpoint else None
    for shard_id, result in (checkpoint.records.items() if checkpoint else ()):  # verified on opening
        merger.add(shard_id, result, resumed=True)
        if not job.request.best:
            sink.solutions(result.solutions)
    pending = [s for s in shards if s.id not in merger.done]
    with pool_for(options.jobs, options.scheduler, checkpoint) as pool:
        with Progress(stderr, f"{job.engine} {label}", len(shards)) as progress:
            stopped_by = _drive(pool, pending, job, merger, checkpoint, sink, progress, signals, deadline)
    result = merger.result(time.perf_counter() - started, stopped_by)
    extra = {"shards": {"total": len(shards), "done": len(merger.done), "resumed": merger.resumed},
             "where": pool.where, "engine": job.engine}
    if chosen == "auto":  # --solver auto sharded with the backtracker: the JSON says so, as a race's does
        extra.update(solver="auto", answered_by=job.engine)
    return Sharded(result, extra, stopped_by)


def _drive(pool, pending, job: Job, merger, checkpoint, sink, progress: Progress,
           signals: interrupts.Mark | None = None, deadline: float | None = None) -> str | None:
    """Keep 2 shards per worker in flight until all are done, a stop signal comes
    (``signals.asked``) or the time runs out (``deadline``, else the job's limit from now).

    Returns why it stopped early: None when every shard finished."""
    from cpmodel.run.shards import with_bound

    signals = signals or interrupts.Mark()
    if deadline is None and job.time_limit is not None:
        deadline = time.monotonic() + job.time_limit
    window = 2 * pool.workers
    queue = list(reversed(pending))  # pop() from the end takes the lowest id first
    in_flight: dict = {}
    stopped_by = None
    while (queue or in_flight) and not signals.asked:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:  # the shards in flight are stopped and drained below
            stopped_by = "time-limit"
            break
        while queue and len(in_flight) < window:
            shard = queue.pop()
            in_flight[pool.submit(with_bound(shard.job, merger.bound, left))] = shard
        finished, _ = wait(in_flight, timeout=0.1, return_when=FIRST_COMPLETED)
        for future in finished:
            _collect(in_flight.pop(future), future.result(), merger, checkpoint, sink)
        progress.update(len(merger.done), merger.found)
    if signals.asked:
        stopped_by = "interrupt"
    if in_flight:
        pool.stop()
        _drain(in_flight, merger, checkpoint, sink, DRAIN_SECONDS if stopped_by == "interrupt" else TIME_UP_DRAIN)
    progress.update(len(merger.done), merger.found, final=True)
    if stopped_by is None and not merger.finished:
        stopped_by = merger.stopped_by or "time-limit"
    return None if merger.finished else stopped_by


def _collect(shard, result: SolveResult, merger, checkpoint, sink) -> None:
    """One shard came back: checkpoint it if it finished, merge it, stream its solutions."""
    if result.complete and checkpoint:
        checkpoint.record(shard.id, result)  # before it counts as done: a crash now loses only this shard
    merger.add(shard.id, result)
    if not merger.job.request.best:
        sink.solutions(result.solutions)
        if result.solutions and watch.watching():
            watch.tell("solutions", batch=[list(rows) for rows in result.solutions[:20]])


def _drain(in_flight: dict, merger, checkpoint, sink, seconds: float = DRAIN_SECONDS) -> None:
    """After a stop: take what the shards in flight found before they stopped.
    A further signal skips the wait; a shard still running then is left to the pool's close."""
    hurry = interrupts.Mark(fresh=True)
    deadline = time.monotonic() + seconds
    while in_flight and time.monotonic() < deadline and not hurry.asked:
        finished, _ = wait(in_flight, timeout=0.05, return_when=FIRST_COMPLETED)
        for future in finished:
            shard = in_flight.pop(future)
            if not future.cancelled() and future.exception() is None:
                _collect(shard, future.result(), merger, checkpoint, sink)


def run_streaming(job: Job, label: str, stderr: Console, sink) -> tuple[SolveResult, bool]:
    """--jsonl without sharding (--jobs 1 or a first-solution run): ``sink.solutions`` gets the
    solutions in batches as the engine finds them. Returns the result and whether a signal stopped it."""
    from cpmodel.core.control import Control
    from cpmodel.run import engines
    from cpmodel.run.supervise import Supervisor

    control = Control(time_limit=job.time_limit)
    supervisor = Supervisor(control, f"{job.engine} {label}", stderr, engine=job.engine,
                            batch_printer=sink.solutions)
    best = job.request.best
    result = supervisor.run(lambda: engines.run(job, control, None if best else supervisor.stream))
    return result, supervisor.interrupted


def plan_workers(options: ShardOptions) -> int | None:
    """The workers the default plan is cut for: the local --jobs, or None (a fixed plan) with a
    checkpoint, which a resume on other hardware must find again, or a cluster."""
    return None if options.checkpoint or options.scheduler else options.jobs
