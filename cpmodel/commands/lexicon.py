"""``lexicon``: the dictionary's words, most common first, one per line.

It makes the word files the other commands read (``--dict``, ``--row-dict``,
``--col-dict``), e.g. ``python -m cpmodel lexicon --length 6 --top 5000 > six.txt``.
The words go straight to stdout, without rich, so a pipe gets plain lines.
"""

from __future__ import annotations

from rich.console import Console

from cpmodel.commands.common import load_lexicon
from cpmodel.core.errors import InputError


def run(args, stdout: Console, stderr: Console) -> int:
    if args.length is not None and args.length < 1:
        raise InputError(f"--length must be at least 1, got {args.length}")
    lexicon = load_lexicon(args.dict, stderr, args.top)
    words = lexicon.words if args.length is None else lexicon.of_length(args.length)
    if not words:
        stderr.print(f"warning: no word of {args.length} letters in {lexicon.source}", style="yellow", highlight=False)
    write_lines(stdout.file, words)
    return 0


def write_lines(out, words, batch: int = 4096) -> None:
    """One word a line, in flushed batches: a reader that leaves early (``| head -1``) is
    noticed as a BrokenPipeError (exit 141, as every command), which one big write hid
    (the kernel took part of it and the rest vanished with the pipe)."""
    for start in range(0, len(words), batch):
        out.write("".join(f"{w}\n" for w in words[start:start + batch]))
        out.flush()
