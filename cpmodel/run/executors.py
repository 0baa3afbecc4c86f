"""Where shards run: a local process pool or a Dask cluster, one interface.

Both are ``concurrent.futures`` executors: :class:`LocalPool` wraps the
standard library's ``ProcessPoolExecutor``, :class:`DaskPool` wraps
``distributed.Client.get_executor()``. The sharded runner submits
:func:`run_shard` with a plain :class:`~cpmodel.core.jobs.Job` and waits on the
futures; it never knows which of the two it has.

Stopping. The stop is a flag no worker can hold (cpmodel.run.flags): ``stop()``
sets it and never waits, whatever state the workers are in. Every engine
polls it through its :class:`~cpmodel.core.control.Control`, so shards in
flight end within moments with honest partial results. A stop signal that
reaches a worker itself (the whole process group gets SIGTERM from
``timeout``) is a stop request too (cpmodel.run.interrupts.stop_on_signals):
the worker hands back its partial result instead of dying. ``close()`` gives
the workers a deadline to leave, then kills and reaps them. The forkserver
and resource tracker start with the stop signals blocked, so they live
exactly as long as the main process (they leave when it does) and no
stray signal kills the forkserver while its workers still need reaping. A
worker whose main process has died (kill -9) exits by itself. On Dask,
``stop()`` sets the run's named Event on the scheduler, which every shard
polls (cpmodel.run.flags.DaskStop), and cancels the futures not yet started:
a shard already running stops within a second instead of running on to its
end for nobody.

Lost workers. A local worker that dies breaks the pool (the run fails
loudly). Dask re-runs the tasks of a lost worker elsewhere, so the shard's
result, and the merged answer, stay exact.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
import uuid
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager

from cpmodel.core.control import Control
from cpmodel.core.errors import InputError
from cpmodel.core.jobs import Job
from cpmodel.core.result import UNKNOWN, SolveResult
from cpmodel.run import interrupts
from cpmodel.run.flags import DaskStop, EitherFlag, StopFlag

CLOSE_GRACE = 1.0  # seconds workers get to leave before they are killed
STOPPED_GRACE = 0.25  # the same once the run was stopped: what they still hold was drained or is lost
_stop = None  # in a local worker: the pool's stop flag, or this worker's own
_task = threading.local()  # on a Dask worker: the stop flag of the task this thread runs


def current_stop():
    """The stop flag a shard polls here: its Dask run's, or this local worker's (None: none)."""
    return getattr(_task, "stop", None) or _stop


def run_shard(job: Job) -> SolveResult:
    """Run one shard where this function is called (a worker process)."""
    from cpmodel.run import engines

    control = Control(time_limit=job.time_limit)
    stop = current_stop()
    if stop is not None:
        control.stop = stop
    started = time.process_time()
    if control.stop.is_set():  # stopped before this shard began: nothing to search
        return SolveResult(job.engine, UNKNOWN, False, 0, stopped_by="interrupt")
    result = engines.run(job, control)
    result.stats["cpu_seconds"] = time.process_time() - started  # what the shard cost, whatever the load
    return result


def _init_local_worker(stop_flag, main_pid: int) -> None:
    """A worker's start: a stop signal stops its search (the pool's flag or its own), never kills it."""
    global _stop
    own = threading.Event()
    _stop = EitherFlag(stop_flag, own)
    interrupts.stop_on_signals(lambda signum: own.set())
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
        _start_helpers()
        self.stop_flag = StopFlag(context)
        self.workers = jobs
        self.executor = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_local_worker,
                                            initargs=(self.stop_flag, os.getpid()))
        self.where = f"{jobs} local processes"

    def submit(self, job: Job) -> Future:
        return self.submit_call(run_shard, job)

    def submit_call(self, function, argument) -> Future:
        """``function(argument)`` on a worker; it finds the stop flag with :func:`current_stop`."""
        return self.executor.submit(function, argument)

    def stop(self) -> None:
        """Ask every worker to stop; returns at once (see cpmodel.run.flags)."""
        self.stop_flag.set()

    def close(self, grace: float = CLOSE_GRACE) -> None:
        """Shut the pool down: the workers get ``grace`` seconds to leave (less after a stop), then
        are killed; all are reaped."""
        processes = list((self.executor._processes or {}).values())  # the executor keeps no public handle
        self.executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + (min(grace, STOPPED_GRACE) if self.stop_flag.is_set() else grace)
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:
            if process.exitcode is None:
                process.kill()
                process.join(1.0)


def _start_helpers() -> None:
    """Start the forkserver (and the resource tracker) with the stop signals blocked.

    They inherit the mask, so a signal to the whole group leaves them alone:
    they leave when the main process does, and the forkserver is there to reap
    the workers meanwhile. The tracker's own start unblocks SIGINT and SIGTERM
    in the caller (it ignores those two itself), so it goes first, in a block
    of its own: the forkserver must start with all four blocked."""
    from multiprocessing import forkserver, resource_tracker

    with interrupts.blocked():
        resource_tracker.ensure_running()
    with interrupts.blocked():
        forkserver.ensure_running()


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
        self.stop_name = f"cpmodel-stop-{uuid.uuid4().hex}"  # this run's Event (cpmodel.run.flags.DaskStop)

    def submit(self, job: Job) -> Future:
        return self.submit_call(run_shard, job)

    def submit_call(self, function, argument) -> Future:
        """``function(argument)`` on a worker, with this run's stop flag (see :func:`current_stop`)."""
        return self.executor.submit(_with_dask_stop, function, argument, self.stop_name)

    def stop(self) -> None:
        """Tell the running shards to stop (they poll the Event), and cancel the others."""
        from distributed import Event

        try:
            Event(self.stop_name, client=self.client).set()
        except Exception:  # noqa: BLE001 (the scheduler is gone: nothing of ours runs there)
            pass
        self.executor.shutdown(wait=False)  # cancels what has not started

    def close(self) -> None:
        self.executor.shutdown(wait=False)
        self.client.close()


def _with_dask_stop(function, argument, stop_name: str):
    """A Dask task: ``function(argument)`` with its run's stop flag for this thread
    (a worker's threads run tasks of different runs side by side)."""
    _task.stop = DaskStop(stop_name)
    try:
        return function(argument)
    finally:
        _task.stop = None


def open_pool(jobs: int, scheduler: str | None):
    return DaskPool(scheduler) if scheduler else LocalPool(jobs)


@contextmanager
def pool_for(jobs: int, scheduler: str | None, checkpoint=None):
    """A pool closed however the block ends, and the checkpoint beside it. On an
    exception (stdout closed by ``| head``, a bug) the shards in flight are told to
    stop first: they must not run on after their answers stopped mattering."""
    pool = open_pool(jobs, scheduler)
    try:
        yield pool
    except BaseException:
        pool.stop()
        raise
    finally:
        pool.close()
        if checkpoint:
            checkpoint.close()
