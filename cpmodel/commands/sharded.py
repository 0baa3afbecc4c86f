"""Sharded runs of ``rect`` and ``wordscapes``: --jobs, --scheduler, --checkpoint, --jsonl.

:func:`run_sharded` splits the job (cpmodel.shards), replays a checkpoint,
keeps a window of shards in flight on the pool (cpmodel.executors), merges
what comes back, streams validated solutions, shows progress on stderr and
prints the answer. --best shares its bound: every shard is submitted with the
best objective found so far, so later shards only look for better ones.
:func:`run_streaming` is the unsharded --jsonl run (--jobs 1).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass

from rich.console import Console
from rich.live import Live
from rich.text import Text

from cpmodel.commands.common import EXIT_INTERRUPTED, solve_document, write_json, write_json_lines
from cpmodel.errors import InputError
from cpmodel.jobs import Job
from cpmodel.render import print_grid, summary
from cpmodel.result import SolveResult


@dataclass(frozen=True)
class ShardOptions:
    """How the command line asked a sharded run to go (plain data, from argparse)."""

    jobs: int  # local worker processes
    scheduler: str | None = None  # a Dask scheduler address instead of local processes
    checkpoint: str | None = None
    shards: int | None = None  # None: the default plan of cpmodel.shards
    output: str = "rich"  # "rich", "json" or "jsonl"


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def shard_engine(puzzle: str, engine: str) -> str:
    """The concrete exact engine a shard runs: a portfolio (``auto``) becomes the backtracker."""
    from cpmodel.engines import engines_for

    return engine if engine in engines_for(puzzle) else "backtrack"


class Output:
    """Where solutions and the summary go: rich grids, one JSON document, or JSON lines."""

    def __init__(self, mode: str, stdout: Console, what: str, count_only: bool):
        self.mode, self.stdout, self.what, self.count_only = mode, stdout, what, count_only
        self.printed = 0

    def solutions(self, rows_list) -> None:
        """Stream a batch of validated solutions (JSON keeps them for the end instead)."""
        if self.mode == "jsonl":
            write_json_lines(self.stdout, [{"rows": list(rows)} for rows in rows_list])
        elif self.mode == "rich" and not self.count_only:
            for rows in rows_list:
                self.printed += 1
                print_grid(self.stdout, rows, f"#{self.printed}")

    def finish(self, header: dict, job: Job, result: SolveResult, extra: dict) -> None:
        doc = solve_document(header, job.request, [result], None)
        doc.update(extra)
        if self.mode == "jsonl":
            doc.pop("solutions", None)
            write_json(self.stdout, doc)
        elif self.mode == "json":
            write_json(self.stdout, doc)
        else:
            if job.request.best and result.solutions:
                print_grid(self.stdout, result.solutions[0], "best")
            self.stdout.print(summary(result, self.what), highlight=False)
            self.stdout.print(f"{extra['shards']['total']:,} shards on {extra['where']}"
                              f"{', %d from the checkpoint' % extra['shards']['resumed'] if extra['shards']['resumed'] else ''}",
                              style="dim", highlight=False)


class Progress:
    """stderr: shards done/total, solutions, rate and ETA (a live line on a terminal,
    a plain line every few seconds otherwise)."""

    def __init__(self, stderr: Console, label: str, total: int):
        self.stderr, self.label, self.total = stderr, label, total
        self.started = time.monotonic()
        self.first_done = None  # shards already done when this run began (resumed)
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


def run_sharded(job: Job, options: ShardOptions, header: dict, label: str, what: str,
                stdout: Console, stderr: Console) -> int:
    """Run ``job`` as shards and print its merged answer; returns the exit code."""
    from cpmodel.checkpoint import Checkpoint, recorded_result
    from cpmodel.executors import open_pool
    from cpmodel.shards import Merger, job_key, split

    started = time.perf_counter()
    chosen = job.engine
    job = job.with_engine(shard_engine(job.puzzle, job.engine))
    shards = split(job, options.shards, plan_workers(options))
    output = Output(options.output, stdout, what, job.request.count_only)
    merger = Merger(job, len(shards), keep_solutions=options.output != "jsonl" and not job.request.count_only)
    checkpoint = Checkpoint(options.checkpoint, job_key(job, shards), len(shards)) if options.checkpoint else None
    for shard_id, record in (checkpoint.records.items() if checkpoint else ()):
        result = recorded_result(record, job.engine)
        merger.add(shard_id, result, resumed=True)
        if not job.request.best:
            output.solutions(result.solutions)
    pending = [s for s in shards if s.id not in merger.done]
    pool = open_pool(options.jobs, options.scheduler)
    try:
        with Progress(stderr, f"{job.engine} {label}", len(shards)) as progress:
            stopped_by = _drive(pool, pending, job, merger, checkpoint, output, progress)
    finally:
        pool.close()
        if checkpoint:
            checkpoint.close()
    result = merger.result(time.perf_counter() - started, stopped_by)
    extra = {"shards": {"total": len(shards), "done": len(merger.done), "resumed": merger.resumed},
             "where": pool.where, "engine": job.engine}
    if chosen == "auto":  # --solver auto sharded with the backtracker: the JSON says so, as a race's does
        extra.update(solver="auto", answered_by=job.engine)
    if job.request.best and options.output == "jsonl" and result.solutions:
        output.solutions(result.solutions)  # the optimum is known only at the end
    output.finish(header, job, result, extra)
    return EXIT_INTERRUPTED if stopped_by == "interrupt" else 0  # the CLI makes it 143 after SIGTERM


def _drive(pool, pending, job: Job, merger, checkpoint, output: Output, progress: Progress) -> str | None:
    """Keep 2 shards per worker in flight until all are done.

    Returns why it stopped early: None when every shard finished. Ctrl-C and
    SIGTERM (cpmodel.interrupts) arrive here as KeyboardInterrupt."""
    from cpmodel.shards import with_bound

    deadline = None if job.time_limit is None else time.monotonic() + job.time_limit
    window = 2 * pool.workers
    queue = list(reversed(pending))  # pop() from the end takes the lowest id first
    in_flight: dict = {}
    stopped_by = None
    try:
        while queue or in_flight:
            while queue and len(in_flight) < window and stopped_by is None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    stopped_by = "time-limit"
                    break
                shard = queue.pop()
                in_flight[pool.submit(with_bound(shard.job, merger.bound, left))] = shard
            if not in_flight:
                break
            finished, _ = wait(in_flight, timeout=0.25, return_when=FIRST_COMPLETED)
            for future in finished:
                _collect(in_flight.pop(future), future.result(), merger, checkpoint, output)
            progress.update(len(merger.done), merger.found)
    except KeyboardInterrupt:
        stopped_by = "interrupt"
        pool.stop()
        _drain(in_flight, merger, checkpoint, output)
    progress.update(len(merger.done), merger.found, final=True)
    if stopped_by is None and not merger.finished:
        stopped_by = "time-limit"
    return None if merger.finished else stopped_by


def _collect(shard, result: SolveResult, merger, checkpoint, output: Output) -> None:
    """One shard came back: checkpoint it if it finished, merge it, stream its solutions."""
    if result.complete and checkpoint:
        checkpoint.record(shard.id, result)  # before it counts as done: a crash now loses only this shard
    merger.add(shard.id, result)
    if not merger.job.request.best:
        output.solutions(result.solutions)


def _drain(in_flight: dict, merger, checkpoint, output: Output, timeout: float = 5.0) -> None:
    """After a stop: take what the shards in flight found before they stopped
    (a second Ctrl-C skips the wait)."""
    try:
        finished, _ = wait(in_flight, timeout=timeout)
    except KeyboardInterrupt:
        finished = [future for future in in_flight if future.done()]
    for future in finished:
        if not future.cancelled() and future.exception() is None:
            _collect(in_flight[future], future.result(), merger, checkpoint, output)


def run_streaming(job: Job, header: dict, label: str, what: str, stdout: Console, stderr: Console) -> int:
    """--jsonl without sharding (--jobs 1 or a first-solution run): lines as the engine finds them."""
    from cpmodel import engines
    from cpmodel.control import Control
    from cpmodel.supervise import Supervisor

    output = Output("jsonl", stdout, what, job.request.count_only)
    control = Control(time_limit=job.time_limit)
    supervisor = Supervisor(control, f"{job.engine} {label}", stderr, engine=job.engine,
                            batch_printer=output.solutions)
    best = job.request.best
    result = supervisor.run(lambda: engines.run(job, control, None if best else supervisor.stream))
    if best and result.solutions:
        output.solutions(result.solutions)
    output.finish(header, job, result, {})
    return EXIT_INTERRUPTED if supervisor.interrupted else 0


def plan_workers(options: ShardOptions) -> int | None:
    """The workers the default plan is cut for: the local --jobs, or None (a fixed plan) with a
    checkpoint, which a resume on other hardware must find again, or a cluster."""
    return None if options.checkpoint or options.scheduler else options.jobs


def check_options(job: Job, engines_chosen: list[str], options: ShardOptions, explicit_jobs: bool) -> None:
    """One-line errors for combinations that cannot work."""
    if options.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {options.jobs}")
    if options.shards is not None and options.shards < 1:
        raise InputError(f"--shards must be at least 1, got {options.shards}")
    if len(engines_chosen) > 1 and (explicit_jobs or options.scheduler or options.checkpoint or options.output == "jsonl"):
        raise InputError("--solver both runs unsharded in one process: drop --jobs/--scheduler/--checkpoint/--jsonl")


def dispatch(job: Job, args, engines_chosen: list[str], header: dict, label: str, what: str,
             stdout: Console, stderr: Console) -> int | None:
    """Run the job here when the options ask for sharding, streaming or an estimate;
    None hands it back to the plain run (commands.common.run_solvers)."""
    from cpmodel.shards import shardable, worth_sharding

    output = output_mode(args)
    options = ShardOptions(jobs=args.jobs or default_jobs(), scheduler=args.scheduler, checkpoint=args.checkpoint,
                           shards=args.shards, output=output)
    check_options(job, engines_chosen, options, explicit_jobs=args.jobs is not None)
    if not shardable(job) and (args.scheduler or args.checkpoint or args.estimate or args.shards):
        raise InputError("--scheduler, --checkpoint, --shards and --estimate apply to --all, --count and --best")
    if args.estimate:
        return run_estimate(job.with_engine(shard_engine(job.puzzle, job.engine)), options, header, stdout, stderr)
    asked = options.scheduler or options.checkpoint or options.shards  # shard even a small search
    sharded = shardable(job) and len(engines_chosen) == 1 and (
        asked or (options.jobs > 1 and worth_sharding(job.with_engine(shard_engine(job.puzzle, job.engine)))))
    if (job.engine == "auto" and job.request.best or job.request.improve_for is not None) and not asked:
        # auto's race splits --best into stripes that share the bound as they run (cpmodel.portfolio);
        # the familiar-words default (rect, no mode option) streams its first rectangle and stops improving in time
        sharded = False
    if sharded:
        return run_sharded(job, options, header, label, what, stdout, stderr)
    if args.jsonl and job.engine != "auto":
        return run_streaming(job, header, label, what, stdout, stderr)
    return None


def output_mode(args) -> str:
    """rich, json or jsonl, from --json and --jsonl (not both)."""
    if args.json and getattr(args, "jsonl", False):
        raise InputError("choose one of --json and --jsonl")
    return "jsonl" if getattr(args, "jsonl", False) else "json" if args.json else "rich"


def run_estimate(job: Job, options: ShardOptions, header: dict, stdout: Console, stderr: Console) -> int:
    """--estimate: size the search (cpmodel.estimate) and print the plan; nothing is enumerated."""
    from rich.table import Table

    from cpmodel.estimate import plan
    from cpmodel.shards import first_line_words, split

    words = first_line_words(job)
    if not words:
        raise InputError("nothing can stand on the first line: the search is empty, nothing to estimate")
    with stderr.status("estimating: Knuth probes and sampled shards (about 10 s)…"):
        doc = plan(job, words)
    doc["shards"] = len(split(job, options.shards, plan_workers(options)))
    doc["engine"] = job.engine
    if options.output != "rich":
        write_json(stdout, {**header, "estimate": doc})  # NaN (no spread to estimate) becomes null
        return 0
    table = Table(title=f"estimate · {job.engine} · {len(words):,} first-line words · {doc['shards']:,} shards")
    for column in ("method", "nodes", "solutions", "CPU seconds"):
        table.add_column(column, justify="left" if column == "method" else "right")
    sampled = doc["sampled_shards"]
    if "knuth" in doc:
        k = doc["knuth"]
        table.add_row(f"Knuth, {k['probes']:,} probes", _pm(k["nodes"], k["nodes_stderr"]),
                      _pm(k["solutions"], k["solutions_stderr"]), f"{k['seconds']:,.0f}" if "seconds" in k else "")
    table.add_row(f"{sampled['sampled']} sampled shards", _pm(sampled["nodes"], sampled["nodes_stderr"]),
                  _pm(sampled["solutions"], sampled["solutions_stderr"]), _pm(sampled["seconds"], sampled["seconds_stderr"]))
    table.caption = (f"≈ {doc['cpu_hours']:,.2f} CPU-hours; {doc['workers_for_one_hour']:,} workers finish in an hour "
                     f"(± one standard error shown; Knuth's counts the backtracker's nodes)")
    stdout.print(table)
    return 0


def _pm(value: float, error: float) -> str:
    import math

    return f"{value:,.0f}" if math.isnan(error) else f"{value:,.0f} ± {error:,.0f}"
