"""``compare``: the seeded suite on every exact engine, in one table."""

from __future__ import annotations


from rich.console import Console

from cpmodel.commands.common import EXIT_DISAGREE, load_lexicon
from cpmodel.core.errors import InputError
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
    rows = compare.run_suite(lexicon, args.time_limit, lambda puzzle, case: stderr.print(f"{puzzle} {case} …", style="cyan", highlight=False),
                             quick=args.quick)
    if args.plot:
        compare.plot(rows, args.plot)
    if args.json:
        write_json(stdout, {"time_limit": args.time_limit, "rows": compare.to_json(rows)})
    else:
        table = compare_table(rows, args.time_limit)
        stdout.print(table)
        if args.plot:
            stdout.print(f"wrote {args.plot}")
    return EXIT_DISAGREE if any(r.agreement == "DISAGREE" for r in rows) else 0
