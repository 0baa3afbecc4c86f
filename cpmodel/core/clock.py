"""When the command began: a ``--time-limit`` is the time the whole command may take.

A user who types ``--time-limit 2`` means the command, not the search: loading
the word list, building tables, loading compiled kernels and starting worker
processes all come out of those 2 seconds. So the command line marks its start
(:func:`begin`, first thing in ``python -m cpmodel``, or when the web app's
worker starts a job) and every place that sets a search's limit asks
:func:`left` how much of the user's limit remains. A library call that never
marked a start gets its limit whole.
"""

from __future__ import annotations

import time

_began: float | None = None  # time.monotonic() when this command began (None: not a command)


def begin(at: float | None = None) -> None:
    """Mark the start of a command (``at``: an earlier monotonic time, such as the process's first line)."""
    global _began
    _began = time.monotonic() if at is None else at


def end() -> None:
    """The command is over: a later library call in this process gets its limit whole."""
    global _began
    _began = None


def elapsed() -> float:
    """Seconds since the command began (0 when none began)."""
    return 0.0 if _began is None else time.monotonic() - _began


def left(limit: float | None) -> float | None:
    """What remains of ``limit`` seconds counted from the command's start (None: no limit)."""
    if limit is None:
        return None
    return max(0.0, limit - elapsed())


class Shares:
    """Runs one after another that share one time limit (a cross-check's engines, the
    compare suite's cases): each gets an equal part of what is left when it starts,
    so a run that ends early leaves its time to the next."""

    def __init__(self, limit: float | None, runs: int):
        self.deadline = None if limit is None else time.monotonic() + limit
        self.runs_left = runs

    def next(self) -> float | None:
        """The next run's seconds (None: no limit)."""
        if self.deadline is None:
            return None
        share = max(0.0, self.deadline - time.monotonic()) / max(1, self.runs_left)
        self.runs_left -= 1
        return share
