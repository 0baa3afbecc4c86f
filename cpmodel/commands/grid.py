"""``grid``: all words on a grid-game board, scored; a file of boards; rich boards.

Three modes, one per function: a board (``BOARD`` or ``--random``) gets every
word with its path; ``--score-file`` prints one total per board, streaming;
``--best RxC`` searches for a high-scoring board on every core
(cpmodel.run.portfolio: the pool hill climber beside annealing).
"""

from __future__ import annotations

import gc
import sys
import time
from functools import lru_cache, partial

from rich.console import Console
from rich.text import Text

from cpmodel.commands.common import EXIT_INTERRUPTED, check_lengths, load_lexicon, read_user_file
from cpmodel.core import clock
from cpmodel.core.boards import GridBoard
from cpmodel.core.control import Control
from cpmodel.core.errors import InputError
from cpmodel.core.result import FOUND, NONE
from cpmodel.core.specs import parse_size
from cpmodel.core.validate import check_all, grid_word_problems
from cpmodel.run import interrupts
from cpmodel.run.supervise import Supervisor
from cpmodel.show.documents import write_json, write_whole
from cpmodel.show.render import Parts, board_panel, grid_words_table

SCORE_BATCH = 2048  # boards read, scored and printed together by --score-file (flat memory)
nothing_to_clean_up = False  # set by --score-file once its answer is out: `python -m cpmodel` may end at once


def run(args, stdout: Console, stderr: Console) -> int:
    from cpmodel.core.scoring import score_table

    chosen = [bool(args.board), args.random, bool(args.best), bool(args.score_file)]
    if sum(chosen) != 1:
        raise InputError("give exactly one of BOARD, --random, --best RxC or --score-file FILE")
    check_lengths(args.min, args.max)
    override = read_user_file(args.score_table, "score table") if args.score_table else None
    table = score_table(args.score, override, source=f"score table {args.score_table}")
    size = parse_size(args.best) if args.best else None
    if size and not (2 <= size[0] <= 5 and 2 <= size[1] <= 5):
        raise InputError(f"--best searches boards from 2x2 to 5x5, got {args.best}")
    if args.target is not None and (not size or args.prove):
        raise InputError("--target goes with --best RxC (a search, not --prove)")
    if args.quick and not args.prove:
        raise InputError("--quick goes with --best RxC --prove")
    if args.prove:
        if not size:
            raise InputError("--prove goes with --best RxC")
        if args.score != "boggle":
            raise InputError("--prove bounds Boggle scores; use --score boggle")
        from cpmodel.commands import grid_prove
        return grid_prove.run(args, size[0], size[1], table, stdout, stderr)
    if args.time_limit is None:
        args.time_limit = 60.0  # --best's heuristic search (--prove runs until proven unless told)
    board = _board(args)
    lexicon_words = load_lexicon(args.dict, stderr, args.top).words
    if args.score_file:
        return score_file(args, lexicon_words, table, stdout)
    search = None
    if size:
        search = best_board(args, size, lexicon_words, table, stderr)
        board = search["board"]
        if board is None:
            return _nothing_found(args, search, stdout, stderr)
    return show_board(args, board, lexicon_words, table, stdout, search)


@lru_cache(maxsize=1)
def sorted_words(words: tuple[str, ...]):
    """The lexicon sorted, the one-board walk's trie, kept for the next grid command in this
    process: the web app's workers fork from a process that sorted it once (cpmodel/web/worker.py)."""
    from heuristics.grid import SortedWords

    return SortedWords.of(words)


def _board(args) -> GridBoard | None:
    from cpmodel.core.boards import parse_grid
    from heuristics.grid import roll_dice

    if args.board:
        return parse_grid(args.board)
    return roll_dice(args.seed) if args.random else None


def show_board(args, board: GridBoard, lexicon_words, table, stdout: Console, search: dict | None) -> int:
    """Every word on the board with its best path, validated, then printed.

    One board is walked in Python over the sorted word list (heuristics.grid):
    15 ms, where loading the compiled kernel would cost a second."""
    from heuristics.grid import find_words

    words = find_words(board, sorted_words(tuple(lexicon_words)), table, args.min, args.max)
    word_set = set(lexicon_words)
    check_all([p for w in words for p in grid_word_problems(board, w.word, w.path, word_set)], "word list")
    total = sum(w.score for w in words)
    interrupted = search is not None and search["stopped_by"] == "interrupt"
    if args.json:
        doc = {"puzzle": "grid", "board": board.notation(), "score_kind": args.score, "total": total,
               "count": len(words), "status": FOUND if words or search else NONE,
               "complete": search is None,  # every word of a given board; --best's search never completes
               "words": [{"word": w.word, "score": w.score, "path": [list(p) for p in w.path]} for w in words]}
        if search is not None:  # the board is the best found: nothing is proven, so not complete
            doc.update({key: value for key, value in search.items() if key != "board"}, complete=False, optimal=False)
        write_json(stdout, doc)
        return EXIT_INTERRUPTED if interrupted else 0
    stdout.print(board_panel(board, title=board.notation()))
    stdout.print(grid_words_table(board, words, args.show))
    if search is not None:
        stdout.print(Parts([f"best board found: {total:,} points", f"{search['evaluations']:,} boards",
                            f"{search['seconds']:.1f} s", f"seed {args.seed}", f"by {search['engine']}",
                            "a heuristic: not proven optimal"], style="green"), highlight=False)
    return EXIT_INTERRUPTED if interrupted else 0


