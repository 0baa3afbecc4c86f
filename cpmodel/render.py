"""Rich rendering: grids, summaries and the two-solver comparison table.

Everything a person reads on the terminal is drawn here; JSON for scripts is
built from :meth:`SolveResult.to_json` and never passes through rich.
"""

from __future__ import annotations

from rich import box
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cpmodel.result import FOUND, NONE, SolveResult


def grid_panel(rows: tuple[str, ...], title: str = "") -> Panel:
    """One rectangle, letters spaced and upper-cased in a rounded box."""
    body = Text("\n".join(" ".join(row.upper()) for row in rows), style="bold")
    return Panel.fit(body, title=title, box=box.ROUNDED, padding=(0, 1))


def summary(result: SolveResult, what: str) -> Text:
    """One honest line: what was found, and whether the search finished."""
    effort = _effort(result)
    if result.status == FOUND:
        done = "search complete" if result.complete else f"stopped by {result.stopped_by}, more may exist"
        if result.objective is not None:
            done = "optimum proven" if result.complete else f"best so far, not proven optimal ({result.stopped_by})"
            head = f"best {what}: largest rank {result.objective[0]}, rank sum {result.objective[1]}"
        else:
            head = f"{result.count} {what}{'s' if result.count != 1 else ''}"
        return Text(f"{head} · {done} · {result.seconds:.2f} s · {effort}", style="green")
    if result.status == NONE:
        return Text(f"none: no {what} exists (search complete) · {result.seconds:.2f} s · {effort}", style="yellow")
    return Text(
        f"unknown: stopped by {result.stopped_by} after {result.seconds:.2f} s with no {what} found; "
        f"this does not prove that none exists · {effort}",
        style="red",
    )


def _effort(result: SolveResult) -> str:
    stats = result.stats
    if "nodes" in stats:
        return f"{result.solver}, {stats['nodes']:,} nodes"
    if "branches" in stats:
        return f"{result.solver} ({stats.get('encoding', '')}), {stats['branches']:,} branches"
    return result.solver


def comparison_table(results: list[SolveResult], agreement: str) -> Table:
    """The --solver both cross-check: one row per solver, then the verdict."""
    table = Table(title="cross-check", box=box.SIMPLE_HEAVY)
    for header in ("solver", "status", "solutions", "complete", "seconds", "nodes / branches"):
        table.add_column(header, justify="right" if header in ("solutions", "seconds") else "left")
    for r in results:
        effort = r.stats.get("nodes", r.stats.get("branches", ""))
        table.add_row(r.solver, r.status, str(r.count), str(r.complete), f"{r.seconds:.3f}", f"{effort:,}" if effort != "" else "")
    fastest = min(results, key=lambda r: r.seconds)
    slowest = max(results, key=lambda r: r.seconds)
    ratio = slowest.seconds / max(fastest.seconds, 1e-9)
    table.caption = f"agreement: {agreement} · {fastest.solver} {ratio:.1f}× faster than {slowest.solver}"
    return table
