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

:class:`DaskStop` is what a shard on a Dask worker polls: a named Event on
the scheduler.
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


class DaskStop:
    """A Dask run's stop flag, seen from a shard on a Dask worker: a named
    ``distributed.Event`` on the scheduler, which the run's client sets.

    Dask cannot interrupt a running task, so without it a shard went on to its
    end after its run was stopped. The engines poll ``is_set`` in their inner
    loops and each look at the Event is a round trip to the scheduler, so it is
    looked at once every ``POLL`` seconds. A scheduler that cannot be reached
    counts as a stop: the answer could not be delivered anyway."""

    POLL = 0.5

    def __init__(self, name: str):
        from distributed import Event, get_client

        # The worker's client, found now, in the task's own thread: the engines poll from their own
        # threads (a watcher, CP-SAT's callbacks), where Event's lazy get_client() finds no worker
        # and fails, which read as a stop and cut shards short.
        self.event = Event(name, client=get_client())
        self.stopped = False
        self.looked_at = 0.0

    def is_set(self) -> bool:
        now = time.monotonic()
        if not self.stopped and now - self.looked_at >= self.POLL:
            self.looked_at = now
            try:
                self.stopped = self.event.is_set()
            except Exception:  # noqa: BLE001 (any failure to reach the scheduler)
                self.stopped = True
        return self.stopped

    def set(self) -> None:
        self.stopped = True  # this shard only; the run's client sets the Event

    def wait(self, timeout: float | None = None) -> bool:
        return _poll(self.is_set, timeout)


def _poll(is_set, timeout: float | None) -> bool:
    """Wait until ``is_set()`` or ``timeout`` seconds pass, checking every 10 ms."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not is_set() and (deadline is None or time.monotonic() < deadline):
        time.sleep(0.01 if deadline is None else min(0.01, max(0.0, deadline - time.monotonic())))
    return is_set()