def _nothing_found(args, search: dict, stdout: Console, stderr: Console) -> int:
    """--best stopped before any board was scored: unknown, said plainly."""
    from cpmodel.core.result import UNKNOWN

    interrupted = search["stopped_by"] == "interrupt"
    if args.json:
        write_json(stdout, {"puzzle": "grid", "board": None, "score_kind": args.score, "total": None, "count": 0,
                            "status": UNKNOWN, "complete": False, "words": [], "optimal": False, "seed": args.seed,
                            **search})
    else:
        stderr.print(f"no board found: stopped by {search['stopped_by']} after {search['seconds']} s", style="yellow",
                     highlight=False)
    return EXIT_INTERRUPTED if interrupted else 0


# -- --score-file ------------------------------------------------------------------------


def score_file(args, lexicon_words, table, stdout: Console) -> int:
    """One total per board, in order, batch by batch: memory stays flat whatever
    the file's length, and what was printed stays printed on Ctrl-C (with
    ``--json``, the document holds the totals scored before it). A bad line
    stops the run with its line number (exit 2) after the totals before it.

    Lines are parsed in bulk (heuristics.grid_lines: numpy over a block of
    lines, parse_grid for the lines it cannot take), and a batch's boards are
    scored in one thread per core (``--jobs``)."""
    _numba_without_scipy()
    from heuristics import grid_kernel

    scorer = grid_kernel.FileScorer(lexicon_words, table, args.min, args.max, threads=args.jobs or _cores())
    chunks = _stdin_chunks() if args.score_file == "-" else _file_chunks(args.score_file)
    totals: list[int] = []
    count, stopped = 0, False
    try:
        for batch in _batches(chunks, drop_bom=args.score_file != "-"):
            scores = interrupts.wait_in_thread(partial(_totals, scorer, batch))  # the first loads numba's code
            count += len(scores)
            if args.json:
                totals.extend(scores.tolist())
            else:
                with interrupts.deferred():
                    write_whole(stdout.file, "\n".join(map(str, scores.tolist())) + "\n")
                    stdout.file.flush()
    except KeyboardInterrupt:
        if not args.json:
            raise  # the printed lines are the answer; the CLI says where it stopped
        stopped = True  # the document keeps the totals scored so far
    finally:
        chunks.close()
    global nothing_to_clean_up
    nothing_to_clean_up = True  # what remains at exit is freeing memory: numba's and the lexicon's
    if args.json:
        from cpmodel.core.result import UNKNOWN

        write_json(stdout, {"puzzle": "grid", "score_kind": args.score, "boards": count, "totals": totals,
                            "status": FOUND if count else UNKNOWN if stopped else NONE, "complete": not stopped,
                            **({"stopped_by": "interrupt"} if stopped else {})})
    return EXIT_INTERRUPTED if stopped else 0


def _numba_without_scipy() -> None:
    """Load numba's array functions with scipy hidden: at its first compile or cache load,
    numba imports scipy.linalg (0.16 s of a 1.3 s run) only to see whether np.dot and
    friends can use BLAS. No grid kernel uses them, and nothing else compiles in this
    process; a later import of scipy works as usual."""
    if "numba.np.arraymath" in sys.modules or "scipy" in sys.modules:
        return
    sys.modules["scipy"] = None  # type: ignore[assignment]  # `import scipy` now raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    except ImportError:
        pass  # another numba: it loads as it will
    finally:
        del sys.modules["scipy"]


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _file_chunks(path: str):
    from cpmodel.core.files import Chunks

    return Chunks(path, "board file")


def _stdin_chunks():
    """Standard input's bytes as they come (``read1``: what is there, without waiting for a full chunk)."""
    from cpmodel.core.files import CHUNK

    if sys.stdin is None:  # no standard input at all (closed): no boards
        return
    stream = getattr(sys.stdin, "buffer", None)  # a replaced sys.stdin (a test's) may be text only
    while chunk := stream.read1(CHUNK) if stream is not None else sys.stdin.read(CHUNK).encode("utf-8"):
        yield chunk


