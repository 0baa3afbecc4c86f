"""Where shards run: a local process pool or a Dask cluster, one interface.

Both are ``concurrent.futures`` executors: :class:`LocalPool` wraps the
standard library's ``ProcessPoolExecutor``, :class:`DaskPool` wraps
``distributed.Client.get_executor()``. The sharded runner submits
:func:`run_shard` with a plain :class:`~cpmodel.core.jobs.Job` and waits on the
futures; it never knows which of the two it has.

Stopping. Local workers ignore SIGINT (Ctrl-C belongs to the main process)
and share a stop event with it: ``stop()`` sets it, and every engine polls
it through its :class:`~cpmodel.core.control.Control`, so shards in flight end
within moments with honest partial results. A worker whose main process has
died (kill -9) exits by itself. On Dask, ``stop()`` cancels the futures;
a shard already running finishes on its worker and is dropped.

Lost workers. A local worker that dies breaks the pool (the run fails
loudly). Dask re-runs the tasks of a lost worker elsewhere, so the shard's
result, and the merged answer, stay exact.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor

from cpmodel.core.control import Control
from cpmodel.core.errors import InputError
from cpmodel.core.jobs import Job
from cpmodel.core.result import SolveResult

_stop_event = None  # in a local worker: the pool's shared stop event


def run_shard(job: Job) -> SolveResult:
    """Run one shard where this function is called (a worker process)."""
    from cpmodel.run import engines

    control = Control(time_limit=job.time_limit)
    if _stop_event is not None:
        control.stop = _stop_event  # an Event across processes: is_set() and wait() as threading's
    started = time.process_time()
    result = engines.run(job, control)
    result.stats["cpu_seconds"] = time.process_time() - started  # what the shard cost, whatever the load
    return result


def _init_local_worker(stop_event, main_pid: int) -> None:
    global _stop_event
    _stop_event = stop_event
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_when_orphaned(main_pid)


def _exit_when_orphaned(main_pid: int) -> None:
    """Leave when the main process is gone (kill -9 gives it no time to stop us).

    The forkserver that forked this worker is not a reliable witness: it
    lives as long as its workers hold their end of its pipe."""

    def watch() -> None:
        while True:
            threading.Event().wait(1.0)
            try:
                os.kill(main_pid, 0)
            except ProcessLookupError:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class LocalPool:
    """``jobs`` worker processes on this machine (forkserver: small, clean workers)."""

    def __init__(self, jobs: int):
        context = multiprocessing.get_context("forkserver")
        self.stop_event = context.Event()
        self.workers = jobs
        self.executor = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_local_worker,
                                            initargs=(self.stop_event, os.getpid()))
        self.where = f"{jobs} local processes"

    def submit(self, job: Job) -> Future:
        return self.executor.submit(run_shard, job)

    def stop(self) -> None:
        self.stop_event.set()

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class DaskPool:
    """The workers of a running Dask scheduler (``pip install -e '.[cluster]'``)."""

    def __init__(self, address: str, connect_timeout: float = 10.0):
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--scheduler needs Dask distributed: pip install -e '.[cluster]'") from None
        try:
            self.client = Client(address, timeout=connect_timeout)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        self.workers = max(1, sum(self.client.nthreads().values()))
        self.executor = self.client.get_executor(pure=False)
        self.where = f"Dask at {address}, {self.workers} worker threads"

    def submit(self, job: Job) -> Future:
        return self.executor.submit(run_shard, job)

    def stop(self) -> None:
        self.executor.shutdown(wait=False)  # cancels what has not finished

    def close(self) -> None:
        self.executor.shutdown(wait=False)
        self.client.close()


def open_pool(jobs: int, scheduler: str | None):
    return DaskPool(scheduler) if scheduler else LocalPool(jobs)
