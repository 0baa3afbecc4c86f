"""--jobs, --scheduler, --checkpoint, --shards, --jsonl and --estimate for ``rect`` and ``wordscapes``.

:func:`dispatch` reads those options into a :class:`~cpmodel.run.sharded.ShardOptions`,
checks them, and hands the job to the sharded driver (cpmodel.run.sharded) with
a sink that prints (cpmodel.show.output); the driver keeps the pool, this
module only turns options into a run and the answer into an exit code.
"""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console

from cpmodel.commands.common import EXIT_INTERRUPTED
from cpmodel.core import clock
from cpmodel.core.errors import InputError
from cpmodel.core.files import check_writable_path
from cpmodel.core.jobs import Job
from cpmodel.run import interrupts
from cpmodel.run.sharded import (
    ShardOptions,
    default_jobs,
    plan_workers,
    run_sharded,
    run_streaming,
    shard_engine,
    shards_pay,
)
from cpmodel.show.documents import write_json
from cpmodel.show.output import Output


def check_options(job: Job, engines_chosen: list[str], options: ShardOptions, explicit_jobs: bool) -> None:
    """One-line errors for combinations that cannot work."""
    if options.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {options.jobs}")
    if options.checkpoint is not None:  # before any work: opening it checks again
        check_writable_path(options.checkpoint, "checkpoint")
    if options.shards is not None and options.shards < 1:
        raise InputError(f"--shards must be at least 1, got {options.shards}")
    if len(engines_chosen) > 1 and (explicit_jobs or options.scheduler or options.checkpoint or options.output == "jsonl"):
        raise InputError("--solver both runs unsharded in one process: drop --jobs/--scheduler/--checkpoint/--jsonl")


def dispatch(job: Job, args, engines_chosen: list[str], header: dict, label: str, what: str,
             stdout: Console, stderr: Console) -> int | None:
    """Run the job here when the options ask for sharding, streaming or an estimate;
    None hands it back to the plain run (commands.common.run_solvers)."""
    from cpmodel.run.shards import shardable

    output = output_mode(args)
    options = ShardOptions(jobs=args.jobs or default_jobs(), scheduler=args.scheduler, checkpoint=args.checkpoint,
                           shards=args.shards, output=output)
    check_options(job, engines_chosen, options, explicit_jobs=args.jobs is not None)
    if not shardable(job) and (args.scheduler or args.checkpoint or args.estimate or args.shards):
        raise InputError("--scheduler, --checkpoint, --shards and --estimate apply to --all, --count and --best")
    if args.estimate:
        return run_estimate(job.with_engine(shard_engine(job.puzzle, job.engine)), options, header, stdout, stderr)
    if shards_pay(job, options, len(engines_chosen)):  # its estimate came out of the time limit too
        return sharded(replace(job, time_limit=clock.left(args.time_limit)), options, header, label, what, stdout,
                       stderr)
    if args.jsonl and job.engine != "auto":
        return streamed(job, header, label, what, stdout, stderr)
    return None


def sharded(job: Job, options: ShardOptions, header: dict, label: str, what: str,
            stdout: Console, stderr: Console) -> int:
    """Run ``job`` as shards and print its merged answer; returns the exit code.
    Stop signals are held until the answer is out (they stop the run, never cut its document)."""
    with interrupts.deferred(reraise=False):
        output = Output(options.output, stdout, what, job.request.count_only, stderr)
        answer = run_sharded(job, options, label, stderr, output)
        if job.request.best and options.output == "jsonl" and answer.result.solutions:
            output.solutions(answer.result.solutions)  # the optimum is known only at the end
        output.finish(header, job, answer.result, answer.extra)
    return EXIT_INTERRUPTED if answer.stopped_by == "interrupt" else 0  # the CLI makes it 143 after SIGTERM


def streamed(job: Job, header: dict, label: str, what: str, stdout: Console, stderr: Console) -> int:
    """--jsonl without sharding: lines as the engine finds them, then the summary line."""
    with interrupts.deferred(reraise=False):
        output = Output("jsonl", stdout, what, job.request.count_only)
        result, interrupted = run_streaming(job, label, stderr, output)
        if job.request.best and result.solutions:
            output.solutions(result.solutions)
        output.finish(header, job, result, {})
    return EXIT_INTERRUPTED if interrupted else 0


def output_mode(args) -> str:
    """rich, json or jsonl, from --json and --jsonl (not both)."""
    if args.json and getattr(args, "jsonl", False):
        raise InputError("choose one of --json and --jsonl")
    return "jsonl" if getattr(args, "jsonl", False) else "json" if args.json else "rich"


def run_estimate(job: Job, options: ShardOptions, header: dict, stdout: Console, stderr: Console) -> int:
    """--estimate: size the search (cpmodel.run.estimate) and print the plan; nothing is enumerated."""
    from cpmodel.run.cuts import first_line_words
    from cpmodel.run.estimate import plan
    from cpmodel.run.shards import split
    from cpmodel.show.render import estimate_table

    words = first_line_words(job)
    if not words:
        raise InputError("nothing can stand on the first line: the search is empty, nothing to estimate")
    with stderr.status("estimating: Knuth's random paths, then whole first-line words (about 10 s)…"):
        doc = plan(job, words)
    doc["shards"] = len(split(job, options.shards, plan_workers(options)))
    doc["engine"] = job.engine
    if options.output != "rich":
        write_json(stdout, {**header, "estimate": doc})  # NaN (no spread to estimate) becomes null
        return 0
    stdout.print(estimate_table(doc, job.engine, len(words)))
    return 0
