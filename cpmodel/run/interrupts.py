"""Stop signals, handled the same way everywhere: stop, keep what was found, say so.

Four signals ask a run to stop: SIGINT (Ctrl-C), SIGTERM (``kill``,
``timeout``, ``docker stop``, systemd), SIGHUP (the terminal went away) and
SIGQUIT (Ctrl-\\). Each ends the run with what was found so far and the exit
code 128 + the signal's number, as a shell reports it: 130, 143, 129, 131.

In the main process. Python turns SIGINT into ``KeyboardInterrupt`` wherever
the main thread happens to be; :func:`install` makes the other three do the
same (as :class:`Terminated`, a ``KeyboardInterrupt``), so every place that
handles Ctrl-C handles them too, and :func:`exit_code` later says which
signal it was. Where an exception would lose an answer (a sharded run's
merge, a document being written), :func:`deferred` holds signals back: within
it they are only recorded, the block polls them (``mark.asked``) or simply
runs to its end, and the exit code still says which signal came.

In worker processes (shards, race entrants). A worker never dies of a stop
signal: :func:`stop_on_signals` blocks the four signals in every thread and
lets one thread wait for them, which then sets the worker's stop flag. The
search winds down, and the worker hands back its partial result like any
other. A signal to the whole process group (``timeout``, ``kill -- -PGID``)
therefore stops everyone, and nobody's answer is lost.

This module imports only the standard library: ``python -m cpmodel``
installs it before anything heavy is imported, so even a signal during the
imports ends quietly with its exit code.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import sys
import threading
import time
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)

received: int | None = None  # the first signal that asked us to stop
left_running = False  # a task was left to finish alone in a thread: the process must end with os._exit
_count = 0  # how many stop signals arrived so far (a Mark compares against it)
_depth = 0  # how many deferred() blocks are open in the main thread
_held_since = 0  # _count when the outermost one opened
_in_hook = False  # the unraisable hook is running (see _redeliver_swallowed)
_swallowed = False  # a stop's exception was swallowed and has not been raised again yet
_resending = False  # a swallowed stop was handed on again: later signals are only recorded

# What a run stopped before any search could report says, as one JSON document.
NOTHING_FOUND = {"status": "unknown", "count": 0, "complete": False, "stopped_by": "interrupt", "solutions": []}


class Terminated(KeyboardInterrupt):
    """SIGTERM, SIGHUP or SIGQUIT: handled exactly as Ctrl-C is, only the exit code differs."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__()
        self.signum = signum


def _record(signum: int) -> None:
    global received, _count
    received = received or signum
    _count += 1


def _raise(signum, frame) -> None:
    global _swallowed
    _record(signum)
    if _in_hook or (_resending and not _swallowed):
        return  # raised in the hook, it would be swallowed again; or a resend after the stop was raised
    _swallowed = False
    raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _hold(signum, frame) -> None:
    global _swallowed
    _record(signum)
    _swallowed = False  # a deferred block has it now, and polls it


def install() -> None:
    """The stop signals raise in the main thread (a no-op outside the main thread).

    A signal that was ignored when we started stays ignored, as Unix
    convention wants (``nohup``, or ``cmd &`` in a shell without job control)."""
    for sig in STOP_SIGNALS:
        try:
            if signal.getsignal(sig) != signal.SIG_IGN:
                signal.signal(sig, _raise)
        except ValueError:  # not the main thread: whoever owns it handles signals
            return
    sys.unraisablehook = _redeliver_swallowed


def _redeliver_swallowed(unraisable) -> None:
    """A stop signal's exception raised where Python cannot raise (a weakref callback,
    such as the import system's module-lock clean-up, or a ``__del__``) is swallowed
    with an "Exception ignored" traceback, and the run would go on as if no signal had
    come. Quietly, a thread hands the signal to the main thread again, every 50 ms,
    until it has been raised where it counts (see _raise)."""
    global _in_hook, _swallowed, _resending
    _in_hook = True
    try:
        exc = unraisable.exc_value
        if not (isinstance(exc, KeyboardInterrupt) and received is not None):
            sys.__unraisablehook__(unraisable)
        elif not _swallowed:
            _swallowed = _resending = True
            signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
            _thread.start_new_thread(_resend, (signum,))  # Thread.start() waits, and could take the signal
    finally:
        _in_hook = False


def _resend(signum: int) -> None:
    while _swallowed:
        _thread.interrupt_main(signal.Signals(signum))  # the main thread runs _raise at its next line
        time.sleep(0.05)


