"""``--solver``: reading its value, and running ``--solver auto`` (the default).

``--solver`` takes ``auto`` (a race of the engines that apply, see
cpmodel.run.portfolio), ``both`` (the cross-check: every engine that can answer),
one engine name, or a comma list of two or more (``backtrack,cp,cpsat``, a
cross-check of those). :func:`choose_engines` turns the text into engine
names, or a one-line error; :func:`run_portfolio` runs the race under
supervision (progress, Ctrl-C) and prints its answer, saying which engine
answered.

``rect`` with no mode option asks for the *most familiar* rectangle
(:data:`FAMILIAR_IMPROVE_FOR`): the first one found is printed at once, the
search then improves it for at most that many seconds after the first
(or until ``--time-limit``), and the answer says whether it is proven.
"""

from __future__ import annotations

from rich.console import Console

from cpmodel.core.checks import ascii_lower
from cpmodel.core.control import Control
from cpmodel.core.errors import InputError
from cpmodel.core.jobs import Job
from cpmodel.core.result import FOUND, SolveResult
from cpmodel.run import interrupts
from cpmodel.show.documents import solve_document, write_json, write_json_lines
from cpmodel.show.gallery import Gallery, draw_solution
from cpmodel.show.render import Parts, summary

AUTO, BOTH = "auto", "both"
SOLVER_METAVAR = "auto|both|ENGINE[,ENGINE…]"
FAMILIAR_IMPROVE_FOR = 15.0  # seconds of improvement after the first rectangle (the familiar-words default)
EXIT_INTERRUPTED = 130  # the CLI makes it 143 after SIGTERM (cpmodel.run.interrupts)


def solver_help(puzzle: str) -> str:
    from cpmodel.run.engines import engines_for

    return (f"auto races the engines that apply ({', '.join(engines_for(puzzle))}) in parallel processes and "
            f"reports the first conclusive answer; both, or a comma list such as backtrack,cpsat, runs each "
            f"and cross-checks their answers; or name one engine")


