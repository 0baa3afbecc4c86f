"""``explain``: build a model without solving it and show its anatomy."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from cpmodel.commands.common import hand_finder, load_lexicon
from cpmodel.commands.rect import rect_spec_from_args
from cpmodel.commands.wordscapes import wordscapes_spec_from_args
from cpmodel.core.errors import InputError
from cpmodel.core.specs import parse_size
from cpmodel.show.documents import write_json


def _teach():
    from cpmodel.teach import explain

    return explain


def run(args, stdout: Console, stderr: Console) -> int:
    from rich.table import Table

    lexicon_name = args.dict or "kjxqz ranked by wordfreq"
    if getattr(args, "top", None):
        lexicon_name += f", top {args.top:,} per length"
    if args.explained == "rect":
        args.row_dict = args.col_dict = None
        args.limit, args.time_limit = None, None
        spec = rect_spec_from_args(args, stderr)
        explain = _teach()  # after the input is read: a bad file is refused before ortools loads
        result = explain.explain_rect(spec, args.encoding, lexicon_name)
    elif args.explained == "banana":
        from cpmodel.core.specs import banana_spec, parse_hand

        hand = parse_hand(args.hand)
        lexicon = load_lexicon(args.dict, stderr)
        from cpmodel.models.bananagrams import candidate_boxes  # ortools: after the input is read

        spec = banana_spec(hand, lexicon, hand_finder(lexicon))
        rows, cols = parse_size(args.box) if args.box else candidate_boxes(len(hand))[0]
        result = _teach().explain_banana(spec, rows, cols, args.encoding, lexicon_name)
    else:
        args.count, args.solver = False, "cpsat"
        spec = wordscapes_spec_from_args(args, stderr)
        result = _teach().explain_wordscapes(spec, lexicon_name)
    counts = result.counts()
    if args.export:
        export_model(result.model, args.export)
    if args.json:
        write_json(stdout, {"model": result.title, "lexicon": result.lexicon, **counts,
                                      "slots": [{"slot": s, "words": n} for s, n in result.slots],
                                      "families": [{"name": f.name, "math": f.math, "code": f.location()} for f in result.families]})
        return 0
    stdout.print(Text(f"{result.title} · lexicon: {result.lexicon}", style="bold"))
    stdout.print(f"{counts['variables']:,} variables ({counts['booleans']:,} Boolean, {counts['integers']:,} integer)", highlight=False)
    kinds = Table("constraint kind", "count", title="constraints (from the model proto)")
    for kind, n in sorted(counts["constraints"].items(), key=lambda kv: -kv[1]):
        kinds.add_row(kind, f"{n:,}")
    stdout.print(kinds)
    slots = Table("slot", "allowed words", title="words per slot")
    for slot, n in result.slots:
        slots.add_row(slot, f"{n:,}")
    stdout.print(slots)
    stdout.print(Text("constraint families", style="bold"))
    for f in result.families:  # a block each, so that the file:line pointer is never cut at 80 columns
        stdout.print(Text(f.name, style="bold cyan"))
        stdout.print(Text(f"  {f.math}"))
        stdout.print(Text(f"  added by {f.location()}", style="dim"), overflow="fold")
    if args.export:
        stdout.print(f"wrote the model (CP-SAT proto text) to {args.export}", highlight=False)
    return 0


def export_model(model, path: str) -> None:
    """The model as CP-SAT proto text, the format CP-SAT's own tools read."""
    from pathlib import Path

    try:
        Path(path).write_text(str(model.proto) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
