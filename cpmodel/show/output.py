"""Where a streamed or sharded run's solutions and answer go: rich grids, one JSON document, or JSON lines.

:class:`Output` is the sink the command line hands to cpmodel.run.sharded:
the driver calls :meth:`Output.solutions` with each batch of validated
solutions, and the command calls :meth:`Output.finish` with the answer.
"""

from __future__ import annotations

from rich.console import Console

from cpmodel.core.jobs import Job
from cpmodel.core.result import SolveResult
from cpmodel.run import interrupts
from cpmodel.show.documents import solve_document, write_json, write_json_lines
from cpmodel.show.gallery import Gallery
from cpmodel.show.render import print_grid, summary


class Output:
    """Where solutions and the summary go: rich grids (a bounded number, cpmodel.show.gallery),
    one JSON document, or JSON lines."""

    def __init__(self, mode: str, stdout: Console, what: str, count_only: bool, stderr: Console | None = None):
        self.mode, self.stdout, self.what, self.count_only = mode, stdout, what, count_only
        self.gallery = Gallery(stdout, what, stderr)

    def solutions(self, rows_list) -> None:
        """Stream a batch of validated solutions (JSON keeps them for the end instead).
        A signal waits until the batch is out: the summary counts no solution that was lost."""
        if self.mode == "jsonl":
            write_json_lines(self.stdout, [{"rows": list(rows)} for rows in rows_list])
        elif self.mode == "rich" and not self.count_only:
            with interrupts.deferred():
                self.gallery.add_batch(rows_list)

    def finish(self, header: dict, job: Job, result: SolveResult, extra: dict) -> None:
        doc = solve_document(header, job.request, [result], None)
        doc.update(extra)
        if self.mode == "jsonl":
            doc.pop("solutions", None)
            write_json(self.stdout, doc)
        elif self.mode == "json":
            write_json(self.stdout, doc)
        else:
            if job.request.best and result.solutions:
                print_grid(self.stdout, result.solutions[0], "best")
            self.gallery.close()
            shown = None if job.request.best or self.count_only else self.gallery.shown
            self.stdout.print(summary(result, self.what, shown), highlight=False)
            self.stdout.print(f"{extra['shards']['total']:,} shards on {extra['where']}"
                              f"{', {:,} from the checkpoint'.format(extra['shards']['resumed']) if extra['shards']['resumed'] else ''}",
                              style="dim", highlight=False)
