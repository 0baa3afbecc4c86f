"""Helpers every command shares: loading inputs, running solvers under
supervision and comparing two solvers (the JSON document: cpmodel.show.documents)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from rich.console import Console

from cpmodel.core import clock
from cpmodel.core.control import Request
from cpmodel.core.errors import InputError
from cpmodel.core.jobs import Job
from cpmodel.core.lexicon import Lexicon, load_default, load_file
from cpmodel.core.result import SolveResult
from cpmodel.run import interrupts
from cpmodel.run.supervise import Supervisor
from cpmodel.show.documents import solve_document, write_json
from cpmodel.show.gallery import Gallery
from cpmodel.show.render import comparison_table, summary

# Exit codes, documented in docs/json.md and the CLI's epilog.
EXIT_DISAGREE, EXIT_BAD_INPUT, EXIT_INVALID_LAYOUT = 1, 2, 3
EXIT_INTERNAL = 70  # a bug: sysexits' EX_SOFTWARE
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE, EXIT_TERMINATED = 130, 141, 143  # 128 + SIGINT, SIGPIPE, SIGTERM


def read_user_file(path: str, what: str) -> str:
    """A small text file the user named (a board, a layout, a score table): a regular
    file of at most a few MiB (cpmodel.core.files), or a one-line InputError saying why not."""
    from cpmodel.core.files import read_text

    return read_text(path, what)

def load_lexicon(path: str | None, stderr: Console, top: int | None = None) -> Lexicon:
    """The default dictionary or a ``--dict`` file, cut to ``--top`` words per length."""
    if top is not None and top < 1:
        raise InputError(f"--top must be at least 1, got {top}")
    if path is None:
        return load_default().top(top)
    lexicon = load_file(path)
    if lexicon.skipped:
        stderr.print(f"warning: skipped {lexicon.skipped} lines of {path} that are not a-z words", style="yellow", highlight=False)
    return lexicon.top(top)


def warn_unused(stderr: Console, engines: list[str], given: dict[str, str]) -> None:
    """One line per option given that no chosen engine reads.

    ``given`` maps an option as typed (``--encoding``) to the engine that
    reads it; options left at their default are not in it."""
    for option, reader in given.items():
        if reader not in engines:
            stderr.print(f"warning: {option} applies to --solver {reader} only; ignored with {' and '.join(engines)}",
                         style="yellow", highlight=False)


def cpsat_params(pairs: list[str] | None) -> tuple[str, ...]:
    """``--param key=value`` as checked SatParameters lines (ortools loads only when given)."""
    if not pairs:
        return ()
    from cpmodel.models.cpsat_run import parse_params

    return parse_params(pairs)

def solve_request(args) -> Request:
    """The mode options as a Request (without a streaming callback, so it pickles)."""
    if getattr(args, "best", False):
        return Request(limit=None, best=True)
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    if args.all or args.count:
        return Request(limit=None, count_only=args.count)
    return Request(limit=args.limit or 1)

def engine_names(choice: str, puzzle: str, best: bool = False) -> list[str]:
    """``--solver``'s value as engine names (``["auto"]`` for the race); see
    cpmodel.commands.auto.choose_engines."""
    from cpmodel.commands.auto import choose_engines

    return choose_engines(choice, puzzle, best)

def run_solvers(job: Job, engines: list[str], label: str, header: dict, what: str, as_json: bool,
                stdout: Console, stderr: Console, describe=None) -> int:
    """Run ``job`` on each engine under supervision and print the result(s).

    Shared by every puzzle with a CP-SAT model and a backtracker: streaming,
    Ctrl-C, the --solver both cross-check, JSON and exit codes. ``describe(rows)``,
    if given, is a line printed under each solution (Wordscapes: its words)."""
    from cpmodel.run import engines as registry

    request = job.request
    stream = not as_json and not request.count_only and not request.best and len(engines) == 1
    gallery = Gallery(stdout, what, stderr, describe) if stream else None

    results = []
    shares = clock.Shares(job.time_limit, len(engines))
    with interrupts.deferred(reraise=False) as signals:  # a signal stops the search, never cuts the document
        for name in engines:
            control = replace(job, time_limit=shares.next()).new_control()
            supervisor = Supervisor(control, f"{name} {label}", stderr, engine=name,  # a batch: one write to a file
                                    batch_printer=gallery.add_batch if stream else None)
            engine_job = job.with_engine(name)
            results.append(supervisor.run(partial(registry.run, engine_job, control, supervisor.stream)))
            if signals.asked:
                break
        interrupted = signals.asked
        agreement = compare_all(results) if len(results) >= 2 else None
        if as_json:
            write_json(stdout, solve_document(header, request, results, agreement, engines))
    if not as_json:  # pictures stay interruptible: a signal stops the printing
        print_results(stdout, results, agreement, what, gallery, count_only=request.count_only,
                      describe=describe, stderr=stderr)
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_DISAGREE if agreement is not None and agreement.startswith("DISAGREE") else 0

def compare_all(results: list[SolveResult]) -> str:
    """Compare every result with the first; the first disagreement wins."""
    verdicts = [compare_results([results[0], other]) for other in results[1:]]
    return next((v for v in verdicts if v.startswith("DISAGREE")), verdicts[0])

def compare_results(results: list[SolveResult]) -> str:
    """Compare two results: solution sets, counts or optima, as far as both finished."""
    a, b = results
    if not (a.complete and b.complete):
        return "undecided (a search did not finish)"
    if a.objective is not None or b.objective is not None:
        return "same optimum" if a.objective == b.objective else f"DISAGREE: optimum {a.objective} vs {b.objective}"
    if a.stopped_by == "limit" or b.stopped_by == "limit":
        same = a.count == b.count
        return "both found the requested solutions" if same else f"DISAGREE: {a.count} vs {b.count} solutions"
    if a.count != b.count:
        return f"DISAGREE: {a.count} vs {b.count} solutions"
    if a.solutions and b.solutions and set(a.solutions) != set(b.solutions):
        return "DISAGREE: different solution sets"
    return "identical solution sets" if a.solutions or a.count == 0 else "same count"

def print_results(stdout: Console, results, agreement, what: str, streamed: Gallery | None, count_only: bool,
                  describe=None, stderr: Console | None = None) -> None:
    """Each engine's solutions (once when both found the same set; a bounded number of
    pictures, cpmodel.show.gallery), its summary, the cross-check table.

    ``streamed``: the solutions were drawn as they came, by this gallery."""
    shown = {}
    if streamed is not None:
        streamed.close()
        shown = {id(results[0]): streamed.shown}
    elif not count_only:
        same = len(results) == 2 and results[0].solutions and results[0].solutions == results[1].solutions
        for result in results[:1] if same or len(results) == 1 else results:
            who = "" if len(results) == 1 else ("both " if same else f"{result.solver} ")
            gallery = Gallery(stdout, what, stderr, describe, title=who)
            gallery.add_batch(result.solutions)
            gallery.close()
            shown[id(result)] = gallery.shown
        if same:
            shown[id(results[1])] = shown[id(results[0])]
    for result in results:
        stdout.print(summary(result, what, shown.get(id(result))), highlight=False)
    if agreement is not None:
        stdout.print(comparison_table(results, agreement))

def check_lengths(shortest: int, longest: int | None) -> None:
    """--max below --min (each is a whole number ≥ 1 already, by its argparse type)."""
    if longest is not None and longest < shortest:
        raise InputError(f"--max ({longest}) must not be below --min ({shortest})")

def hand_finder(lexicon: Lexicon):
    from heuristics.words import WordIndex, find_words

    index = WordIndex(lexicon.words)
    return lambda hand: [f.word for f in find_words(index, hand, min_len=2)]
