"""Jobs: every solve in a worker process, a bounded number at a time, cancellable.

The server's event loop never solves: :class:`JobManager` starts each job as
a process forked from a warm fork server (multiprocessing's ``forkserver``
with cpmodel.web.worker preloaded, so ortools and the commands are imported
once), at most ``workers`` at a time. Later jobs wait in a queue of at most
``queue`` places and learn their position; beyond that the answer is
:class:`Busy`. A thread per running job reads the worker's pipe and hands
each event to the loop, where subscribers (a server-sent event stream, a
request waiting for the document) read the job's event list.

Stopping is the CLI's own: SIGTERM, after which the search stops and its
document keeps what was found; a worker that has not ended ``GRACE`` seconds
later is killed (its engine children die with it, by PR_SET_PDEATHSIG). Each
job also has a hard deadline: its time limit plus ``GRACE`` and a margin.
The CLI only sees a signal, so its document says ``stopped_by: interrupt``;
the manager knows why it sent it and says so instead (STOP_REASONS).
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field

GRACE = 3.0  # seconds between SIGTERM and SIGKILL
MARGIN = 5.0  # seconds past its time limit before the server stops a job itself
UNWATCHED = 15.0  # a job nobody has watched for this long is cancelled (its tab was closed)
KEPT = 500  # finished jobs remembered for GET /api/jobs/ID
QUEUED, RUNNING, DONE = "queued", "running", "done"
# why the server stopped a job: the user's Cancel, a client that left (its stream closed, its
# request dropped, or nobody watched), the server stopping, the job past its hard deadline
STOP_REASONS = ("cancel", "client-gone", "shutdown", "time-limit")


class Busy(Exception):
    """Every worker is busy and the queue is full."""


@dataclass(eq=False)  # a job is itself, not its fields: it lives in sets
class Job:
    id: str
    argv: list[str]
    files: dict
    time_limit: float
    state: str = QUEUED
    events: list = field(default_factory=list)  # (kind, data), in order; "done" is last
    watchers: int = 0
    cancelled: bool = False
    stop_reason: str | None = None  # one of STOP_REASONS once the server stopped it
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    process: object = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def result(self) -> dict | None:
        return self.events[-1][1] if self.events and self.events[-1][0] == "done" else None


class JobManager:
    def __init__(self, workers: int = 2, queue: int = 32):
        self.workers, self.queue_size = workers, queue
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.waiting: deque[Job] = deque()
        self.running: set[Job] = set()
        self.ids = (f"{n:x}" for n in itertools.count(int(time.time() * 1000)))
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(["cpmodel.web.worker"])
        self.loop: asyncio.AbstractEventLoop | None = None
        self.closing = False
        self.ready = False  # the fork server has loaded everything a job needs

    # --- the loop's side -------------------------------------------------
    def warm(self) -> None:
        """Start the fork server now (in a thread), so the first job does not pay for the imports."""
        threading.Thread(target=self._warm, daemon=True).start()

    def _warm(self) -> None:
        process = self.context.Process(target=_nothing)
        try:
            process.start()
        except (EOFError, OSError):  # a signal to the group took the fork server as it started: we are stopping
            return
        process.join()
        self.ready = True

    def submit(self, argv: list[str], files: dict, time_limit: float) -> Job:
        """Queue a job (it starts at once when a worker is free); Busy when the queue is full."""
        self.loop = self.loop or asyncio.get_running_loop()
        if self.closing:
            raise Busy("the server is stopping")
        if len(self.running) >= self.workers and len(self.waiting) >= self.queue_size:
            raise Busy(f"busy: {len(self.running)} jobs running and {len(self.waiting)} waiting "
                       f"(the queue holds {self.queue_size}); try again in a moment")
        job = Job(next(self.ids), argv, files, time_limit)
        self.jobs[job.id] = job
        while len(self.jobs) > KEPT:
            old = next(iter(self.jobs.values()))
            if old.state != DONE:
                break
            self.jobs.popitem(last=False)
        self.waiting.append(job)
        self._emit(job, "queued", {"position": len(self.waiting)})
        self._start_next()
        self.loop.call_later(UNWATCHED, self._cancel_unwatched, job)
        return job

    def cancel(self, job: Job, reason: str = "cancel") -> None:
        """Stop a job for ``reason`` (STOP_REASONS): a queued one is dropped, a running one gets the CLI's SIGTERM."""
        if job.state == DONE:
            return
        job.cancelled = True
        job.stop_reason = job.stop_reason or reason
        if job.state == QUEUED:
            self.waiting.remove(job)
            self._finish(job, {"code": 143, "doc": None, "message": "cancelled before it started", "warnings": []})
            self._tell_positions()
        else:
            self._terminate(job)

    async def events(self, job: Job, start: int = 0):
        """Every event of ``job`` from ``start``, as they come, until ``done``."""
        job.watchers += 1
        try:
            index = start
            while True:
                while index < len(job.events):
                    kind, data = job.events[index]
                    index += 1
                    yield kind, data
                    if kind == "done":
                        return
                job.changed.clear()
                await job.changed.wait()
        finally:
            job.watchers -= 1

    async def result(self, job: Job) -> dict:
        async for kind, data in self.events(job):
            if kind == "done":
                return data
        raise RuntimeError("a job ended without its done event")

    def begin_shutdown(self) -> None:
        """The server is stopping: refuse new jobs, tell every open stream, stop every job.
        Called as the signal comes, so that the streams end and the server can close them."""
        self.closing = True
        for job in [*self.waiting, *self.running]:
            self._emit(job, "shutdown", {"message": "the server is stopping"})
            self.cancel(job, "shutdown")

    async def shutdown(self) -> None:
        """Stop every job (SIGTERM, then SIGKILL after a second) and wait for the processes."""
        self.closing = True
        for job in list(self.waiting):
            self.cancel(job, "shutdown")
        running = list(self.running)
        for job in running:
            job.stop_reason = job.stop_reason or "shutdown"
            self._terminate(job, grace=1.0)
        deadline = time.monotonic() + GRACE + 1
        while any(job.process.is_alive() for job in running) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for job in running:
            if job.process.is_alive():
                job.process.kill()
            job.process.join(1)
        _stop_fork_server()

    def status(self) -> dict:
        return {"running": len(self.running), "waiting": len(self.waiting), "workers": self.workers,
                "queue": self.queue_size, "warm": self.ready}

    def _start_next(self) -> None:
        while self.waiting and len(self.running) < self.workers and not self.closing:
            job = self.waiting.popleft()
            self._launch(job)
        self._tell_positions()

    def _launch(self, job: Job) -> None:
        receive, send = self.context.Pipe(duplex=False)
        job.process = self.context.Process(target=_run, args=(job.argv, job.files, send), daemon=False)
        job.state, job.started = RUNNING, time.monotonic()
        self.running.add(job)
        self._emit(job, "running", {"position": 0})
        job.process.start()
        send.close()
        threading.Thread(target=self._read, args=(job, receive), daemon=True).start()
        self.loop.call_later(job.time_limit + GRACE + MARGIN, self._overdue, job)

    def _tell_positions(self) -> None:
        for position, job in enumerate(self.waiting, 1):
            self._emit(job, "queued", {"position": position})

    def _emit(self, job: Job, kind: str, data: dict) -> None:
        job.events.append((kind, data))
        job.changed.set()

    def _finish(self, job: Job, data: dict) -> None:
        if job.state == DONE:
            return
        job.state = DONE
        data = {**data, "cancelled": job.cancelled, "stopped_by": job.stop_reason,
                "seconds": round(time.monotonic() - job.created, 3)}
        doc = data.get("doc")
        if job.stop_reason and isinstance(doc, dict) and doc.get("stopped_by") == "interrupt":
            data["doc"] = {**doc, "stopped_by": job.stop_reason}  # the signal was ours: say why we sent it
        self._emit(job, "done", data)
        self.running.discard(job)
        self._start_next()

    def _terminate(self, job: Job, grace: float = GRACE) -> None:
        process = job.process
        if process is None or not process.is_alive():
            return
        process.terminate()
        self.loop.call_later(grace, self._kill, job)

    def _kill(self, job: Job) -> None:
        if job.process is not None and job.process.is_alive():
            job.process.kill()

    def _overdue(self, job: Job) -> None:
        if job.state == RUNNING:
            job.stop_reason = job.stop_reason or "time-limit"
            self._terminate(job)

    def _cancel_unwatched(self, job: Job) -> None:
        if job.state != DONE and job.watchers == 0:
            self.cancel(job, "client-gone")

    # --- the reader thread's side -----------------------------------------
    def _read(self, job: Job, receive) -> None:
        """Pass the worker's events to the loop until its pipe closes, then reap it."""
        done = None
        while True:
            try:
                kind, data = receive.recv()
            except (EOFError, OSError):
                break
            if kind == "done":
                done = data
            else:
                self._to_loop(self._emit, job, kind, data)
        receive.close()
        job.process.join()
        if done is None:  # killed before it could say anything
            code = job.process.exitcode
            done = {"code": 128 - code if code is not None and code < 0 else code, "doc": None,
                    "message": "stopped before it answered", "warnings": []}
        self._to_loop(self._finish, job, done)

    def _to_loop(self, function, *args) -> None:
        try:
            self.loop.call_soon_threadsafe(function, *args)
        except RuntimeError:  # the loop is closed: the server has stopped
            pass


def _run(argv, files, conn) -> None:
    from cpmodel.web.worker import run_command

    run_command(argv, files, conn)


def _nothing() -> None:
    pass


def _stop_fork_server() -> None:
    """End multiprocessing's fork server and resource tracker now (each would end by itself, a
    moment after this process), so that the server leaves no process behind when it exits."""
    from multiprocessing import forkserver, resource_tracker

    for helper in (forkserver._forkserver, resource_tracker._resource_tracker):
        stop = getattr(helper, "_stop", None)
        if stop is not None:
            try:
                stop()
            except (OSError, ChildProcessError):
                pass
