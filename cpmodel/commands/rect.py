"""``rect``: m×n word rectangles with one engine, a race of engines (auto) or a cross-check."""

from __future__ import annotations

from rich.console import Console

from cpmodel.commands.auto import AUTO, familiar_request, plan_for, run_portfolio
from cpmodel.commands.common import cpsat_params, engine_names, load_lexicon, run_solvers, solve_request, warn_unused
from cpmodel.commands.sharded import dispatch, output_mode
from cpmodel.core import clock
from cpmodel.core.jobs import Job
from cpmodel.core.specs import RectangleSpec, parse_pattern, parse_size, rectangle_spec


def rect_spec_from_args(args, stderr: Console) -> RectangleSpec:
    m, n = parse_size(args.size)
    default = load_lexicon(args.dict, stderr)
    row_lexicon = load_lexicon(args.row_dict, stderr) if args.row_dict else default
    col_lexicon = load_lexicon(args.col_dict, stderr) if args.col_dict else default
    pattern = None if args.pattern is None else parse_pattern(args.pattern, m, n)  # "" is an error, not "no pattern"
    return rectangle_spec(m, n, row_lexicon, col_lexicon, args.top, pattern, args.distinct, args.symmetric)


def familiar_mode(args) -> bool:
    """No mode option: show the most familiar rectangle (Knuth's criterion)."""
    return not (args.all or args.count or args.best or args.limit is not None)


def rect_job_from_args(args, stderr: Console, engine: str | None = None) -> Job:
    """The whole question as plain data: spec, mode, limit and engine options."""
    options = {"encoding": args.encoding or "table", "orientation": args.orientation or "auto", "log": args.log,
               "params": cpsat_params(args.param)}
    request = familiar_request(args.time_limit) if familiar_mode(args) else solve_request(args)
    spec = rect_spec_from_args(args, stderr)
    return Job("rect", spec, engine or args.solver, request, clock.left(args.time_limit), options)


def run(args, stdout: Console, stderr: Console) -> int:
    best = args.best or familiar_mode(args)
    engines = engine_names(args.solver, "rect", best)
    job = rect_job_from_args(args, stderr, engines[0] if len(engines) == 1 else args.solver)
    plan = plan_for(job, args.jobs) if engines == [AUTO] else None
    warn_unused(stderr, [entrant.engine for entrant in plan] if plan else engines,
                {option: reader for option, reader, value in (
                    ("--encoding", "cpsat", args.encoding), ("--orientation", "backtrack", args.orientation),
                    ("--param", "cpsat", args.param), ("--log", "cpsat", args.log)) if value})
    spec = job.spec
    header = {"puzzle": "rect", "size": spec.size, "rows": spec.m, "cols": spec.n,
              "words": {"rows": len(spec.row_words), "cols": len(spec.col_words)}}
    code = dispatch(job, args, engines, header, spec.size, "rectangle", stdout, stderr)
    if code is not None:  # sharded, streamed as JSON lines, or estimated
        return code
    if plan:
        return run_portfolio(job, plan, spec.size, header, "rectangle", output_mode(args), stdout, stderr)
    return run_solvers(job, engines, spec.size, header, "rectangle", args.json, stdout, stderr)
