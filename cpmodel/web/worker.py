"""One solve in its own process: the command line itself, run on an argv the server built.

The server never solves anything: each job is a ``python -m cpmodel ...``
command line (built by cpmodel.web.forms from checked fields, never from a
file name a request gave), run by :func:`run_command` in a process forked from
a warm fork server (ortools and the commands already imported). So a page
gets exactly the CLI's spec, engines, validator, exit codes and ``--json``
document (docs/json.md). stdout and stderr go to anonymous files; while the
search runs, cpmodel.run.watch hands its progress and solutions to the pipe.
A SIGTERM from the server (Cancel, a closed tab, the server stopping) is the
CLI's own SIGTERM: the search stops, and the document keeps what was found.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import threading
import time

# imported once in the fork server, so that every job starts warm
from cpmodel.commands import auto, banana, cli, common, explain, grid, rect, sharded, words, wordscapes  # noqa: F401
from cpmodel.run import watch


def _warm() -> None:
    """What every job would load again: the default word list, sorted for the grid games, and
    the Bananagrams word table."""
    import gc

    from cpmodel.core.lexicon import load_default

    default_words = load_default().words
    grid.sorted_words(default_words)
    banana.table_of(default_words)
    gc.freeze()  # the forked workers share these pages; keep the collector from touching them


_warm()

MAX_STREAMED = 200  # solutions sent live per job; the final document has them all
PROGRESS_EVERY = 0.25  # seconds between progress events


def run_command(argv: list[str], files: dict[str, str], conn) -> None:
    """Run the CLI on ``argv`` and send ``("done", {...})`` on ``conn``.

    ``files``: text the CLI must read from a file (a Wordscapes board, a
    layout), written here into a fresh private directory; ``{name}`` in
    ``argv`` becomes that file's path."""
    _die_with_parent()
    send = _sender(conn)
    folder = tempfile.mkdtemp(prefix="cpmodel-web-")
    try:
        paths = {}
        for name, text in files.items():
            paths[name] = os.path.join(folder, f"{name}.txt")
            with open(paths[name], "w", encoding="utf-8") as handle:
                handle.write(text)
        argv = [paths.get(arg[1:-1], arg) if arg.startswith("{") and arg.endswith("}") else arg for arg in argv]
        send("started", {"pid": os.getpid()})
        code, out, err = _captured(argv, send)
        send("done", {"code": code, **_parse(out, err)})
    finally:
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)
        conn.close()


def _captured(argv: list[str], send) -> tuple[int, str, str]:
    """The CLI's exit code, stdout and stderr, with a watcher streaming to ``send``."""
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    watch.watch(_watcher(send))
    code = cli.main(argv)
    watch.watch(None)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    texts = []
    for handle in (out, err):
        handle.seek(0)
        texts.append(handle.read().decode("utf-8", "replace"))
    return code, texts[0], texts[1]


def _parse(out: str, err: str) -> dict:
    """The last JSON document on stdout (``--jsonl`` writes lines before it), and
    stderr's ``error:`` line (the one-line message of bad input) and warnings."""
    lines = [line for line in out.splitlines() if line.strip()]
    doc = None
    if lines:
        try:
            doc = json.loads(lines[-1])
        except ValueError:
            try:
                doc = json.loads(out)
            except ValueError:
                doc = None
    err_lines = [line.strip() for line in err.splitlines() if line.strip()]
    message = next((line for line in err_lines if line.startswith(("error:", "internal error:"))), None)
    warnings = [line for line in err_lines if line.startswith("warning:")]
    return {"doc": doc, "message": message, "warnings": warnings}


def _sender(conn):
    lock = threading.Lock()

    def send(kind: str, data: dict) -> None:
        with lock:
            try:
                conn.send((kind, data))
            except (OSError, ValueError):
                pass  # the server went away; the job ends with the CLI's own signal handling

    return send


def _watcher(send):
    """Throttle what the search tells: every progress event at most each PROGRESS_EVERY
    seconds, the first MAX_STREAMED solutions."""
    state = {"last": 0.0, "sent": 0}

    def tell(kind: str, data: dict) -> None:
        if kind == "progress":
            now = time.monotonic()
            if now - state["last"] >= PROGRESS_EVERY:
                state["last"] = now
                send("progress", data)
            return
        batch = [data["rows"]] if kind == "solution" else data.get("batch", [])
        room = MAX_STREAMED - state["sent"]
        if room > 0 and batch:
            state["sent"] += len(batch[:room])
            send("solutions", {"batch": batch[:room]})

    return tell


def _die_with_parent() -> None:
    """SIGTERM when the fork server dies (the server was killed): no orphan keeps solving."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
