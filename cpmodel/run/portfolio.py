"""Several engines on one job at once, each in its own process.

:func:`race` is ``--solver auto``: the engines start side by side and the
first *conclusive* answer wins: for a first-solution or ``--limit`` run, the
requested solutions; for ``--all``/``--count``, the exhausted search (the
exact set or count); for ``--best``, a proven optimum; or a proof of
``none``. The others are then stopped. A heuristic that runs dry (the
Bananagrams backtracker's ``unknown``) is not conclusive: the exact engines
keep searching until they prove ``none`` or the time runs out, and an
``unknown`` is never turned into ``none``.

:func:`gather` runs the same start but waits for every engine.

Which engines race (:func:`portfolio_plan`). One process per core, engines
in the registry's order of preference, because two CPU-bound searches on one
core each run at half speed: a third engine on 2 cores slows the two that
usually win (measured in benchmarks/front_door.py). Bananagrams always gets
its prover (CP-SAT) beside the backtracker, whatever the cores. The first
engine, the favourite, starts at once; the others get ``HEAD_START``
seconds later, or at once when the favourite ends without an answer (the
Bananagrams backtracker running dry). The favourite answers most runs in a
fraction of that (a 5×6 first rectangle, a 21-tile layout), and then the
others never load ortools nor take CPU from it: on a busy machine Linux
shares the CPU between sessions, not processes, so a second engine slows
the first even with a core to spare.

For ``--best`` with an engine that reads a shared bound (the rectangle
backtracker), the idle cores go to that one engine instead: its search is
cut into *stripes* (the first row's words k, k+S, k+2S, …, as in
cpmodel.run.shards), one process each, and every stripe cuts its tree with the
best rectangle any stripe has found (:class:`SharedIncumbent`). A team of
stripes answers when all of them have finished; their results merge as
shards do. On a machine busy with other work, one stripe: the split costs
more CPU in all (each stripe builds its tables and probes; measured +30%)
and gains nothing when the session gets one core's share.

How it runs.
* Children are forked after the spec is built, so none reloads the lexicon
  or rebuilds tables; ortools is imported in the children that need it.
  They are forked from the main thread (:class:`Race`'s ``start``), with
  the stop signals blocked across the fork, and only then is the waiting handed to
  whichever thread shows progress.
* Each child sends its streamed solutions and its final ``SolveResult`` over
  one queue. The parent forwards each solution the first time any engine
  reports it (for ``--best``, only one that improves on all before it), so
  the printed stream is the union of what the engines found so far; when
  the winner finishes, its complete set is the answer (and the stream is
  topped up from it).
* Signals. A stop signal to a child (Ctrl-C and ``timeout`` signal the whole
  process group) stops its search, never kills it
  (cpmodel.run.interrupts.stop_on_signals): it sends back what it found, and
  the parent, which got the same signal, reports the best answer any engine
  gave. Should every child be gone without a word (kill -9), the solutions
  they streamed are still the answer.
* No orphans: children die with the parent (Linux PR_SET_PDEATHSIG) and are
  killed and reaped before :func:`race` returns. On the caller's stop (a
  signal, the time limit) the children are asked to stop and given a moment
  to hand back what they found.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue as queue_module
import signal
import threading
import time
from dataclasses import dataclass, field, replace

from cpmodel.core.control import Control
from cpmodel.core.jobs import Job
from cpmodel.core.result import FOUND, GAVE_UP, UNKNOWN, SolveResult
from cpmodel.run import engines as registry
from cpmodel.run import interrupts
from cpmodel.run.flags import EitherFlag, StopFlag

GRACE = 1.0  # seconds a stopped child gets to send back its partial result (as cpmodel.run.supervise)
_POLL = 0.05
_NO_OBJECTIVE = 1 << 62  # the shared incumbent before any rectangle is known
_LOCK_WAIT = 0.2  # seconds to wait for the incumbent's lock (see SharedIncumbent)


@dataclass(frozen=True)
class Entrant:
    """One engine in a race, run as ``stripes`` processes that split its search,
    starting ``delay`` seconds after the race (or when the others give up)."""

    engine: str
    stripes: int = 1
    delay: float = 0.0

    def __str__(self) -> str:
        return self.engine if self.stripes == 1 else f"{self.engine}×{self.stripes}"


HEAD_START = 1.0  # seconds the favourite runs alone (see the module docstring)


def available_cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def idle_cores() -> int:
    """The cores other work leaves free (the 1-minute load average, ours excluded), at least 1."""
    cores = available_cores()
    try:
        busy = os.getloadavg()[0]
    except OSError:
        return cores
    return max(1, min(cores, round(cores - busy + 0.5)))


def portfolio_plan(puzzle: str, best: bool = False, cores: int | None = None,
                   head_start: float = HEAD_START) -> list[Entrant]:
    """What ``--solver auto`` races on ``cores`` cores (default: this machine's,
    and for stripes the idle ones); see the module docstring."""
    names = registry.engines_for(puzzle, best)
    if best and registry.shares_bound(puzzle, names[0]):
        return [Entrant(names[0], max(1, cores or idle_cores()))]
    chosen = names[:max(1, cores or available_cores())]
    if not any(registry.is_exact(puzzle, name) for name in chosen):
        chosen.append(next(name for name in names if registry.is_exact(puzzle, name)))
    return [Entrant(name, delay=0.0 if k == 0 else head_start) for k, name in enumerate(chosen)]


def grid_plan(cores: int | None = None) -> list[Entrant]:
    """``grid --best``: the pool hill climber on every core but one (each stripe its
    own seed) and annealing on the last; one core runs the climber alone. Both are
    heuristics, so the race runs to the time limit and keeps the best board found."""
    cores = max(1, cores or available_cores())
    if cores == 1:
        return [Entrant("hillclimb")]
    return [Entrant("hillclimb", stripes=cores - 1), Entrant("anneal")]


def portfolio_engines(puzzle: str, cores: int | None = None, best: bool = False) -> list[str]:
    """The engine names ``auto`` runs (see :func:`portfolio_plan`)."""
    return [entrant.engine for entrant in portfolio_plan(puzzle, best, cores)]


def conclusive(job: Job, result: SolveResult) -> bool:
    """Does this result answer the job for good? (An exact engine's complete
    search, or a heuristic's found solution; never a heuristic's ``unknown``.)"""
    if not result.complete:
        return False
    return registry.is_exact(job.puzzle, result.solver) or result.status == FOUND


class SharedIncumbent:
    """The best (largest rank, rank sum) any process of a race has found.

    Two integers in shared memory behind a lock: a search reads it at each
    poll (:meth:`Control.outside_best`) and offers its own improvements. The
    lock is only ever waited for briefly: a child terminated while holding it
    leaves it taken for good, and then the bound is simply not shared any more
    (it only prunes; every stripe keeps its own best, and the answer is merged
    from the stripes' results)."""

    def __init__(self, context):
        self.values = context.Array("q", [_NO_OBJECTIVE, _NO_OBJECTIVE])

    def get(self) -> tuple[int, int] | None:
        lock = self.values.get_lock()
        if not lock.acquire(timeout=_LOCK_WAIT):
            return None
        try:
            value = (self.values[0], self.values[1])
        finally:
            lock.release()
        return None if value[0] == _NO_OBJECTIVE else value

    def offer(self, objective: tuple[int, int]) -> bool:
        """Keep ``objective`` if it is better; True when it was."""
        lock = self.values.get_lock()
        if not lock.acquire(timeout=_LOCK_WAIT):
            return False
        try:
            if tuple(objective) < (self.values[0], self.values[1]):
                self.values[0], self.values[1] = objective
                return True
            return False
        finally:
            lock.release()


@dataclass
class _Member:
    """One process of a race: stripe ``stripe`` of entrant ``team``."""

    team: int
    stripe: int
    job: Job
    process: multiprocessing.process.BaseProcess | None = None
    result: SolveResult | None = None
    error: str | None = None
    nodes: int = 0  # the child's last reported node count

    @property
    def running(self) -> bool:
        return self.result is None and self.error is None


@dataclass
class Outcome:
    """What a race or a gather produced, for the command layer."""

    results: list[SolveResult]  # every entrant that reported (stripes merged), in plan order
    winner: SolveResult | None  # the conclusive answer (race), else None
    errors: dict[str, str] = field(default_factory=dict)

    def answer(self) -> SolveResult:
        """The winner, or else the most informative partial result."""
        return self.winner or best_partial(self.results)


def race(job: Job, plan: list[Entrant] | list[str], control: Control, on_solution=None) -> SolveResult:
    """The first conclusive answer among the entrants; see the module docstring.

    The request's ``improve_for`` (the familiar-words default) stops every
    engine that many seconds after the first solution arrives from any of
    them, keeping the best found."""
    with Race(job, plan, on_solution) as running:
        return running.wait(control)


def gather(job: Job, plan: list[Entrant] | list[str], control: Control) -> list[SolveResult]:
    """Every entrant's result, run side by side."""
    with Race(job, plan, None, wait_for_all=True) as running:
        outcome = running.collect(control)
    if outcome.errors:
        raise RuntimeError("; ".join(f"{name}: {error}" for name, error in outcome.errors.items()))
    return outcome.results


def best_partial(results: list[SolveResult]) -> SolveResult:
    """No engine finished: prefer a found solution (the best objective, else the
    most solutions), never a claim that the search was complete. With nothing
    found, an engine that was cut short (its ``stopped_by`` is the real cause)
    rather than a heuristic that ran dry."""
    if not results:
        raise RuntimeError("no engine returned a result")
    found = [r for r in results if r.status == FOUND]
    if not found:
        return next((r for r in results if r.stopped_by not in (None, GAVE_UP)), results[0])
    if any(r.objective is not None for r in found):
        return min((r for r in found if r.objective is not None), key=_objective)
    return max(found, key=lambda r: r.count)


def _objective(result: SolveResult) -> tuple[int, int]:
    """The sort key of results that have an objective."""
    assert result.objective is not None
    return result.objective


# -- the parent's side ------------------------------------------------------------


class Race:
    """A race as three steps: ``start`` (fork, in the main thread), ``wait``
    (any thread, e.g. a Supervisor's worker) and ``close`` (reap; ``with``
    does it). :func:`race` is the one-call form."""

    def __init__(self, job: Job, plan, on_solution=None, wait_for_all: bool = False):
        self.job = job
        self.plan = [entrant if isinstance(entrant, Entrant) else Entrant(entrant) for entrant in plan]
        self.on_solution, self.wait_for_all = on_solution, wait_for_all
        self.improve_for = job.request.improve_for
        self.members: list[_Member] = []
        self.started = False

    def __enter__(self) -> Race:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        context = multiprocessing.get_context("fork")
        self.messages = context.Queue()
        self.stop = StopFlag(context)
        self.go = StopFlag(context)  # the entrants with a head start to give may start now
        self.incumbent = SharedIncumbent(context) if self.job.request.best else None
        for team, entrant in enumerate(self.plan):
            for stripe, stripe_job in enumerate(_stripes(self.job.with_engine(entrant.engine), entrant.stripes)):
                self.members.append(_Member(team, stripe, stripe_job))
        parent = os.getpid()
        stream = self.on_solution is not None or self.job.request.best or self.improve_for is not None
        gc.freeze()  # the spec stays shared, page for page, with the children
        try:
            with interrupts.blocked():  # no signal between fork and the child's own signal thread
                for index, member in enumerate(self.members):
                    start = _Start(self.plan[member.team].delay, self.go, parent, stream)
                    member.process = context.Process(
                        target=_child_main, args=(member.job, index, self.messages, self.stop, self.incumbent, start),
                        daemon=True)
                    member.process.start()
        finally:
            self.started = True
            gc.unfreeze()

    def wait(self, control: Control) -> SolveResult:
        """The answer: the winner, or the best partial result, with a ``portfolio`` stats entry."""
        outcome = self.collect(control)
        answer = outcome.answer()
        reported = {r.solver: r for r in outcome.results}
        others = {entrant.engine: _state(reported[entrant.engine]) if entrant.engine in reported else "stopped"
                  for entrant in self.plan if entrant.engine != answer.solver}
        answer.stats = dict(answer.stats, portfolio={
            "engines": [str(entrant) for entrant in self.plan],
            "answered": answer.solver,
            "conclusive": outcome.winner is not None,
            "others": others,
            **({"errors": outcome.errors} if outcome.errors else {}),
        })
        return answer

    def collect(self, control: Control) -> Outcome:
        forward = _Forwarder(self.job, self.on_solution, control, self.incumbent)
        winner, deadline, stopped_by = None, None, None
        try:
            while any(member.running for member in self.members) and winner is None:
                reason = control.stop_reason() or ("time-limit" if forward.past(self.improve_for) else None)
                if deadline is None and reason:
                    stopped_by = reason
                    self.stop.set()  # ask every engine to wind down and report
                    deadline = time.monotonic() + GRACE
                if deadline is not None and time.monotonic() > deadline:
                    break
                message = self._next()
                if message is None:
                    continue
                kind, index, payload = message
                member = self.members[index]
                if kind == "solution":
                    forward.solution(payload, member.job.engine)
                elif kind == "nodes":  # a child's running count: the progress line shows the sum
                    member.nodes = payload
                    control.nodes = sum(m.nodes for m in self.members)
                elif kind == "result":
                    member.result = payload
                    team = self._team_result(member.team)
                    if team is not None and not self.wait_for_all and conclusive(self.job, team):
                        winner = team
                    elif team is not None:
                        self.go.set()  # an entrant ended without the answer: the others start now
                else:
                    member.error = payload
                    self.go.set()
        finally:
            self.close()
        results = [r for r in (self._team_result(team, partial=True) for team in range(len(self.plan))) if r]
        if winner is not None:  # the winner itself, not a second merge of its stripes
            results = [winner if r.solver == winner.solver else r for r in results]
        if winner is None and stopped_by is None and control.stop.is_set():
            stopped_by = "interrupt"  # the engines stopped on the signal before we did
        if winner is not None:
            forward.top_up(winner)
        elif stopped_by and not self.wait_for_all:
            results = [_stopped(r, stopped_by) for r in results]
        if not results and forward.seen and not self.wait_for_all:
            results = [forward.as_result(stopped_by or "interrupt")]  # nobody reported: what they streamed
        errors = {str(self.plan[m.team]): m.error or "ended without a result" for m in self.members
                  if m.result is None and (m.error or (m.process is not None and m.process.exitcode
                                                       not in (0, None, -signal.SIGTERM, -signal.SIGKILL)))}
        return Outcome(results, winner, errors)

    def close(self) -> None:
        """Stop and reap every child (idempotent)."""
        if not self.started:
            return
        self.stop.set()
        _reap([m.process for m in self.members if m.process is not None])

    def _team_result(self, team: int, partial: bool = False) -> SolveResult | None:
        """The entrant's result once all its stripes reported (or, if ``partial``, what they did)."""
        members = [m for m in self.members if m.team == team]
        results = [m.result for m in members if m.result is not None]
        if not results or (len(results) < len(members) and not partial):
            return None
        if len(members) == 1:
            return results[0]
        return _merge(self.job.with_engine(self.plan[team].engine), members)

    def _next(self):
        """The next message, or None after a short wait; notices children that died."""
        try:
            return self.messages.get(timeout=_POLL)
        except queue_module.Empty:
            for member in self.members:
                if member.running and member.process.exitcode is not None:
                    try:  # its last words may still be in the pipe
                        return self.messages.get(timeout=_POLL)
                    except queue_module.Empty:
                        member.error = f"process ended with exit code {member.process.exitcode}"
            return None


def _stripes(job: Job, count: int) -> list[Job]:
    """The job cut into ``count`` stripes of its first line's words (itself when 1).
    Only a search that must cover everything splits (--all, --count, --best): a
    first-solution or --limit run stays whole, its first solutions are the answer."""
    from cpmodel.run.shards import shardable

    if count > 1 and job.puzzle == "grid":  # a heuristic's stripes are independent runs, one seed each
        seed = job.option("seed", 0)
        return [replace(job, options=dict(job.options, seed=seed + 7919 * k)) for k in range(count)]
    if count <= 1 or not shardable(job):
        return [job]
    from cpmodel.run.shards import split

    return [shard.job for shard in split(job, count)]


def _merge(job: Job, members: list[_Member]) -> SolveResult:
    """The stripes' results as one (cpmodel.run.shards.Merger: sets unite, counts add, optima compete)."""
    from cpmodel.run.shards import Merger

    merger = Merger(job, len(members), keep_solutions=True)
    for member in members:
        if member.result is not None:
            merger.add(member.stripe, member.result)
    reasons = [m.result.stopped_by for m in members if m.result is not None and not m.result.complete]
    seconds = max(m.result.seconds for m in members if m.result is not None)
    merged = merger.result(seconds, reasons[0] if reasons else "interrupt")
    merged.stats["stripes"] = len(members)
    found = [m.result for m in members if m.result is not None and m.result.objective is not None]
    if found and "history" in found[0].stats:  # the best stripe's own story (grid --best)
        best = min(found, key=_objective)
        merged.stats.update(history=best.stats["history"], evaluations=sum(r.stats.get("evaluations", 0) for r in found))
    return merged


def _state(result: SolveResult) -> str:
    """How an engine that did not answer ended: 'found', 'unknown, gave up', 'found, stopped by time-limit'."""
    if result.complete:
        return result.status
    return f"{result.status}, {'gave up' if result.stopped_by == GAVE_UP else f'stopped by {result.stopped_by}'}"


def _stopped(result: SolveResult, reason: str) -> SolveResult:
    """A result the parent cut short is labelled with the parent's reason (a heuristic
    that had run dry before keeps its own)."""
    if result.complete or result.stopped_by == GAVE_UP:
        return result
    return replace(result, stopped_by=reason)


def _reap(processes) -> None:
    """Kill whoever is still running (a stop signal would only ask it to stop), and reap every child."""
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join()


class _Forwarder:
    """Passes streamed solutions to the caller, each distinct solution once;
    under --best only those that improve on every one before them."""

    def __init__(self, job: Job, on_solution, control: Control, incumbent: SharedIncumbent | None):
        self.job, self.on_solution, self.control, self.incumbent = job, on_solution, control, incumbent
        self.best = job.request.best
        self.seen: dict = {}  # every solution forwarded (in order), and the engine that found it first
        self.first_seen: float | None = None
        self.objective: tuple[int, int] | None = None

    def solution(self, rows, engine: str | None = None) -> None:
        if self.first_seen is None:
            self.first_seen = time.monotonic()
        if rows in self.seen:
            return
        if self.best:
            value = registry.objective(self.job, rows)
            if self.objective is not None and value >= self.objective:
                return
            self.objective = self.control.objective = value
            if self.incumbent is not None:
                self.incumbent.offer(value)  # what cp or CP-SAT found helps the backtracker's stripes
        self.seen[rows] = engine
        self.control.solutions = len(self.seen)
        if self.on_solution is not None:
            self.on_solution(rows)

    def past(self, improve_for: float | None) -> bool:
        """The improvement time after the first solution is over."""
        return improve_for is not None and self.first_seen is not None and time.monotonic() - self.first_seen > improve_for

    def as_result(self, stopped_by: str) -> SolveResult:
        """What the engines streamed, as a partial result (no engine reported one of its own)."""
        solutions = list(self.seen)[-1:] if self.best else list(self.seen)
        engine = self.seen[solutions[-1]] or self.job.engine
        return SolveResult(engine, FOUND, False, len(solutions), solutions, self.control.elapsed(),
                           stopped_by, self.objective if self.best else None)

    def top_up(self, winner: SolveResult) -> None:
        """Forward the winner's solutions that no engine had streamed yet."""
        if self.best or self.on_solution is None:
            return
        for rows in winner.solutions:
            self.solution(rows)


# -- the child's side -----------------------------------------------------------------


@dataclass(frozen=True)
class _Start:
    """How a child starts: after ``delay`` seconds or when ``go`` is set; who its parent is;
    whether it streams its solutions."""

    delay: float
    go: StopFlag
    parent: int
    stream: bool


def _child_main(job: Job, index: int, messages, stop, incumbent, start: _Start) -> None:
    """Run one engine and send back its solutions and result (never raises).
    A stop signal stops the search (``own``), as the race's stop does."""
    own = threading.Event()
    interrupts.stop_on_signals(lambda signum: own.set())
    stop = EitherFlag(stop, own)
    _die_with_parent(start.parent)
    waited = _head_start(start, stop)
    control = job.new_control(stop=stop)
    control.incumbent = incumbent
    if job.time_limit is not None:
        control.time_limit = max(job.time_limit - waited, 0.001)  # the race's clock, not ours
    on_solution = (lambda rows: messages.put(("solution", index, rows))) if start.stream else None
    reporting = _NodeReporter(control, index, messages) if start.stream else None
    try:
        if stop.is_set():  # the race ended before our turn
            result = SolveResult(job.engine, UNKNOWN, False, 0, stopped_by="interrupt")
        else:
            result = registry.run(job, control, on_solution)
        messages.put(("result", index, result))
    except BaseException as exc:  # reported to the parent, which decides
        messages.put(("error", index, f"{type(exc).__name__}: {exc}"))
    if reporting is not None:
        reporting.stop()
    messages.close()
    messages.join_thread()


NODES_EVERY = 0.5  # seconds between a child's node counts (the parent's progress line)


class _NodeReporter:
    """Sends ``control.nodes`` to the parent every NODES_EVERY seconds while it
    changes, from a daemon thread; :meth:`stop` ends it before the queue closes."""

    def __init__(self, control: Control, index: int, messages):
        import threading

        self.control, self.index, self.messages = control, index, messages
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._report, daemon=True)
        self.thread.start()

    def _report(self) -> None:
        last = 0
        while not self.done.wait(NODES_EVERY):
            if self.control.nodes != last:
                last = self.control.nodes
                self.messages.put(("nodes", self.index, last))

    def stop(self) -> None:
        self.done.set()
        self.thread.join(timeout=NODES_EVERY * 4)


def _head_start(start: _Start, stop: EitherFlag) -> float:
    """Wait out the favourite's head start (or until ``go`` or ``stop``); the seconds waited."""
    began = time.monotonic()
    deadline = began + start.delay
    while start.delay > 0 and time.monotonic() < deadline and not (start.go.is_set() or stop.is_set()):
        time.sleep(0.01)
    return time.monotonic() - began


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill us if the parent dies (nobody is left to report to); elsewhere, do nothing."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
