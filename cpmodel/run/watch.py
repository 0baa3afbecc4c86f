"""A second pair of eyes on a running search: progress and solutions for a host
that shows them somewhere other than the terminal.

The command line shows a search on stderr (cpmodel.run.supervise, the sharded
progress line). A host that runs the same commands where nobody reads stderr
(the web app's workers, cpmodel/web/worker.py) sets one watcher with
:func:`watch`; the supervisor and the sharded driver then :func:`tell` it each
solution they see and, a few times a second, the counters of the progress
line. With no watcher every call is a no-op, so the CLI is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

_watcher: Callable[[str, dict], None] | None = None


def watch(watcher: Callable[[str, dict], None] | None) -> None:
    """Set (or, with None, clear) the one watcher: ``watcher(kind, data)``."""
    global _watcher
    _watcher = watcher


def watching() -> bool:
    return _watcher is not None


def tell(kind: str, **data) -> None:
    """``progress`` (counters), ``solution`` (rows) or another event, to the watcher if any."""
    if _watcher is not None:
        _watcher(kind, data)
