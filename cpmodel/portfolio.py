"""Several engines on one job at once, each in its own process.

``race`` is ``--solver auto``: the engines start side by side and the first
*conclusive* answer wins: for a first-solution or ``--limit`` run, the
requested solutions; for ``--all``/``--count``, the exhausted search (the
exact set or count); for ``--best``, a proven optimum; or a proof of
``none``. The others are then stopped. A heuristic that runs dry (the
Bananagrams backtracker's ``unknown``) is not conclusive: the exact engines
keep searching until they prove ``none`` or the time runs out, and an
``unknown`` is never turned into ``none``.

``gather`` is the cross-check (``--solver both`` or ``--solver a,b,c``): the
same start, but it waits for every engine.

How it runs.
* Children are forked after the spec is built, so none reloads the lexicon
  or rebuilds tables; ortools is imported in the children that need it.
* Each child sends its streamed solutions and its final ``SolveResult`` over
  one queue. For ``--all`` the parent forwards each solution the first time
  any engine reports it, so the printed stream is the union of what the
  engines found so far, each rectangle once; when the winner finishes, its
  complete set is the answer (and the stream is topped up from it).
* No orphans: children ignore Ctrl-C (the terminal sends it to the whole
  process group; the parent decides), die with the parent (Linux
  PR_SET_PDEATHSIG), and are terminated and reaped before ``race`` returns.
  On the caller's stop (Ctrl-C, SIGTERM) the children are asked to stop and
  given a moment to hand back what they found.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue as queue_module
import signal
import time
from dataclasses import dataclass, field, replace

from cpmodel import engines as registry
from cpmodel.control import Control
from cpmodel.jobs import Job
from cpmodel.result import FOUND, SolveResult

GRACE = 2.0  # seconds a stopped child gets to send back its partial result
_POLL = 0.05


def portfolio_engines(puzzle: str, cores: int | None = None) -> list[str]:
    """The engines ``auto`` runs: one per core, in the registry's order of
    preference, at least two (so that Bananagrams always has its prover)."""
    names = registry.engines_for(puzzle)
    cores = cores or os.cpu_count() or 1
    return names[: max(2, cores)]


def conclusive(job: Job, result: SolveResult) -> bool:
    """Does this result answer the job for good? (An exact engine's complete
    search, or a heuristic's found solution; never a heuristic's ``unknown``.)"""
    if not result.complete:
        return False
    return registry.is_exact(job.puzzle, result.solver) or result.status == FOUND


@dataclass
class _Child:
    engine: str
    process: multiprocessing.Process
    result: SolveResult | None = None
    error: str | None = None


@dataclass
class Outcome:
    """What a race or a gather produced, for the command layer."""

    results: list[SolveResult]  # every engine that reported, in engine order
    winner: SolveResult | None  # the conclusive answer (race), else None
    errors: dict[str, str] = field(default_factory=dict)

    def answer(self) -> SolveResult:
        """The winner, or else the most informative partial result."""
        return self.winner or best_partial(self.results)


def race(job: Job, names: list[str], control: Control, on_solution=None, improve_for: float | None = None) -> SolveResult:
    """The first conclusive answer among ``names``; see the module docstring.

    ``improve_for`` (the familiar-words default) stops every engine that many
    seconds after the first solution arrives, keeping the best found."""
    outcome = _run(job, names, control, on_solution, wait_for_all=False, improve_for=improve_for)
    answer = outcome.answer()
    answer.stats = dict(answer.stats, portfolio={
        "engines": names,
        "answered": answer.solver,
        "conclusive": outcome.winner is not None,
        "others": {r.solver: r.status for r in outcome.results if r is not answer},
        **({"errors": outcome.errors} if outcome.errors else {}),
    })
    return answer


def gather(job: Job, names: list[str], control: Control) -> list[SolveResult]:
    """Every engine's result, run side by side (the cross-check)."""
    outcome = _run(job, names, control, None, wait_for_all=True)
    if outcome.errors:
        raise RuntimeError("; ".join(f"{name}: {error}" for name, error in outcome.errors.items()))
    return outcome.results


def best_partial(results: list[SolveResult]) -> SolveResult:
    """No engine finished: prefer a found solution (the best objective, else the
    most solutions), never a claim that the search was complete."""
    if not results:
        raise RuntimeError("no engine returned a result")
    found = [r for r in results if r.status == FOUND]
    if not found:
        return results[0]
    if any(r.objective is not None for r in found):
        return min((r for r in found if r.objective is not None), key=lambda r: r.objective)
    return max(found, key=lambda r: r.count)


