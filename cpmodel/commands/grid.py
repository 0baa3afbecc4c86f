"""``grid``: all words on a grid-game board, scored; random and rich boards."""

from __future__ import annotations

import gc

from rich.console import Console

from cpmodel.commands.common import EXIT_INTERRUPTED, check_lengths, load_lexicon, read_user_file
from cpmodel.core.control import Control
from cpmodel.core.errors import InputError
from cpmodel.core.result import FOUND, NONE
from cpmodel.core.specs import parse_size
from cpmodel.core.validate import check_all, grid_word_problems
from cpmodel.run.supervise import Supervisor
from cpmodel.show.documents import write_json
from cpmodel.show.render import Parts, board_panel, grid_words_table


def run(args, stdout: Console, stderr: Console) -> int:
    from cpmodel.core.boards import parse_grid
    from cpmodel.core.scoring import score_table
    from heuristics import grid
    from heuristics.words import build_trie

    chosen = [bool(args.board), args.random, bool(args.best)]
    if sum(chosen) != 1:
        raise InputError("give exactly one of BOARD, --random or --best RxC")
    check_lengths(args.min, args.max)
    override = read_user_file(args.score_table, "score table") if args.score_table else None
    table = score_table(args.score, override, source=f"score table {args.score_table}")
    if args.best:
        rows, cols = parse_size(args.best)
        if args.score != "boggle":
            raise InputError("--best searches for Boggle score; use --score boggle")
    board = parse_grid(args.board) if args.board else grid.roll_dice(args.seed) if args.random else None
    lexicon_words = load_lexicon(args.dict, stderr, args.top).words
    trie = build_trie(lexicon_words)
    gc.freeze()  # the trie is millions of dicts; spare them from every GC pass
    search = None
    if args.best:
        control = Control(time_limit=args.time_limit)
        supervisor = Supervisor(control, f"annealing {rows}x{cols} (seed {args.seed})", stderr)
        search = supervisor.run(lambda: _anneal(grid, rows, cols, trie, table, args, control))
        board = search.board
    words = grid.find_words(board, trie, table, args.min, args.max)
    word_set = set(lexicon_words)
    check_all([p for w in words for p in grid_word_problems(board, w.word, w.path, word_set)], "word list")
    total = sum(w.score for w in words)
    if args.json:
        doc = {"puzzle": "grid", "board": board.notation(), "score_kind": args.score, "total": total,
               "count": len(words), "status": FOUND if words else NONE,
               "complete": search is None,  # every word of a given board; --best's annealing never completes
               "words": [{"word": w.word, "score": w.score, "path": [list(p) for p in w.path]} for w in words]}
        if search is not None:
            doc.update({"seed": args.seed, "evaluations": search.evaluations, "seconds": round(search.seconds, 2),
                        "history": search.history, "stopped_by": search.stopped_by,
                        "optimal": False})  # annealing proves nothing about optimality
        write_json(stdout, doc)
        return EXIT_INTERRUPTED if search is not None and search.stopped_by == "interrupt" else 0
    stdout.print(board_panel(board, title=board.notation()))
    stdout.print(grid_words_table(board, words, args.show))
    if search is not None:
        stdout.print(Parts([f"best board found: {search.score:,} points", f"{search.evaluations:,} boards",
                            f"{search.seconds:.1f} s", f"seed {args.seed}", "a heuristic, not a proven optimum"],
                           style="green"), highlight=False)
        return EXIT_INTERRUPTED if search.stopped_by == "interrupt" else 0
    return 0


def _anneal(grid, rows, cols, trie, table, args, control):
    def progress(score, evaluations):
        control.solutions, control.nodes = score, evaluations

    return grid.best_board(rows, cols, trie, table, args.seed, args.time_limit, control.stop, progress)
