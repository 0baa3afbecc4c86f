"""Stop flags shared between processes, which no process, dead or alive, can block.

A search polls ``control.stop`` (``is_set``, ``wait``, as a threading.Event).
Across processes that flag must not be a ``multiprocessing.Event``: its
``set()`` takes a shared lock and notifies a shared condition, and a worker
that dies inside ``is_set()`` or ``wait()`` (a signal, kill -9, the OOM
killer) leaves them taken, after which the parent's ``set()`` blocks for ever
(seen: a group SIGTERM hung a sharded run in ``LocalPool.stop``).
:class:`StopFlag` is one byte of shared memory and no lock: setting it never
waits for anybody.

:class:`EitherFlag` is what a worker's search polls: the run's shared flag,
or the worker's own, set when a signal reaches the worker itself
(cpmodel.run.interrupts.stop_on_signals).
"""

from __future__ import annotations

import time


class StopFlag:
    """``is_set``/``set``/``wait`` as a threading.Event, in one byte of shared memory, no lock."""

    def __init__(self, context):
        self.flag = context.RawValue("b", 0)

    def is_set(self) -> bool:
        return bool(self.flag.value)

    def set(self) -> None:
        self.flag.value = 1

    def wait(self, timeout: float | None = None) -> bool:
        return _poll(self.is_set, timeout)


class EitherFlag:
    """Set when any of its flags is set; ``set()`` sets the last one (the local one)."""

    def __init__(self, *flags):
        self.flags = flags

    def is_set(self) -> bool:
        return any(flag.is_set() for flag in self.flags)

    def set(self) -> None:
        self.flags[-1].set()

    def wait(self, timeout: float | None = None) -> bool:
        return _poll(self.is_set, timeout)


def _poll(is_set, timeout: float | None) -> bool:
    """Wait until ``is_set()`` or ``timeout`` seconds pass, checking every 10 ms."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not is_set() and (deadline is None or time.monotonic() < deadline):
        time.sleep(0.01 if deadline is None else min(0.01, max(0.0, deadline - time.monotonic())))
    return is_set()
