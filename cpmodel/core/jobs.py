"""A job: one solve described as plain data, so that it can run anywhere.

A :class:`Job` names the puzzle, carries its spec, says what is asked (the
:class:`~cpmodel.core.control.Request` without its streaming callback), which
engine should answer, and that engine's options. It holds no callbacks, no
open files and no argparse namespace, so it pickles: the same job runs in
this process, in a process pool or on a Dask worker. The command layer
builds it once from the command line; nothing below that layer sees ``args``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from cpmodel.core.control import Control, Request


@dataclass(frozen=True)
class Job:
    puzzle: str  # "rect", "wordscapes" or "banana"
    spec: Any  # RectangleSpec, WordscapesSpec, BananaSpec or BestBoardSpec, as ``puzzle`` says
    engine: str  # a name registered in cpmodel.run.engines
    request: Request = Request()  # what is asked; on_solution stays None here
    time_limit: float | None = None  # seconds for this job, None = no limit
    options: dict = field(default_factory=dict)  # engine options: encoding, orientation, log, mode, ...

    def with_engine(self, engine: str) -> Job:
        """The same question, put to another engine."""
        return replace(self, engine=engine)

    def option(self, name: str, default=None):
        return self.options.get(name, default)

    def new_control(self, **kwargs) -> Control:
        """A fresh Control for running this job: its time limit and, for the
        familiar-words default, the improvement deadline after the first solution."""
        return Control(time_limit=self.time_limit, improve_for=self.request.improve_for, **kwargs)