def _batches(chunks, drop_bom: bool = True):
    """Batches of up to SCORE_BATCH boards, each a list of (block, start, stop) pieces
    (heuristics.grid_lines); a bad line is an InputError after the batch before it."""
    from cpmodel.core.files import MAX_LINE
    from heuristics import grid_lines

    return grid_lines.batches(grid_lines.read_blocks(chunks, "board file", MAX_LINE, drop_bom), SCORE_BATCH)


def _totals(scorer, batch):
    import numpy as np

    return np.concatenate([block.totals(start, stop, scorer.plain, scorer.scores) for block, start, stop in batch])


# -- --best RxC -----------------------------------------------------------------------------


def best_board(args, size, lexicon_words, table, stderr: Console) -> dict:
    """The best board the portfolio finds in the time limit (never claimed optimal)."""
    from cpmodel.core.control import Request
    from cpmodel.core.jobs import Job
    from cpmodel.run.portfolio import Race, grid_plan

    rows, cols = size
    started = time.monotonic()
    try:
        spec = interrupts.wait_in_thread(lambda: _compiled_spec(rows, cols, lexicon_words, table, args))
    except KeyboardInterrupt:  # stopped while numba loads or compiles: no board was scored
        return {"board": None, "stopped_by": "interrupt", "seconds": round(time.monotonic() - started, 2)}
    limit = clock.left(args.time_limit)  # loading the kernels came out of the user's limit
    job = Job("grid", spec, "hillclimb", Request(best=True), time_limit=limit, options={"seed": args.seed})
    plan = grid_plan(args.jobs)
    control = Control(time_limit=limit, goal=None if args.target is None else _reaches(args.target))
    supervisor = _Progress(control, f"best {rows}x{cols} board ({' + '.join(map(str, plan))}, seed {args.seed})", stderr)
    gc.freeze()
    with Race(job, plan) as running:
        result = supervisor.run(lambda: running.wait(control))
    if not result.solutions:  # stopped before any board was scored
        return {"board": None, "stopped_by": result.stopped_by or "time-limit", "seconds": round(control.elapsed(), 2)}
    best_rows = result.solutions[0]
    board_score = -result.objective[0]
    others = result.stats.get("portfolio", {})
    from cpmodel.core.boards import parse_grid

    return {"board": parse_grid("/".join(best_rows) + ("/" if rows == 1 else "")), "engine": result.solver,
            "best_found": board_score, "seed": args.seed, "evaluations": supervisor.evaluations(result),
            "seconds": round(control.elapsed(), 2), "history": result.stats.get("history", []),
            "stopped_by": result.stopped_by, "portfolio": others}


def _reaches(points: int):
    """--target: the race's objective is (−score, …), smaller is better."""

    def goal(objective) -> bool:
        return -objective[0] >= points

    return goal


def _compiled_spec(rows: int, cols: int, lexicon_words, table, args):
    """The search's spec with its kernels loaded (or compiled, on a first run), once, before the fork."""
    from heuristics import grid_kernel
    from heuristics.grid_search import BestBoardSpec, warm_up

    spec = BestBoardSpec(rows, cols, grid_kernel.build_alphabet_trie(lexicon_words), table, args.min, args.max)
    warm_up(spec)
    return spec


class _Progress(Supervisor):
    """The progress line of --best: best so far and boards scored per second."""

    def __init__(self, control: Control, label: str, stderr: Console):
        # No engine name: the supervisor waits for the race, which gives its processes their own
        # grace and then reaps them. Abandoned after the supervisor's grace instead, the race lost
        # the board it held (1 run in 4 of 600 s on 5x5 ended "no board found").
        super().__init__(control, label, stderr)
        self.started = time.monotonic()

    def evaluations(self, result) -> int:
        """Boards scored by every process (the portfolio sums their counts), else the answer's own."""
        return max(self.control.nodes, result.stats.get("evaluations", 0))

    def _line(self) -> Text:
        elapsed = self.control.elapsed()
        best = self.control.objective
        best_text = f"best found {-best[0]:,}" if best else "no board yet"
        rate = self.control.nodes / elapsed if elapsed > 0 else 0.0
        stopping = " · stopping…" if self.control.stop.is_set() else ""
        return Text(f"{self.label} · {best_text} · {self.control.nodes:,} boards ({rate:,.0f}/s)"
                    f" · {elapsed:.1f}\u00a0s{stopping}", style="cyan")
