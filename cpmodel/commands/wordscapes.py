"""``wordscapes``: fill a crossword board from the wheel's letters."""

from __future__ import annotations

import re

from rich.console import Console

from cpmodel.commands.common import engine_names, load_lexicon, read_user_file, run_solvers, solve_request
from cpmodel.errors import InputError
from cpmodel.jobs import Job


def run(args, stdout: Console, stderr: Console) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    if args.top is not None and args.top < 1:
        raise InputError(f"--top must be at least 1, got {args.top}")
    spec = wordscapes_spec_from_args(args, stderr)
    job = Job("wordscapes", spec, args.solver, solve_request(args), args.time_limit, {"log": args.log})
    header = {"puzzle": "wordscapes", "letters": spec.wheel, "slots": len(spec.slots),
              "candidates": [len(c) for c in spec.candidates]}
    return run_solvers(job, engine_names(args.solver, "wordscapes"), f"wordscapes {len(spec.slots)} slots", header,
                       "fill", args.json, stdout, stderr)


def wordscapes_spec_from_args(args, stderr: Console):
    from cpmodel.boards import parse_crossword
    from cpmodel.specs import wordscapes_spec

    if not re.fullmatch(r"[a-z]+", args.letters.strip().lower()):
        raise InputError(f"LETTERS must be letters a-z only, got {args.letters!r}")
    text = read_user_file(args.board_file, "board file")
    board = parse_crossword(text, source=f"board file {args.board_file}")
    lexicon = load_lexicon(args.dict, stderr).top(args.top)
    return wordscapes_spec(board, args.letters, lexicon, args.min)
