"""Run a solver in a worker thread while the main thread shows progress.

The main thread only waits, redraws a one-line progress display on stderr
(count, rate, elapsed) and hands streamed solutions to a printer. Ctrl-C
arrives in the main thread, which sets ``control.stop``; both solvers poll
it, stop, and return what they found with an honest ``unknown``/``found``.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Callable

from rich.console import Console
from rich.live import Live
from rich.text import Text

from cpmodel.control import Control
from cpmodel.result import SolveResult


class Supervisor:
    def __init__(self, control: Control, label: str, stderr: Console, printer: Callable | None = None):
        self.control = control
        self.label = label
        self.stderr = stderr
        self.printer = printer  # called in the main thread for each streamed solution
        self.streamed: queue.Queue = queue.Queue()
        self.interrupted = False

    def stream(self, rows) -> None:
        """Solver-side callback: queue a solution for printing."""
        if self.printer is not None:
            self.streamed.put(rows)

    def run(self, task: Callable[[], SolveResult]) -> SolveResult:
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
        # Wait by sleeping, not Thread.join: a Ctrl-C that interrupts join() can
        # leave is_alive() False while the worker still runs (a CPython pitfall).
        with Live(self._line(), console=self.stderr, transient=True, redirect_stdout=False, redirect_stderr=False) as live:
            while not done.is_set():
                try:
                    time.sleep(0.1)
                    self._print_streamed(live)
                    live.update(self._line())
                except KeyboardInterrupt:
                    self.interrupted = True
                    self.control.stop.set()
            self._print_streamed(live)
        if "error" in outcome:
            raise outcome["error"]
        return outcome["result"]

    def _print_streamed(self, live: Live) -> None:
        if self.streamed.empty():
            return
        live.stop()  # keep the progress line from tearing through printed grids
        while not self.streamed.empty():
            self.printer(self.streamed.get())
        live.start()

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