# -- the parent's side ------------------------------------------------------------


def _run(job, names, control, on_solution, wait_for_all, improve_for=None) -> Outcome:
    context = multiprocessing.get_context("fork")
    messages = context.Queue()
    stop = context.Event()
    gc.freeze()  # the spec stays shared, page for page, with the children
    parent = os.getpid()
    children = [
        _Child(name, context.Process(target=_child_main, args=(job.with_engine(name), messages, stop, parent,
                                                                on_solution is not None), daemon=True))
        for name in names
    ]
    for child in children:
        child.process.start()
    by_name = {child.engine: child for child in children}
    forward = _Forwarder(job, on_solution, control)
    winner, deadline, stopped_by = None, None, None
    try:
        while any(c.result is None and c.error is None for c in children):
            if deadline is None and (control.stop_reason() or forward.first_at_deadline(improve_for)):
                stopped_by = control.stop_reason() or "time-limit"
                stop.set()  # ask every engine to wind down and report
                deadline = time.monotonic() + GRACE
            if deadline is not None and time.monotonic() > deadline:
                break
            message = _next(messages, children)
            if message is None:
                continue
            kind, name, payload = message
            child = by_name[name]
            if kind == "solution":
                forward.solution(payload)
            elif kind == "result":
                child.result = payload
                if not wait_for_all and winner is None and conclusive(job, payload):
                    winner = payload
                    break
            else:
                child.error = payload
    finally:
        stop.set()
        _reap(children)
    results = [c.result for c in children if c.result is not None]
    if winner is not None:
        forward.top_up(winner)
    elif stopped_by and not wait_for_all:
        results = [_stopped(r, stopped_by) for r in results]
    errors = {c.engine: c.error or "ended without a result" for c in children
              if c.result is None and (c.error or c.process.exitcode not in (0, None, -signal.SIGTERM))}
    return Outcome(results, winner, errors)


def _stopped(result: SolveResult, reason: str) -> SolveResult:
    """A result the parent cut short is labelled with the parent's reason."""
    if result.complete:
        return result
    return replace(result, stopped_by=reason)


def _next(messages, children):
    """The next message, or None after a short wait; notices children that died."""
    try:
        return messages.get(timeout=_POLL)
    except queue_module.Empty:
        for child in children:
            if child.result is None and child.error is None and child.process.exitcode is not None:
                try:  # its last words may still be in the pipe
                    return messages.get(timeout=_POLL)
                except queue_module.Empty:
                    child.error = f"process ended with exit code {child.process.exitcode}"
        return None


def _reap(children) -> None:
    """Terminate whoever is still running, then make sure every child is gone."""
    for child in children:
        if child.process.is_alive():
            child.process.terminate()
    for child in children:
        child.process.join(timeout=1.0)
        if child.process.is_alive():
            child.process.kill()
            child.process.join()


class _Forwarder:
    """Passes streamed solutions to the caller, each distinct solution once."""

    def __init__(self, job: Job, on_solution, control: Control):
        self.on_solution, self.control = on_solution, control
        self.best = job.request.best
        self.seen: set = set()
        self.first_seen: float | None = None

    def solution(self, rows) -> None:
        if self.first_seen is None:
            self.first_seen = time.monotonic()
        if rows in self.seen or self.on_solution is None:
            return
        self.seen.add(rows)
        self.control.solutions = len(self.seen)
        self.on_solution(rows)

    def first_at_deadline(self, improve_for: float | None) -> bool:
        return improve_for is not None and self.first_seen is not None and time.monotonic() - self.first_seen > improve_for

    def top_up(self, winner: SolveResult) -> None:
        """Forward the winner's solutions that no engine had streamed yet."""
        if self.best or self.on_solution is None:
            return
        for rows in winner.solutions:
            self.solution(rows)


# -- the child's side -----------------------------------------------------------------


def _child_main(job: Job, messages, stop, parent: int, stream: bool) -> None:
    """Run one engine and send back its solutions and result (never raises)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # terminate() ends us at once
    _die_with_parent(parent)
    control = Control(time_limit=job.time_limit, stop=stop)
    on_solution = (lambda rows: messages.put(("solution", job.engine, rows))) if stream else None
    try:
        result = registry.run(job, control, on_solution)
        messages.put(("result", job.engine, result))
    except BaseException as exc:  # reported to the parent, which decides
        messages.put(("error", job.engine, f"{type(exc).__name__}: {exc}"))
    messages.close()
    messages.join_thread()


def _die_with_parent(parent: int) -> None:
    """Ask Linux to send us SIGTERM if the parent dies; elsewhere, do nothing."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
