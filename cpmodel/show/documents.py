"""The JSON documents (docs/json.md), and writing them whole.

:func:`solve_document` is the stable document of a solve (one engine or a
cross-check); :func:`write_json` and :func:`write_json_lines` put documents
on stdout so that no signal can cut one in half (cpmodel.run.interrupts).
"""

from __future__ import annotations

import io
import json
import math
import os

from rich.console import Console

from cpmodel.core.control import Request
from cpmodel.core.result import FOUND, NONE, UNKNOWN, SolveResult
from cpmodel.run import interrupts

_documents_written = 0


def write_json(stdout: Console, doc: dict) -> None:
    """One JSON document (or one JSON line) on stdout, written whole.

    Signals wait until the write is done (a Ctrl-C can never leave half a
    document), NaN and infinities become null (they are not JSON), and
    rich is bypassed: its JSON printer is slow and keeps big documents in
    memory twice."""
    global _documents_written
    try:
        text = json.dumps(doc, allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(doc))
    with interrupts.deferred():
        write_whole(stdout.file, text + "\n")
        _documents_written += 1  # before a deferred signal is raised: the document is out


def write_json_lines(stdout: Console, docs: list[dict]) -> None:
    """A batch of JSON lines (``--jsonl``), each line whole."""
    text = "".join(json.dumps(doc) + "\n" for doc in docs)
    with interrupts.deferred():
        write_whole(stdout.file, text)


def write_whole(file, text: str) -> None:
    """Write every byte of ``text`` to ``file``, even when a signal arrives meanwhile.

    A deferred signal that lands while a big write waits on a full pipe makes
    Python's buffered writer return early and drop the rest (measured: 64 KB
    of a 4 MB document arrived, and no error). ``os.write`` in a loop reports
    each partial write, so nothing is lost."""
    try:
        fd = file.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):  # a StringIO, a captured stream
        file.write(text)
        file.flush()
        return
    file.flush()  # what the text layer already holds goes first
    view = memoryview(text.encode(getattr(file, "encoding", None) or "utf-8"))
    while view:
        view = view[os.write(fd, view):]


def documents_written() -> int:
    return _documents_written


def _finite(value):
    """``value`` with every NaN or infinity replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def solve_document(header: dict, request: Request, results: list[SolveResult], agreement: str | None,
                   engines: list[str] | None = None) -> dict:
    """The stable JSON document (docs/json.md): status, count, complete, solutions, seconds, ...

    With several engines (a cross-check) the top-level keys speak for all of
    them, also when Ctrl-C stopped the run before every engine had its turn:
    ``solvers`` holds each one's own answer and ``agreement`` the verdict."""
    with_solutions = not request.count_only
    main = results[0]
    doc = dict(header)
    doc.update(main.to_json(with_solutions))
    engines = engines or [r.solver for r in results]
    if len(engines) > 1:
        all_ran = len(results) == len(engines)
        doc["status"] = combined_status(results)
        doc["complete"] = all_ran and all(r.complete for r in results)
        doc["stopped_by"] = main.stopped_by if doc["complete"] else combined_stop(results, all_ran)
        doc["seconds"] = round(sum(r.seconds for r in results), 4)
        doc["solver"] = "both"
        doc["agreement"] = agreement if all_ran and agreement else "undecided (a search did not run or finish)"
        doc["solvers"] = {r.solver: r.to_json(with_solutions) for r in results}
    return doc


def combined_status(results: list[SolveResult]) -> str:
    """found if any engine found one; none if an exact engine proved it (only
    they can say none); else unknown."""
    statuses = {r.status for r in results}
    if FOUND in statuses:
        return FOUND
    return NONE if NONE in statuses else UNKNOWN


def combined_stop(results: list[SolveResult], all_ran: bool) -> str:
    """Why a cross-check is incomplete: the first engine that was cut short says."""
    return next((r.stopped_by for r in results if not r.complete and r.stopped_by), "interrupt" if not all_ran else None)
