"""``compare``: the seeded suite on every exact engine, in one table."""

from __future__ import annotations

from rich.console import Console

from cpmodel.commands.common import EXIT_DISAGREE, EXIT_INTERRUPTED, load_lexicon
from cpmodel.core import clock
from cpmodel.core.errors import InputError
from cpmodel.run import interrupts
from cpmodel.show.documents import write_json


def run(args, stdout: Console, stderr: Console) -> int:
    from cpmodel.show.render import compare_table
    from cpmodel.teach import compare

    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InputError("--plot needs matplotlib: pip install -e '.[plot]'") from None
    lexicon = load_lexicon(args.dict, stderr)
    with interrupts.deferred(reraise=False):  # a signal ends the suite and keeps the finished rows
        rows = compare.run_suite(lexicon, clock.left(args.time_limit),
                                 lambda puzzle, case: stderr.print(f"{puzzle} {case} …", style="cyan", highlight=False),
                                 quick=args.quick, stderr=stderr)
        stopped = interrupts.stop_asked()
        spent = clock.left(args.time_limit) == 0  # the suite's time ran out: the later runs ended at once
        if args.json:
            write_json(stdout, {"time_limit": args.time_limit, "rows": compare.to_json(rows),
                                "complete": not (stopped or spent),
                                "stopped_by": "interrupt" if stopped else "time-limit" if spent else None})
    if args.plot and rows:
        compare.plot(rows, args.plot)
    if not args.json:
        table = compare_table(rows, args.time_limit, compare.RUN_CAP)
        stdout.print(table)
        if stopped:
            stdout.print(f"stopped by a signal: the {len(rows)} finished case(s) are shown", style="yellow",
                         highlight=False)
        if args.plot and rows:
            stdout.print(f"wrote {args.plot}")
    if stopped:
        return EXIT_INTERRUPTED
    return EXIT_DISAGREE if any(r.agreement == "DISAGREE" for r in rows) else 0
