"""``rect``: m×n word rectangles with either solver or both."""

from __future__ import annotations

from rich.console import Console

from cpmodel.commands.common import cpsat_params, engine_names, load_lexicon, run_solvers, solve_request, warn_unused
from cpmodel.commands.sharded import dispatch
from cpmodel.jobs import Job
from cpmodel.specs import RectangleSpec, parse_pattern, parse_size, rectangle_spec


def rect_spec_from_args(args, stderr: Console) -> RectangleSpec:
    m, n = parse_size(args.size)
    default = load_lexicon(args.dict, stderr)
    row_lexicon = load_lexicon(args.row_dict, stderr) if args.row_dict else default
    col_lexicon = load_lexicon(args.col_dict, stderr) if args.col_dict else default
    pattern = parse_pattern(args.pattern, m, n) if args.pattern else None
    return rectangle_spec(m, n, row_lexicon, col_lexicon, args.top, pattern, args.distinct, args.symmetric)


def rect_job_from_args(args, stderr: Console) -> Job:
    """The whole question as plain data: spec, mode, limit and engine options."""
    options = {"encoding": args.encoding or "table", "orientation": args.orientation or "auto", "log": args.log,
               "params": cpsat_params(args.param)}
    return Job("rect", rect_spec_from_args(args, stderr), args.solver, solve_request(args), args.time_limit, options)


def run(args, stdout: Console, stderr: Console) -> int:
    warn_unused(stderr, engine_names(args.solver, "rect"),
                {option: reader for option, reader, value in (
                    ("--encoding", "cpsat", args.encoding), ("--orientation", "backtrack", args.orientation),
                    ("--param", "cpsat", args.param), ("--log", "cpsat", args.log)) if value})
    job = rect_job_from_args(args, stderr)
    spec = job.spec
    header = {"puzzle": "rect", "size": spec.size, "rows": spec.m, "cols": spec.n,
              "words": {"rows": len(spec.row_words), "cols": len(spec.col_words)}}
    engines = engine_names(args.solver, "rect")
    code = dispatch(job, args, engines, header, spec.size, "rectangle", stdout, stderr)
    if code is not None:  # sharded, streamed as JSON lines, or estimated
        return code
    return run_solvers(job, engines, spec.size, header, "rectangle", args.json, stdout, stderr)
