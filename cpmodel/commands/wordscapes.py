"""``wordscapes``: fill a crossword board from the wheel's letters."""

from __future__ import annotations

import re

from rich.console import Console

from cpmodel.commands.auto import AUTO, plan_for, run_portfolio
from cpmodel.commands.common import (
    cpsat_params,
    engine_names,
    load_lexicon,
    read_user_file,
    run_solvers,
    solve_request,
    warn_unused,
)
from cpmodel.commands.sharded import dispatch, output_mode
from cpmodel.core import clock
from cpmodel.core.checks import ascii_lower
from cpmodel.core.errors import InputError
from cpmodel.core.jobs import Job


def run(args, stdout: Console, stderr: Console) -> int:
    engines = engine_names(args.solver, "wordscapes", best=args.best)
    spec = wordscapes_spec_from_args(args, stderr)
    job = Job("wordscapes", spec, engines[0] if len(engines) == 1 else args.solver, solve_request(args),
              clock.left(args.time_limit),
              {"log": args.log, "params": cpsat_params(args.param)})
    plan = plan_for(job, args.jobs) if engines == [AUTO] else None
    warn_unused(stderr, [entrant.engine for entrant in plan] if plan else engines,
                {option: "cpsat" for option, value in (("--param", args.param), ("--log", args.log)) if value})
    header = {"puzzle": "wordscapes", "letters": spec.wheel, "slots": len(spec.slots),
              "candidates": [len(c) for c in spec.candidates]}
    label = f"wordscapes {len(spec.slots)} slots"
    code = dispatch(job, args, engines, header, label, "fill", stdout, stderr)
    if code is not None:  # sharded, streamed as JSON lines, or estimated
        return code
    describe = lambda rows: fill_words(spec, rows)  # noqa: E731
    if plan:
        return run_portfolio(job, plan, label, header, "fill", output_mode(args), stdout, stderr, describe)
    return run_solvers(job, engines, label, header, "fill", args.json, stdout, stderr, describe=describe)


def fill_words(spec, rows) -> str:
    """The fill's words, across then down, each with its rank (0 = most common of its length)."""
    across, down = [], []
    # ranks may be () (a hand-built spec): every word then shows "(?)"
    rank = {w: r for words, ranks in zip(spec.candidates, spec.ranks, strict=False)
            for w, r in zip(words, ranks, strict=True)}
    for slot, word in zip(spec.slots, spec.slot_words(rows), strict=True):
        (across if slot[0][0] == slot[-1][0] else down).append(f"{word} ({rank[word]:,})" if word in rank else f"{word} (?)")
    return f"across: {', '.join(across) or '-'} · down: {', '.join(down) or '-'}"


def wordscapes_spec_from_args(args, stderr: Console):
    from cpmodel.core.boards import parse_crossword
    from cpmodel.core.specs import wordscapes_spec

    if not re.fullmatch(r"[a-z]+", ascii_lower(args.letters.strip())):
        raise InputError(f"LETTERS must be letters a-z only, got {args.letters!r}")
    text = read_user_file(args.board_file, "board file")
    board = parse_crossword(text, source=f"board file {args.board_file}")
    lexicon = load_lexicon(args.dict, stderr, args.top)
    return wordscapes_spec(board, args.letters, lexicon, args.min)
