"""What every CP-SAT solve here shares: parameters, logging and Ctrl-C.

``prepare`` sets the parameters that are the same for every model: CP-SAT
must not grab SIGINT (Ctrl-C is ours, so we keep what was found), its log
goes to stderr (so ``--json`` on stdout stays clean), and the time limit is
what is left of the caller's. ``stop_on`` turns the caller's stop event into
``solver.stop_search()``. ``--param key=value`` reaches CP-SAT through
:func:`parse_params` (checked once, at the command line) and
:func:`apply_params` (last, so the user's word overrides the model's choice).
"""

from __future__ import annotations

import sys
import threading

from ortools.sat.python import cp_model

from cpmodel.core.control import Control


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


def parse_params(pairs: list[str]) -> tuple[str, ...]:
    """``["cp_model_presolve=false", ...]`` → SatParameters text lines, checked.

    A key CP-SAT does not know, a value of the wrong type, or one CP-SAT's own
    parameter check rejects (``num_workers=-1``) raises a one-line InputError.
    """
    import difflib

    from google.protobuf import text_format
    from ortools.sat import sat_parameters_pb2

    from cpmodel.core.errors import InputError

    lines = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"--param takes key=value (a CP-SAT parameter), got {pair!r}")
        line = f"{key.strip()}: {value.strip()}"
        known = sat_parameters_pb2.SatParameters.DESCRIPTOR.fields_by_name
        if key.strip() not in known:
            close = difflib.get_close_matches(key.strip(), list(known), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise InputError(f"--param {pair}: CP-SAT has no parameter {key.strip()!r}{hint}")
        try:
            text_format.Parse(line, sat_parameters_pb2.SatParameters())
        except text_format.ParseError as exc:
            message = str(exc).split(" : ", 1)[-1]
            raise InputError(f"--param {pair}: bad value: {message}") from None
        lines.append(line)
    problem = _rejected(tuple(lines))
    if problem:
        raise InputError(f"--param: CP-SAT rejects the parameters: {problem}")
    return tuple(lines)


def _rejected(lines: tuple[str, ...]) -> str | None:
    """CP-SAT's own verdict on the parameters: solve an empty model with them."""
    solver = cp_model.CpSolver()
    apply_params(solver, lines)
    status = solver.solve(cp_model.CpModel())
    return solver.solution_info() if status == cp_model.MODEL_INVALID else None


def apply_params(solver: cp_model.CpSolver, lines: tuple[str, ...] = ()) -> None:
    """The user's ``--param`` lines, applied after the model's own settings."""
    for line in lines:
        solver.parameters.merge_text_format(line)


def report_bound(solver: cp_model.CpSolver, control: Control) -> None:
    """Keep ``control.bound`` at CP-SAT's best proven objective bound (for the progress line)."""

    def on_bound(bound: float) -> None:
        control.bound = bound

    solver.best_bound_callback = on_bound


def stop_on(stop: threading.Event, solver: cp_model.CpSolver, control: Control | None = None) -> threading.Event:
    """Call solver.stop_search() when ``stop`` is set (Ctrl-C) or the caller's
    clock, which may move while searching, runs out; returns a release event.

    It keeps calling while the solve lasts: a stop that comes while the model
    is still being copied into CP-SAT (before its search exists) would
    otherwise be lost, and with it every later Ctrl-C."""
    release = threading.Event()

    def watch() -> None:
        while not release.is_set():
            if stop.wait(0.05) or (control is not None and control.stop_reason()):
                solver.stop_search()
                release.wait(0.05)

    threading.Thread(target=watch, daemon=True).start()
    return release


def solve_with_stop(solver: cp_model.CpSolver, model: cp_model.CpModel, control: Control, callback=None):
    """solver.solve, stoppable by the caller's Ctrl-C."""
    release = stop_on(control.stop, solver, control)
    try:
        return solver.solve(model, callback) if callback is not None else solver.solve(model)
    finally:
        release.set()
