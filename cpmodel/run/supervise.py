"""Run a solver in a worker thread while the main thread shows progress.

The main thread only waits, redraws a one-line progress display on stderr
(count, rate, elapsed) and hands streamed solutions to a printer. It holds
the stop signals (cpmodel.run.interrupts) and polls them: a signal never
lands in the middle of printing a solution; the main thread sets
``control.stop``; the solvers poll it, stop, and return what they found
with an honest ``unknown``/``found``. An engine that cannot poll for a
while (CP-SAT copying a huge model) is given GRACE seconds, then left
behind: the user gets a prompt answer built from what it reported.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

from rich.console import Console
from rich.live import Live
from rich.text import Text

from cpmodel.core.control import Control
from cpmodel.core.result import SolveResult, status_of
from cpmodel.run import interrupts, watch

GRACE = 1.0  # seconds a stopped engine gets to hand back what it found
TIME_UP_GRACE = 0.5  # the same at its time limit, which the command as a whole must keep (+1 s)
abandoned = False  # an engine thread was left running: the process must end with os._exit


class Supervisor:
    def __init__(self, control: Control, label: str, stderr: Console, printer: Callable | None = None,
                 engine: str | None = None, batch_printer: Callable | None = None, start: tuple | None = None):
        self.control = control
        self.signals = interrupts.Mark()  # the stop signals since the caller began holding them, or since now
        self.label = label
        self.engine = engine  # the engine's name: its SolveResult can be made up if it must be abandoned
        self.stderr = stderr
        self.printer = printer  # called in the main thread for each streamed solution
        # or for each batch of them: JSON lines go out in one write (per-line writes could not
        # keep up with the backtracker: 159,345 lines took 10 s)
        self.batch_printer = batch_printer
        self.streamed: queue.Queue = queue.Queue()
        # every solution streamed so far, for an abandoned engine's result; a run that improves on a
        # layout it was given (``start``: --compact's) still has that one if it must be abandoned
        self.shown: list = [] if start is None else [start]
        self.interrupted = False
        self.stopped_at: float | None = None  # when a stop was asked for

    def stream(self, rows) -> None:
        """Solver-side callback: queue a solution for printing (and tell a watcher)."""
        watch.tell("solution", rows=list(rows))
        if self.printer is not None or self.batch_printer is not None:
            self.streamed.put(rows)

    def run(self, task: Callable[[], SolveResult]) -> SolveResult:
        """Run ``task`` in a worker thread until it returns, or until it has
        ignored a stop (Ctrl-C, SIGTERM, or its own time limit) for GRACE
        seconds: some phases cannot poll (a big CP-SAT model being built or
        copied), and the user must not wait for them. An abandoned engine's
        result is built from what it reported: never complete, never ``none``.
        Without an ``engine`` name (a task that returns something else) it waits."""
        outcome: dict = {}
        done = threading.Event()

        def work() -> None:
            try:
                outcome["result"] = task()
            except BaseException as exc:  # re-raised in the main thread
                outcome["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, daemon=True).start()
        with interrupts.deferred(reraise=False), \
                Live(self._line(), console=self.stderr, transient=True, redirect_stdout=False,
                     redirect_stderr=False) as live:
            while not done.is_set() and not self._overdue():
                if self.signals.asked and not self.interrupted:
                    self._stop()
                done.wait(0.05)
                self._print_streamed(live)
                live.update(self._line())
                self._tell_progress()
            self._print_streamed(live)
        if "error" in outcome:
            raise outcome["error"]
        return outcome["result"] if done.is_set() else self._abandoned()

    def _stop(self) -> None:
        self.interrupted = True
        self.control.stop.set()
        self.stopped_at = self.stopped_at or time.monotonic()

    def _overdue(self) -> bool:
        """True once the engine has had GRACE seconds to honour a stop."""
        if self.engine is None:
            return False
        if self.stopped_at is None and self.control.stop_reason() == "time-limit":
            self.stopped_at = time.monotonic() - (GRACE - TIME_UP_GRACE)
        return self.stopped_at is not None and time.monotonic() - self.stopped_at > GRACE

    def _abandoned(self) -> SolveResult:
        global abandoned
        abandoned = True
        assert self.engine is not None  # only an engine's run is abandoned (see _overdue)
        count = max(self.control.solutions, len(self.shown))
        return SolveResult(self.engine, status_of(count, exhausted=False), complete=False, count=count,
                           solutions=list(self.shown), seconds=self.control.elapsed(),
                           stopped_by=self.control.stop_reason() or "interrupt",
                           stats={"abandoned": f"did not stop within {GRACE:g} s of being asked"})

    def _print_streamed(self, live: Live) -> None:
        """Print the solutions queued so far (signals are held meanwhile: one landing between
        taking a solution and printing it would lose that line, while the summary still
        counted it). Only those queued at the start: an engine that streams faster than we
        print would otherwise keep us from polling the signals."""
        queued = self.streamed.qsize()
        if not queued:
            return
        live.stop()  # keep the progress line from tearing through printed grids
        batch = [self.streamed.get() for _ in range(queued)]
        self.shown.extend(batch)
        if self.batch_printer is not None:
            self.batch_printer(batch)
        else:
            assert self.printer is not None  # stream() queues only when there is a printer
            for rows in batch:
                self.printer(rows)
        live.start()

    def _tell_progress(self) -> None:
        """The progress line's counters, for a watcher (cpmodel.run.watch)."""
        if watch.watching():
            value = self.control.objective
            watch.tell("progress", line=str(self._line()), found=self.control.solutions, nodes=self.control.nodes,
                       objective=list(value) if isinstance(value, tuple) else value, bound=self.control.bound,
                       seconds=round(self.control.elapsed(), 2))

    def _line(self) -> Text:
        elapsed = self.control.elapsed()
        found = self.control.solutions
        rate = found / elapsed if elapsed > 0 else 0.0
        nodes = f" · {self.control.nodes:,} nodes" if self.control.nodes else ""
        stopping = " · stopping…" if self.control.stop.is_set() else ""
        return Text(f"{self.label} · {found:,} found ({rate:,.1f}/s){nodes}{self._objective()}"
                    f" · {elapsed:.1f}\u00a0s{stopping}", style="cyan")

    def _objective(self) -> str:
        """' · objective 1,234 · bound 1,100 (gap 10.9%)' while --best runs."""
        value, bound = self.control.objective, self.control.bound
        if value is None:
            return ""
        if isinstance(value, tuple):  # a backtracker's (largest rank, rank sum); it proves no bound
            return f" · best: largest rank {value[0]:,}, rank sum {value[1]:,}"
        text = f" · objective {value:,.0f}"
        if bound is not None:
            gap = (value - bound) / max(abs(value), 1)
            text += f" · bound {bound:,.0f} (gap {gap:.1%})"
        return text
