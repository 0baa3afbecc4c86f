"""What every CP-SAT solve here shares: parameters, logging and Ctrl-C.

``prepare`` sets the parameters that are the same for every model: CP-SAT
must not grab SIGINT (Ctrl-C is ours, so we keep what was found), its log
goes to stderr (so ``--json`` on stdout stays clean), and the time limit is
what is left of the caller's. ``stop_on`` turns the caller's stop event into
``solver.stop_search()``.
"""

from __future__ import annotations

import sys
import threading

from ortools.sat.python import cp_model

from cpmodel.control import Control


def prepare(solver: cp_model.CpSolver, control: Control, log: bool, workers: int) -> None:
    params = solver.parameters
    params.num_workers = workers
    params.catch_sigint_signal = False
    params.log_search_progress = log
    if log:
        params.log_to_stdout = False
        solver.log_callback = lambda line: print(line, file=sys.stderr, flush=True)
    if control.time_limit is not None:
        params.max_time_in_seconds = max(control.time_limit - control.elapsed(), 0.001)


def stop_on(stop: threading.Event, solver: cp_model.CpSolver, control: Control | None = None) -> threading.Event:
    """Call solver.stop_search() when ``stop`` is set (Ctrl-C) or the caller's
    clock, which may move while searching, runs out; returns a release event."""
    release = threading.Event()

    def watch() -> None:
        while not release.is_set():
            if stop.wait(0.05) or (control is not None and control.stop_reason()):
                solver.stop_search()
                return

    threading.Thread(target=watch, daemon=True).start()
    return release


def solve_with_stop(solver: cp_model.CpSolver, model: cp_model.CpModel, control: Control, callback=None):
    """solver.solve, stoppable by the caller's Ctrl-C."""
    release = stop_on(control.stop, solver, control)
    try:
        return solver.solve(model, callback) if callback is not None else solver.solve(model)
    finally:
        release.set()