def note(exc: BaseException) -> None:
    """Remember a signal that arrived as an exception (a plain Ctrl-C before :func:`install`)."""
    global received
    if received is None and isinstance(exc, KeyboardInterrupt):
        received = exc.signum if isinstance(exc, Terminated) else signal.SIGINT


def exit_code(default: int = 0) -> int:
    """128 + the signal that stopped us, or ``default`` when none came."""
    return 128 + int(received) if received else default


class Mark:
    """The stop signals that arrived since the signals began to be held (the outermost
    :func:`deferred` block), or since now outside one, or since now if ``fresh``:
    ``asked`` is True once one did. A search started inside a held block thus
    sees a signal that came while the block was still preparing it."""

    def __init__(self, fresh: bool = False):
        self.start = _held_since if _depth and not fresh else _count

    @property
    def asked(self) -> bool:
        return _count > self.start



def stop_asked() -> bool:
    """Whether a stop signal came since the signals began to be held (see :class:`Mark`)."""
    return Mark().asked


@contextlib.contextmanager
def deferred(reraise: bool = True):
    """Within the block, stop signals are only recorded; the block runs to its
    end (or polls the :class:`Mark` it is given), and then a signal that came
    meanwhile is raised as usual, unless ``reraise`` is False: a run that
    handles the stop itself, or the last words of one that is ending anyway.
    Blocks nest: only the outermost one raises."""
    global _depth, _held_since
    try:
        previous: dict[int, Any] = {sig: signal.signal(sig, _hold) for sig in STOP_SIGNALS}
    except ValueError:  # not the main thread
        yield Mark()
        return
    if _depth == 0:
        _held_since = _count
    _depth += 1
    mark = Mark()
    try:
        yield mark
    finally:
        _depth -= 1
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if reraise and mark.asked and received is not None and previous[received] is _raise:
        raise KeyboardInterrupt() if received == signal.SIGINT else Terminated(received)


def wait_in_thread(task):
    """``task()``, run in a daemon thread while the main thread waits for it.

    A stop signal then lands in the wait, never inside the task, and the run
    stops at once. This is for numba loading or compiling its kernels: an
    exception raised inside that crashed the process (SIGSEGV), and holding
    the signals instead made a stop wait for the whole compile, 8 s on the
    first run after an install (the web app killed such jobs). A stopped
    task is left to finish alone (:data:`left_running`): the process then
    ends with os._exit, which does not wait for it."""
    global left_running
    if threading.current_thread() is not threading.main_thread():
        return task()
    outcome = {}
    finished = threading.Event()  # not Thread.join: a signal inside join marks a live thread stopped

    def run() -> None:
        try:
            outcome["value"] = task()
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc
        finally:
            finished.set()

    try:
        threading.Thread(target=run, name="cpmodel-load", daemon=True).start()  # a signal may land here already
        while not finished.wait(0.05):
            pass
    except KeyboardInterrupt:
        left_running = left_running or not finished.is_set()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def stop_on_signals(on_signal) -> None:
    """In a worker process: a stop signal calls ``on_signal(signum)`` instead of killing us.

    The signals are blocked in this thread, and so in every thread it starts
    later (CP-SAT's among them), and a daemon thread takes them with
    ``sigwait``. That works while the main thread sits in native code that
    never returns to Python (a CP-SAT solve), where a Python signal handler
    would only run after the search. Call it first thing in the worker, before
    any other thread exists. Dispositions are reset to the default first: a
    signal ignored by a parent (the forkserver ignores SIGINT) would be
    discarded and never reach ``sigwait``."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)

    def wait_for_signals() -> None:
        while True:
            on_signal(signal.sigwait(STOP_SIGNALS))

    threading.Thread(target=wait_for_signals, name="stop-signals", daemon=True).start()


def block_late_signals() -> None:
    """The run is over and its answer is out: a stop signal from now on waits (blocked)
    until the process has exited. Python's shutdown restores the default handlers, and a
    signal then would kill the process (SIGQUIT with a core dump) instead of exiting with
    the code already chosen. The mask is the main thread's only: a signal sent to the
    process can still land in a thread a native solver started, so the stop signals are
    also ignored (a handler shutdown leaves alone): a SIGINT 2.3 s into an 80-tile CP-SAT
    run, just as it ended, killed it with status -2 after its answer was out."""
    global _swallowed
    _swallowed = False  # and no swallowed one is handed on any more
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


@contextlib.contextmanager
def blocked():
    """The stop signals wait (pending, not lost) while the block runs: around a
    fork or the start of a helper process, which inherits the mask and so never
    dies of a signal meant for the run (see cpmodel.run.executors)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
