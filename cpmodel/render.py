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
        if result.stopped_by == "limit":
            done = "stopped as requested, more may exist (--all for every one)"
        else:
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
        encoding = f" ({stats['encoding']})" if stats.get("encoding") else ""
        return f"{result.solver}{encoding}, {stats['branches']:,} branches"
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


def words_by_length(found) -> Table:
    """Words from a rack, one row per length, longest first; blank letters dimmed."""
    table = Table(box=box.SIMPLE, show_header=True)
    table.add_column("len", justify="right")
    table.add_column("words")
    lengths = sorted({len(f.word) for f in found}, reverse=True)
    for length in lengths:
        line = Text()
        for f in (f for f in found if len(f.word) == length):
            for k, ch in enumerate(f.word):
                line.append(ch, style="italic magenta" if k in f.blanks else "bold")
            line.append("  ")
        table.add_row(str(length), line)
    return table


def board_panel(board, title: str = "") -> Panel:
    """A grid-game board: tiles, with their multipliers."""
    lines = []
    for r in range(board.rows):
        line = Text()
        for c in range(board.cols):
            tile = board.tile(r, c)
            mark = f"+{tile.letter_mult}" if tile.letter_mult > 1 else f"*{tile.word_mult}" if tile.word_mult > 1 else ""
            style = "bold cyan" if tile.letter_mult > 1 else "bold red" if tile.word_mult > 1 else "bold"
            line.append(f"{(tile.text.capitalize() if len(tile.text) > 1 else tile.text.upper()):<2}{mark:<3}", style=style)
        lines.append(line)
    return Panel.fit(Text("\n").join(lines), title=title, box=box.ROUNDED)


def path_drawing(board, path) -> Text:
    """The board with the word's path numbered 1, 2, … and other tiles dimmed."""
    step = {cell: k for k, cell in enumerate(path, 1)}
    text = Text()
    for r in range(board.rows):
        for c in range(board.cols):
            tile = board.tile(r, c).text
            if (r, c) in step:
                text.append(f"{tile.upper()}{step[(r, c)]:<2}", style="bold green")
            else:
                text.append(f"{tile:<3}", style="dim")
        if r < board.rows - 1:
            text.append("\n")
    return text


def grid_words_table(board, words, show: int) -> Table:
    table = Table(box=box.SIMPLE_HEAVY, title=f"{len(words)} words · total {sum(w.score for w in words)}")
    for header in ("word", "score", "path"):
        table.add_column(header, justify="right" if header == "score" else "left")
    for w in words[:show]:
        table.add_row(w.word, str(w.score), path_drawing(board, w.path))
    if len(words) > show:
        table.caption = f"{len(words) - show} more (use --show N or --json)"
    return table
