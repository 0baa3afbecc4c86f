"""``python -m cpmodel`` runs the command line.

Signals are taken over before anything heavy is imported (rich, the
commands), so that a Ctrl-C or SIGTERM at any moment, even during the
imports, ends quietly with exit code 130 or 143 (cpmodel.run.interrupts).
"""

import time

BEGAN = time.monotonic()  # a --time-limit counts from here (cpmodel.core.clock)

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

from cpmodel.run import interrupts  # noqa: E402


def entry() -> int:
    interrupts.install()
    try:
        from cpmodel.commands.cli import main
    except KeyboardInterrupt as exc:
        interrupts.note(exc)
        if "--json" in sys.argv or "--jsonl" in sys.argv:
            print(json.dumps(interrupts.NOTHING_FOUND), flush=True)
        print("interrupted while starting: nothing was done (unknown)", file=sys.stderr)
        # end now, not through Python's shutdown: a KeyboardInterrupt that landed inside a
        # pybind11 module's import-time exec (pybind11_abseil, under ortools) leaves CPython's
        # "unhandled Ctrl-C" flag set, and the process would then kill itself with SIGINT
        # (status -2) instead of exiting with 130; nothing has started that needs a clean-up
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(interrupts.exit_code())
    try:
        code = main(began=BEGAN)
        interrupts.block_late_signals()
    except KeyboardInterrupt as exc:  # a signal just after the run ended: its answer is out already
        interrupts.block_late_signals()
        interrupts.note(exc)
        code = interrupts.exit_code()
    if _engine_left_running() or _nothing_to_clean_up():
        # a native solver (or numba's compiler) still runs in a thread it was asked to
        # leave: Python's shutdown would wait for it, or abort; the answer is out, so end now
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _engine_left_running() -> bool:
    supervise = sys.modules.get("cpmodel.run.supervise")
    return bool(supervise and supervise.abandoned) or interrupts.left_running


def _nothing_to_clean_up() -> bool:
    """The command said its process has nothing left to do at exit (``grid --score-file``:
    its answer is printed, and Python's shutdown would only free memory, 0.2–0.3 s with
    numba loaded), and no coverage tracer waits to write its data at exit."""
    grid = sys.modules.get("cpmodel.commands.grid")
    coverage = sys.modules.get("coverage")  # numba imports it when it is installed: is it tracing?
    tracing = coverage is not None and getattr(coverage, "Coverage", None) is not None and coverage.Coverage.current()
    return bool(grid and grid.nothing_to_clean_up) and not tracing


if __name__ == "__main__":
    sys.exit(entry())
