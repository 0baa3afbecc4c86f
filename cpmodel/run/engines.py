"""The one registry of engines: (puzzle, engine name) → how to run a job.

Every entry takes the same three things, a :class:`~cpmodel.core.jobs.Job`, the
:class:`~cpmodel.core.control.Control` that watches it and an optional streaming
callback, and returns a :class:`~cpmodel.core.result.SolveResult`. Everything
that chooses or combines engines (``--solver``, the cross-check, portfolios,
sharded runs) goes through :func:`run` and asks :func:`engines_for` and
:func:`is_exact`; nothing else switches on engine names. Adding an engine
is one adapter function and one line in ``_REGISTRY``.

Imports happen inside the adapters, so that naming an engine costs nothing
and the backtrackers run where ortools is not loaded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from cpmodel.core.control import Control
from cpmodel.core.jobs import Job
from cpmodel.core.result import SolveResult


def _rect_backtrack(job: Job, control: Control, request) -> SolveResult:
    from heuristics.rectangle import solve

    return solve(job.spec, request, control, orientation=job.option("orientation", "auto"))


def _rect_backtrack_orientation(job: Job) -> str:
    from heuristics.rectangle import choose_orientation

    orientation = job.option("orientation", "auto")
    return choose_orientation(job.spec) if orientation == "auto" else orientation


def _rect_cpsat(job: Job, control: Control, request) -> SolveResult:
    from cpmodel.models.rectangle import solve

    return solve(job.spec, request, control, encoding=job.option("encoding", "table"), log=job.option("log", False),
                 params=job.option("params", ()), order=job.option("order", "letters"))


def _rect_cp(job: Job, control: Control, request) -> SolveResult:
    from cpmodel.models.rectangle_cp import solve

    return solve(job.spec, request, control, order=job.option("order"))


def _wordscapes_backtrack(job: Job, control: Control, request) -> SolveResult:
    from heuristics.wordscapes import solve

    return solve(job.spec, request, control)


def _wordscapes_cpsat(job: Job, control: Control, request) -> SolveResult:
    from cpmodel.models.wordscapes import solve

    return solve(job.spec, request, control, log=job.option("log", False), params=job.option("params", ()))


def _wordscapes_cp(job: Job, control: Control, request) -> SolveResult:
    from cpmodel.models.wordscapes_cp import solve

    return solve(job.spec, request, control)


def _banana_backtrack(job: Job, control: Control, request) -> SolveResult:
    from heuristics.bananagrams import solve

    return solve(job.spec, job.option("mode", "free"), control)


def _banana_cpsat(job: Job, control: Control, request) -> SolveResult:
    from cpmodel.models.bananagrams import solve

    return solve(job.spec, control, job.option("encoding", "automaton"), job.option("log", False), job.option("params", ()))


def _grid_hillclimb(job: Job, control: Control, request) -> SolveResult:
    from heuristics.grid_search import solve

    return solve(job.spec, "hillclimb", job.option("seed", 0), control, request)


def _grid_anneal(job: Job, control: Control, request) -> SolveResult:
    from heuristics.grid_search import solve

    return solve(job.spec, "anneal", job.option("seed", 0), control, request)


@dataclass(frozen=True)
class Engine:
    run: Callable[[Job, Control, object], SolveResult]
    exact: bool  # an exhausted search proves `none` (and complete sets, counts, optima)
    best: bool = True  # can answer --best (most familiar words)
    # a sharded run gives it one first-line word per shard: CP-SAT's cost grows faster than
    # the words it is given (5×6, --top 3000: 0.2 s for one first-row word, 10 s for 12)
    small_shards: bool = False
    # --best reads Control.incumbent while it runs, so a portfolio may split it into stripes
    # that share one bound (cpmodel.run.portfolio)
    shares_bound: bool = False
    # an engine that fills whole lines in one orientation: job → "rows" or "cols" (sharding cuts along it)
    orientation: Callable[[Job], str] | None = None


# Registry order is the portfolio's order of preference: when there are fewer
# cores than engines, `auto` runs the first ones (measured strongest first,
# see docs/modelling.md, "the same model, three engines").
_REGISTRY: dict[str, dict[str, Engine]] = {
    "rect": {"backtrack": Engine(_rect_backtrack, exact=True, shares_bound=True, orientation=_rect_backtrack_orientation),
             "cp": Engine(_rect_cp, exact=True),
             "cpsat": Engine(_rect_cpsat, exact=True, small_shards=True)},
    "wordscapes": {"backtrack": Engine(_wordscapes_backtrack, exact=True), "cp": Engine(_wordscapes_cp, exact=True),
                   "cpsat": Engine(_wordscapes_cpsat, exact=True, small_shards=True)},
    # the layout search is anchored and incomplete: it can find layouts, never prove there is none
    "banana": {"backtrack": Engine(_banana_backtrack, exact=False), "cpsat": Engine(_banana_cpsat, exact=True)},
    # best grid boards: two heuristics; they find boards and prove nothing
    "grid": {"hillclimb": Engine(_grid_hillclimb, exact=False), "anneal": Engine(_grid_anneal, exact=False)},
}


def engines_for(puzzle: str, best: bool = False) -> list[str]:
    """The engine names that can answer this puzzle (a --best run if ``best``), in registry order."""
    if best:
        return [name for name, engine in _REGISTRY[puzzle].items() if engine.best]
    return list(_REGISTRY[puzzle])


def is_exact(puzzle: str, engine: str) -> bool:
    return _REGISTRY[puzzle][engine].exact


def shares_bound(puzzle: str, engine: str) -> bool:
    """True when the engine's --best reads a bound found by other processes while it runs."""
    return _REGISTRY[puzzle][engine].shares_bound


def objective(job: Job, rows: tuple[str, ...]) -> tuple[int, int]:
    """--best's value of a solution: (largest word rank, sum of ranks), smaller is better."""
    if job.puzzle == "rect":
        from cpmodel.core.validate import rank_objective

        return rank_objective(job.spec, rows)
    if job.puzzle == "grid":  # (-score, 0): a higher score is better
        from heuristics.grid_search import objective as grid_objective

        return grid_objective(job.spec, rows)
    return job.spec.fill_objective(rows)


def wants_small_shards(puzzle: str, engine: str) -> bool:
    """True when the engine should get one first-line word per shard."""
    return _REGISTRY[puzzle][engine].small_shards


def fill_orientation(job: Job) -> str | None:
    """"rows" or "cols": the lines this job's engine will fill, or None when it has no fixed order."""
    orientation = _REGISTRY[job.puzzle][job.engine].orientation
    return orientation(job) if orientation else None


def run(job: Job, control: Control | None = None, on_solution=None) -> SolveResult:
    """Run one job in this process; ``on_solution`` streams each validated solution."""
    engine = _REGISTRY[job.puzzle].get(job.engine)
    if engine is None:
        raise ValueError(f"no engine {job.engine!r} for {job.puzzle} (have {', '.join(engines_for(job.puzzle))})")
    control = control or job.new_control()
    request = replace(job.request, on_solution=on_solution) if on_solution else job.request
    return engine.run(job, control, request)
