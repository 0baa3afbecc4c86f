"""``grid --best RxC --prove``: the best board proven by branch and bound (cpmodel.run.grid_prove).

Prints the board with its words (scored again by the Python reference, which
must agree with the kernel), and either "proven optimal" or the best board
found with the proven upper bound and why the run stopped.
"""

from __future__ import annotations

from rich.console import Console

from cpmodel.commands.common import EXIT_INTERRUPTED, load_lexicon
from cpmodel.core import clock
from cpmodel.core.errors import InputError
from cpmodel.core.result import FOUND
from cpmodel.core.validate import check_all, grid_word_problems
from cpmodel.run.sharded import ShardOptions, default_jobs
from cpmodel.show.documents import write_json
from cpmodel.show.render import Parts, board_panel, grid_words_table


def check(args, rows: int, cols: int) -> None:
    """One-line errors for what --prove cannot do."""
    from heuristics.grid_breaker import MAX_CELLS

    if rows * cols > MAX_CELLS:
        raise InputError(f"--prove handles boards of up to {MAX_CELLS} cells (3x4); {rows}x{cols} has {rows * cols} "
                         "(danvk's 4x4 proof took about 23,000 CPU-hours); drop --prove for a heuristic search")
    if args.min != 3 or args.max is not None:
        raise InputError("--prove scores every word of 3 or more letters: drop --min/--max")
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    if args.shards is not None and args.shards < 1:
        raise InputError(f"--shards must be at least 1, got {args.shards}")
    if args.quick and args.checkpoint is not None:
        raise InputError("--quick proves a sample in seconds: it takes no --checkpoint")
    if args.checkpoint is not None:  # before the seed's climb: a device or FIFO is refused at once
        from cpmodel.core.files import check_writable_path

        check_writable_path(args.checkpoint, "checkpoint")


def run(args, rows: int, cols: int, table, stdout: Console, stderr: Console) -> int:
    from cpmodel.core.boards import parse_grid
    from cpmodel.run.grid_prove import prove
    from heuristics import grid

    check(args, rows, cols)
    words = load_lexicon(args.dict, stderr, args.top).words
    options = ShardOptions(jobs=args.jobs or default_jobs(), scheduler=args.scheduler, checkpoint=args.checkpoint,
                           shards=args.shards, output="json" if args.json else "rich")
    from cpmodel.run.grid_prove import QUICK_CLASSES, QUICK_SEED_SECONDS, SEED_SECONDS

    result = prove(words, table, rows, cols, options, clock.left(args.time_limit), args.seed, stderr,
                   seed_seconds=QUICK_SEED_SECONDS if args.quick else SEED_SECONDS, sample=QUICK_CLASSES if args.quick else None)
    interrupted = result.stopped_by == "interrupt"
    if not result.board:
        return _nothing_found(result, args, stdout, stderr)
    board = parse_grid(result.board)
    found = grid.find_words(board, grid.SortedWords.of(words), table)
    total = sum(w.score for w in found)
    if total != result.best:  # the kernel against the readable reference: a bug, never a claim
        raise RuntimeError(f"kernel scored {result.board} {result.best}, the reference {total}")
    word_set = set(words)
    check_all([p for w in found for p in grid_word_problems(board, w.word, w.path, word_set)], "word list")
    if args.json:
        write_json(stdout, document(result, found, args))
    else:
        stdout.print(board_panel(board, title=board.notation()))
        stdout.print(grid_words_table(board, found, args.show))
        stdout.print(Parts(summary(result), style="green" if result.optimal else "yellow"), highlight=False)
    return EXIT_INTERRUPTED if interrupted else 0


def _nothing_found(result, args, stdout: Console, stderr: Console) -> int:
    """Stopped before the seed's climb scored a board: unknown, with the bound proven so far."""
    from cpmodel.core.result import UNKNOWN

    if args.json:
        write_json(stdout, {**document(result, [], args), "board": None, "total": None, "status": UNKNOWN})
    else:
        stderr.print(f"no board found: stopped by {result.stopped_by} after {result.seconds:.1f} s · "
                     f"proven upper bound: {result.upper:,}", style="yellow", highlight=False)
    return EXIT_INTERRUPTED if result.stopped_by == "interrupt" else 0


def summary(result) -> list[str]:
    if result.sampled:
        return [f"--quick: best {result.best} points", f"{result.classes_done:,} of the {result.classes:,} sampled classes "
                f"done (of {result.all_classes:,}): proven at most {result.upper:,} there, nothing about the rest",
                f"{result.seconds:.1f} s", f"{result.where}"]
    if result.optimal:
        head = [f"proven optimal: {result.best} points"]
    else:
        head = [f"best found: {result.best} points", f"proven upper bound: {result.upper:,}",
                f"not proven (stopped by {result.stopped_by})"]
    return head + [f"classes {result.classes_done:,}/{result.classes:,}", f"{result.seconds:.1f} s",
                   f"{result.where}"]


def document(result, found, args) -> dict:
    sampled = {"sample": {"classes": result.classes, "of": result.all_classes, "upper_bound": result.upper}} \
        if result.sampled else {}
    return {"puzzle": "grid", "board": result.board, "score_kind": "boggle", "total": result.best,
            "count": len(found), "status": FOUND, "complete": result.complete and not result.sampled,
            "optimal": result.optimal, "upper_bound": None if result.sampled else result.upper,
            "stopped_by": "sample" if result.sampled else result.stopped_by, "seconds": round(result.seconds, 2),
            "prove": {**sampled, "classes": result.classes, "classes_done": result.classes_done, "shards": result.shards,
                      "shards_done": result.shards_done, "resumed": result.resumed, "where": result.where,
                      "seed_score": result.seed_score, "seed_seconds": result.seed_seconds,
                      "found_by": result.found_by, "subclasses": result.nodes, "boards_scored": result.boards,
                      "cpu_seconds": result.cpu_seconds, "history": result.history},
            "seed": args.seed,
            "words": [{"word": w.word, "score": w.score, "path": [list(p) for p in w.path]} for w in found]}
