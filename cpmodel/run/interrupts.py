"""Ctrl-C and SIGTERM, handled the same way everywhere: stop, keep what was found, say so.

Python turns SIGINT into ``KeyboardInterrupt`` wherever the main thread
happens to be. :func:`install` makes SIGTERM do the same (as
:class:`Terminated`, a ``KeyboardInterrupt``), so every place that already
handles Ctrl-C (the supervisors, the sharded run, the portfolio) handles a
polite kill too, and :func:`exit_code` later says which signal it was:
130 for SIGINT, 143 for SIGTERM (128 + the signal number, as a shell does).

:func:`deferred` holds signals back while a document is written, so that a
signal can never leave half a JSON document on stdout: the write finishes,
then the process exits with the signal's code.

This module imports only the standard library: ``python -m cpmodel``
installs it before anything heavy is imported, so even a Ctrl-C during the
imports ends quietly with exit code 130.
"""

from __future__ import annotations

import contextlib
import signal

received: int | None = None  # the first signal that asked us to stop

# What a run stopped before any search could report says, as one JSON document.
NOTHING_FOUND = {"status": "unknown", "count": 0, "complete": False, "stopped_by": "interrupt", "solutions": []}


class Terminated(KeyboardInterrupt):
    """SIGTERM: handled exactly as Ctrl-C is, only the exit code differs."""


def _raise(signum, frame) -> None:
    global received
    received = received or signum
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def install() -> None:
    """SIGINT and SIGTERM raise in the main thread (a no-op outside the main thread).

    A signal that was ignored when we started stays ignored, as Unix
    convention wants (``nohup``, or ``cmd &`` in a shell without job control)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            if signal.getsignal(sig) != signal.SIG_IGN:
                signal.signal(sig, _raise)
        except ValueError:  # not the main thread: whoever owns it handles signals
            return


def note(exc: BaseException) -> None:
    """Remember a signal that arrived as an exception (a plain Ctrl-C before :func:`install`)."""
    global received
    if received is None and isinstance(exc, KeyboardInterrupt):
        received = signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT


def exit_code(default: int = 0) -> int:
    """128 + the signal that stopped us, or ``default`` when none came."""
    return 128 + int(received) if received else default


@contextlib.contextmanager
def deferred(reraise: bool = True):
    """Within the block, SIGINT and SIGTERM are only recorded; the block runs to
    its end, and then a signal that came meanwhile is raised as usual (unless
    ``reraise`` is False: the last words of a run that is ending anyway)."""
    caught: list[int] = []

    def hold(signum, frame) -> None:
        global received
        received = received or signum
        caught.append(signum)

    try:
        previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if reraise and caught and previous[caught[0]] is _raise:
        raise Terminated() if caught[0] == signal.SIGTERM else KeyboardInterrupt()