def choose_engines(text: str, puzzle: str, best: bool = False) -> list[str]:
    """``--solver``'s value as engine names: ``["auto"]``, or the engines to run
    (one, or two or more for the cross-check). Bad values raise a one-line InputError."""
    import difflib

    from cpmodel.run.engines import engines_for

    known, able = engines_for(puzzle), engines_for(puzzle, best)
    value = ascii_lower(text.strip())
    if value == AUTO:
        return [AUTO]
    if value == BOTH:
        return able
    names = [name.strip() for name in value.split(",")]
    for name in names:
        if name in (AUTO, BOTH) and len(names) > 1:
            raise InputError(f"--solver {text}: {name} cannot be part of a list; give engine names ({', '.join(known)})")
        if name not in known:
            choices = [AUTO, BOTH, *known]
            close = difflib.get_close_matches(name, choices, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise InputError(f"--solver: unknown engine {name!r} for {puzzle}{hint} "
                             f"(choose from {', '.join(choices)}, or a comma list of engines)")
        if name not in able:
            raise InputError(f"--solver {name} cannot answer {puzzle}{' --best' if best else ''}; "
                             f"use one of {', '.join(able)}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InputError(f"--solver {text}: {', '.join(repeated)} named twice")
    return names


def familiar_request(time_limit: float | None):
    """The familiar-words default: --best that stops improving ``time_limit`` (or
    :data:`FAMILIAR_IMPROVE_FOR`) seconds after the first rectangle."""
    from cpmodel.core.control import Request

    return Request(limit=None, best=True, improve_for=time_limit or FAMILIAR_IMPROVE_FOR)


def plan_for(job: Job, jobs: int | None = None):
    """The race ``auto`` runs for this job on ``jobs`` cores (default: all)."""
    from cpmodel.run.portfolio import portfolio_plan

    return portfolio_plan(job.puzzle, job.request.best, jobs)


def run_portfolio(job: Job, plan, label: str, header: dict, what: str, output: str, stdout: Console,
                  stderr: Console, describe=None) -> int:
    """Race ``plan`` on ``job`` and print the answer; ``output`` is rich, json or jsonl."""
    from cpmodel.run import watch
    from cpmodel.run.portfolio import Race
    from cpmodel.run.supervise import Supervisor

    request = job.request
    familiar = request.improve_for is not None
    gallery = Gallery(stdout, what, stderr, describe)
    printer = _printer(request, output, gallery, what, familiar)
    lines = _json_lines(stdout) if output == "jsonl" and not request.best else None
    if printer == gallery.add:  # drawn or written a batch at a time: one write per batch to a file
        printer, lines = None, gallery.add_batch
    control = Control(time_limit=job.time_limit)
    names = " + ".join(str(entrant) for entrant in plan)
    with interrupts.deferred(reraise=False):  # a signal stops the race, never cuts the document
        supervisor = Supervisor(control, f"auto ({names}) {label}", stderr, printer, batch_printer=lines)
        with Race(job, plan, supervisor.stream if printer or lines or watch.watching() else None) as running:
            result = supervisor.run(lambda: running.wait(control))
        if output != "rich":
            doc = portfolio_document(header, job, result)
            if output == "jsonl":
                if request.best and result.solutions:
                    write_json(stdout, {"rows": list(result.solutions[0])})
                doc.pop("solutions", None)
            write_json(stdout, doc)
    if output == "rich":
        streamed = (printer is not None or lines is not None) and not request.best
        print_answer(stdout, result, what, familiar, gallery if streamed else None, describe=describe)
    return EXIT_INTERRUPTED if supervisor.interrupted else 0


def _printer(request, output: str, gallery: Gallery, what: str, familiar: bool):
    """What to do with each streamed solution: draw it (a bounded number, cpmodel.show.gallery;
    the first one only in the familiar-words mode), or nothing."""
    if output != "rich" or request.count_only or (request.best and not familiar):
        return None
    if not familiar:
        return gallery.add
    shown = [0]

    def first(rows) -> None:
        if not shown[0]:  # the progress line shows the improvements; the end shows the best
            shown[0] = 1
            draw_solution(gallery.stdout, rows, f"first {what} found, improving…", gallery.describe)

    return first


def _json_lines(stdout: Console):
    """--jsonl: each batch of streamed solutions as JSON lines, in one write."""
    return lambda batch: write_json_lines(stdout, [{"rows": list(rows)} for rows in batch])


def print_answer(stdout: Console, result: SolveResult, what: str, familiar: bool, streamed: Gallery | None,
                 describe=None) -> None:
    """The answer's solutions (unless ``streamed`` drew them already), its summary, and who answered."""
    shown = None
    if streamed is not None:
        streamed.close()
        shown = streamed.shown
    elif familiar or result.objective:
        for rows in result.solutions:
            title = (f"most familiar {what}" if result.complete else "most familiar found so far") if familiar else "best"
            draw_solution(stdout, rows, title, describe)
    elif result.solutions:  # a count has none to draw
        gallery = Gallery(stdout, what, describe=describe)
        gallery.add_batch(result.solutions)
        gallery.close()
        shown = gallery.shown
    stdout.print(familiar_summary(result, what) if familiar else summary(result, what, shown), highlight=False)
    stdout.print(answered_line(result), style="dim", highlight=False)


def familiar_summary(result: SolveResult, what: str) -> Parts:
    """The familiar-words default's line: the ranks, and whether they are proven best."""
    if result.status != FOUND or result.objective is None:
        return summary(result, what)
    largest, total = result.objective
    proven = ("proven most familiar" if result.complete
              else f"most familiar found, not proven (stopped by {result.stopped_by}; --best searches to the end)")
    return Parts([f"most familiar {what}", f"largest word rank {largest:,}, rank sum {total:,}", proven,
                  f"{result.seconds:.2f} s"], style="green")


def answered_line(result: SolveResult) -> str:
    """'answered by backtrack · raced backtrack, cp (cp: stopped)', or '… (auto ran backtrack×2 alone)'."""
    race = result.stats.get("portfolio", {})
    others = ", ".join(f"{name}: {state}" for name, state in race.get("others", {}).items())
    verdict = "answered by" if race.get("conclusive") else "best partial answer from"
    engines = race.get("engines", [])
    if len(engines) == 1:
        return f"{verdict} {result.solver} (auto ran {engines[0]} alone)"
    return f"{verdict} {result.solver} · raced {', '.join(engines)}" + (f" ({others})" if others else "")


def portfolio_document(header: dict, job: Job, result: SolveResult) -> dict:
    """The JSON document of an ``auto`` run: the usual keys, ``solver: auto``,
    ``answered_by`` (the engine whose answer this is) and ``portfolio``."""
    doc = solve_document(header, job.request, [result], None)
    doc["stats"] = {key: value for key, value in doc["stats"].items() if key != "portfolio"}
    doc.update(solver=AUTO, answered_by=result.solver, portfolio=result.stats.get("portfolio", {}))
    if job.request.improve_for is not None:
        doc.update(familiar_keys(result))
    return doc


def familiar_keys(result: SolveResult) -> dict:
    """``mode: familiar`` and ``proven``: the rectangle is proven most familiar (or, with
    status none, none exists)."""
    return {"mode": "familiar", "proven": bool(result.complete)}
