"""``compare``: the seeded suite on both solvers, in one table."""

from __future__ import annotations

import json

from rich.console import Console

from cpmodel.commands.common import EXIT_DISAGREE, load_lexicon
from cpmodel.errors import InputError


def run(args, stdout: Console, stderr: Console) -> int:
    from rich import box
    from rich.table import Table

    from cpmodel import compare

    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise InputError("--plot needs matplotlib: pip install -e '.[plot]'") from None
    lexicon = load_lexicon(args.dict, stderr)
    rows = compare.run_suite(lexicon, args.time_limit, lambda puzzle, case: stderr.print(f"{puzzle} {case} …", style="cyan", highlight=False))
    if args.plot:
        compare.plot(rows, args.plot)
    if args.json:
        stdout.print_json(json.dumps({"time_limit": args.time_limit, "rows": compare.to_json(rows)}))
    else:
        table = Table(title=f"backtracking vs CP-SAT (time limit {args.time_limit:g} s per solver and case)", box=box.SIMPLE_HEAVY)
        for header in ("puzzle", "case", "agreement", "bt status", "bt s", "bt nodes", "cp status", "cp s", "cp branches", "cp/bt"):
            table.add_column(header, justify="left" if header in ("puzzle", "case", "agreement") else "right")
        for r in rows:
            table.add_row(r.puzzle, r.case, r.agreement, f"{r.backtrack.status} {r.backtrack.count}", f"{r.backtrack.seconds:.3f}",
                          f"{r.backtrack.stats.get('nodes', 0):,}", f"{r.cpsat.status} {r.cpsat.count}", f"{r.cpsat.seconds:.3f}",
                          f"{r.cpsat.stats.get('branches', 0):,}", f"{r.ratio():.1f}×")
        stdout.print(table)
        if args.plot:
            stdout.print(f"wrote {args.plot}")
    return EXIT_DISAGREE if any(r.agreement == "DISAGREE" for r in rows) else 0
