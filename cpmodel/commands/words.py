"""``words``: every word spellable from a rack."""

from __future__ import annotations

from rich.console import Console

from cpmodel.commands.common import check_lengths, load_lexicon
from cpmodel.core.result import FOUND, NONE
from cpmodel.core.validate import check_all, rack_word_problems
from cpmodel.show.documents import write_json
from cpmodel.show.render import Parts, words_by_length, words_in_order


def run(args, stdout: Console, stderr: Console) -> int:
    import time

    from cpmodel.core.specs import parse_rack
    from heuristics.words import WordIndex, find_words

    rack = parse_rack(args.letters)
    check_lengths(args.min, args.max)
    lexicon = load_lexicon(args.dict, stderr, args.top)
    index = WordIndex(lexicon.words)
    started = time.perf_counter()
    found = find_words(index, rack, args.min, args.max)
    seconds = time.perf_counter() - started
    if args.sort == "common":  # most common first: the lexicon's rank order
        found.sort(key=lambda f: lexicon.rank_of[f.word])
    word_set = set(index.words)
    check_all([p for f in found for p in rack_word_problems(f.word, rack, f.blanks, word_set)], "word list")
    if args.json:
        doc = {"puzzle": "words", "letters": rack, "status": FOUND if found else NONE, "complete": True,
               "count": len(found), "seconds": round(seconds, 5),
               "words": [{"word": f.word, "blanks": list(f.blanks)} for f in found]}
        write_json(stdout, doc)
    elif found:
        stdout.print(words_by_length(found) if args.sort == "length" else words_in_order(found))
        stdout.print(Parts([f"{len(found):,} words from {rack!r}", f"{seconds * 1000:.1f} ms",
                            "building the word index included"], style="green"), highlight=False)
    else:
        stdout.print(f"none: no word of {args.min}+ letters can be spelled from {rack!r}", style="yellow", highlight=False)
    return 0
