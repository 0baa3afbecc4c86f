"""The result type every solver returns, and the honesty rule for its status.

``status`` is one of

* ``found``   – at least one solution was reported;
* ``none``    – the search ran to completion and proved there is none;
* ``unknown`` – no solution, and the search was cut short (time limit,
  Ctrl-C, or a heuristic that gave up). Never reported as ``none``.

``complete`` says whether the solver finished what was asked: explored the
whole space (``--all``/``--count``, or ``none``), reached the requested number
of solutions (first/``--limit``), or proved the optimum (``--best``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

FOUND, NONE, UNKNOWN = "found", "none", "unknown"

# Why a search stopped before it was done (``stopped_by``; None: it was not cut short).
LIMIT, TIME_LIMIT, INTERRUPT = "limit", "time-limit", "interrupt"
GAVE_UP = "gave-up"  # a heuristic ran out of ideas: its ``unknown`` is not a proof
STOPPED_BY = (LIMIT, TIME_LIMIT, INTERRUPT, GAVE_UP)


def status_of(count: int, exhausted: bool) -> str:
    """The only place a status is decided: 'none' needs an exhausted search."""
    if count > 0:
        return FOUND
    return NONE if exhausted else UNKNOWN


@dataclass
class SolveResult:
    solver: str  # "cpsat" or "backtrack"
    status: str
    complete: bool
    count: int  # solutions reported (counted, for --count)
    solutions: list[tuple[str, ...]] = field(default_factory=list)
    seconds: float = 0.0
    stopped_by: str | None = None  # one of STOPPED_BY, or None
    objective: tuple[int, int] | None = None  # --best: (max rank, sum of ranks)
    stats: dict = field(default_factory=dict)  # nodes, per-level profile, branches, ...

    def to_json(self, with_solutions: bool = True) -> dict:
        doc = {
            "solver": self.solver,
            "status": self.status,
            "count": self.count,
            "complete": self.complete,
            "seconds": round(self.seconds, 4),
            "stopped_by": self.stopped_by,
            "stats": self.stats,
        }
        if self.objective is not None:
            doc["objective"] = {"max_rank": self.objective[0], "sum_rank": self.objective[1]}
        if with_solutions:
            doc["solutions"] = [list(rows) for rows in self.solutions]
        return doc
