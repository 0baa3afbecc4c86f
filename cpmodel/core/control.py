"""How a search is asked for, watched and stopped, the same for every solver.

:class:`Request` says what the caller wants (first solution, K, all, a count,
or the best). :class:`Control` is shared between the running solver and the
caller: the solver bumps its counters (read by the progress line) and polls
``stop_reason()``; the caller sets ``stop`` on Ctrl-C. A solver that stops
for any reason but exhaustion must not claim ``none``.

Two more things a caller may hand a search through its Control: a deadline
that starts with the first solution (``improve_for``, the familiar-words
default: find a rectangle, then improve it for a while), and an
``incumbent``, the best --best objective known to *other* processes
(cpmodel.run.portfolio shares it between the stripes of one search), which a
branch and bound reads to cut its own tree.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


class SearchStopped(Exception):
    """Raised inside a backtracker to unwind its recursion when the caller's
    limit, clock or Ctrl-C says so; ``reason`` becomes ``stopped_by``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Request:
    limit: int | None = 1  # stop after this many solutions; None = all
    count_only: bool = False  # count solutions, do not keep them
    best: bool = False  # optimise commonness (min largest rank, then sum)
    bound: tuple[int, int] | None = None  # --best: report only objectives strictly below this one
    on_solution: Callable[[tuple[str, ...]], None] | None = None  # streaming
    improve_for: float | None = None  # best: stop this long after the first solution (the familiar-words default)


class Incumbent(Protocol):
    """What a search needs of a SharedIncumbent (cpmodel.run.portfolio; core may not import it)."""

    def get(self) -> tuple[int, int] | None: ...

    def offer(self, objective: tuple[int, int]) -> bool: ...


@dataclass
class Control:
    time_limit: float | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)
    solutions: int = 0  # progress counters, written by the solver
    nodes: int = 0
    objective: float | tuple[int, int] | None = None  # --best: best so far, CP-SAT's value or a backtracker's (max, sum)
    bound: float | None = None  # --best: a proven lower bound on it (CP-SAT), if any
    improve_for: float | None = None  # stop this long after the first solution is seen (None: no such deadline)
    first_seen: float | None = None  # when stop_reason() first saw a solution (for improve_for)
    incumbent: Incumbent | None = None  # --best: a SharedIncumbent (cpmodel.run.portfolio) of other processes' best
    goal: Callable[[float | tuple[int, int]], bool] | None = None  # --best --target: stop once the best satisfies it

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def stop_reason(self) -> str | None:
        """'interrupt' after Ctrl-C, 'time-limit' past a deadline, 'target' once the
        best found meets ``goal``, else None."""
        if self.stop.is_set():
            return "interrupt"
        if self.goal is not None and self.objective is not None and self.goal(self.objective):
            return "target"
        if self.time_limit is not None and self.elapsed() >= self.time_limit:
            return "time-limit"
        if self.improve_for is not None and (self.solutions or self.objective is not None):
            now = time.monotonic()
            if self.first_seen is None:
                self.first_seen = now
            elif now - self.first_seen >= self.improve_for:
                return "time-limit"
        return None

    def outside_best(self) -> tuple[int, int] | None:
        """The best objective other processes have found (None: none, or no incumbent)."""
        return self.incumbent.get() if self.incumbent is not None else None

    def offer(self, objective: tuple[int, int]) -> None:
        """Tell the other processes about a better objective (a no-op without an incumbent)."""
        if self.incumbent is not None:
            self.incumbent.offer(objective)


class SolutionSink:
    """Where a solver reports each solution: counts it, keeps it unless only
    counting, streams it, and says when the requested number is reached."""

    def __init__(self, request: Request, control: Control):
        self.request, self.control = request, control
        self.solutions: list[tuple[str, ...]] = []
        self.count = 0

    def record(self, rows: tuple[str, ...]) -> bool:
        """Record one validated solution; True when the limit is reached."""
        self.count += 1
        self.control.solutions = self.count
        if not self.request.count_only:
            self.solutions.append(rows)
        if self.request.on_solution:
            self.request.on_solution(rows)
        return self.request.limit is not None and self.count >= self.request.limit
