"""A thread that raises a compiled kernel's stop flag.

A numba kernel cannot look at an Event or at the clock, so it polls one
byte, ``flag[0]``, at every node. :class:`FlagWatch` sets that byte as soon
as the caller's ``reason()`` names a cause (a stop asked for, a time limit
passed), and keeps the cause for the caller's report.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

POLL_SECONDS = 0.05  # how late a stop may reach the kernel


class FlagWatch:
    """Context manager: while inside, ``flag[0]`` is set once ``reason()`` returns a cause."""

    def __init__(self, flag: np.ndarray, reason: Callable[[], str | None]):
        self.flag, self.reason = flag, reason
        self.why: str | None = None  # the cause that set the flag
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _look(self) -> bool:
        self.why = self.reason()
        if self.why:
            self.flag[0] = 1
        return bool(self.why)

    def _run(self) -> None:
        while not self.done.wait(POLL_SECONDS):
            if self._look():
                return

    def __enter__(self) -> FlagWatch:
        if not self._look():  # stopped already: not even the first node
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()
