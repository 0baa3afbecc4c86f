"""Solutions for a person to read, drawn up to a bound, so that a big run still stops at once.

Drawing a rectangle as a rich box costs about a millisecond; 16 million of
them would take hours, and a Ctrl-C would wait for every one found so far.
So a :class:`Gallery` draws the first :data:`FIRST` solutions and then:

* on a terminal, only counts the others and draws the last one at the end;
* in a file or a pipe, writes each further solution as one compact line,
  its rows joined by ``/`` (as ``--pattern`` writes them), a whole batch per
  write: a file keeps every solution, and a signal still ends the run within
  moments.

``--count`` counts faster, and ``--jsonl``/``--json`` list every solution for
scripts. The summary says how many were found and how many were shown
(:attr:`Gallery.shown`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.console import Console

from cpmodel.show.render import Parts, print_grid

FIRST = 20  # solutions drawn as pictures before a terminal only counts (and a file gets lines)


def draw_solution(stdout: Console, rows, title: str, describe: Callable | None = None) -> None:
    """One solution as a picture, with its description (Wordscapes: its words) under it."""
    print_grid(stdout, rows, title)
    if describe is not None:
        stdout.print(describe(rows), highlight=False)


def compact_line(rows) -> str:
    """One solution on one line: ``safari/origin/relive/taller/assert``."""
    return "/".join(rows)


class Gallery:
    """Draws solutions as they come, up to :data:`FIRST`; then counts (terminal) or writes lines."""

    def __init__(self, stdout: Console, what: str, stderr: Console | None = None,
                 describe: Callable | None = None, title: str = "", first: int = FIRST):
        self.stdout, self.what, self.stderr, self.describe = stdout, what, stderr, describe
        self.title, self.first = title, first  # title: "both " or "cp " before "#k" in a cross-check
        self.terminal = stdout.is_terminal
        self.found = 0  # solutions handed in
        self.drawn = 0  # of those, drawn as pictures
        self.lines = 0  # written as compact lines (a file or a pipe)
        self.last = None  # the latest solution not drawn (a terminal draws it at the end)

    @property
    def shown(self) -> int:
        """Solutions a reader sees: pictures and compact lines."""
        return self.drawn + self.lines

    def add(self, rows) -> None:
        self.add_batch((rows,))

    def add_batch(self, batch: Iterable) -> None:
        """A batch of solutions, in order; beyond the bound it costs one write, or nothing."""
        batch = list(batch)
        head = max(0, min(len(batch), self.first - self.found))
        for rows in batch[:head]:
            self.found += 1
            self._draw(rows, f"{self.title}#{self.found:,}")
        rest = batch[head:]
        if not rest:
            return
        if self.found == self.first:
            self._announce()
        self.found += len(rest)
        if self.terminal:
            self.last = rest[-1]
        else:
            self.stdout.file.write("".join(compact_line(rows) + "\n" for rows in rest))
            self.stdout.file.flush()
            self.lines += len(rest)

    def close(self) -> None:
        """The end of the run: a terminal gets the last solution drawn, after a line saying how many it skipped."""
        if self.last is None:
            return
        skipped = self.found - self.drawn - 1
        self.stdout.print(Parts([f"⋮ {skipped:,} more {plural(self.what, skipped)} not drawn", "the last one:"],
                                style="dim"), highlight=False)
        self._draw(self.last, f"{self.title}#{self.found:,}")
        self.last = None

    def _draw(self, rows, title: str) -> None:
        draw_solution(self.stdout, rows, title, self.describe)
        self.drawn += 1

    def _announce(self) -> None:
        """The first solution past the bound: say on stderr what happens to the rest."""
        if self.stderr is None:
            return
        rest = ([f"drawing the first {self.first} and the last", "--count counts them", "--jsonl lists every one"]
                if self.terminal else ["the rest one per line, rows joined by /"])
        self.stderr.print(Parts([f"more than {self.first} {self.what}s", *rest], style="yellow"), highlight=False)


def plural(what: str, count: int) -> str:
    return what if count == 1 else f"{what}s"
