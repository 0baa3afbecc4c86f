"""Rich rendering: grids, summaries and the two-solver comparison table.

Everything a person reads on the terminal is drawn here; JSON for scripts is
built from :meth:`SolveResult.to_json` and never passes through rich.

It must read well at 80 columns, which is also rich's width when output is
piped. Summary lines are :class:`Parts`: short pieces joined by " · " that
break only between pieces, so a number never wraps away from its unit
(rich breaks at any Unicode space, the no-break space included).
"""

from __future__ import annotations

import re

from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cpmodel.core.result import FOUND, GAVE_UP, NONE, SolveResult


def grid_panel(rows: tuple[str, ...], title: str = "") -> Panel:
    """One rectangle, letters spaced and upper-cased in a rounded box."""
    body = Text("\n".join(" ".join(row.upper()) for row in rows), style="bold")
    return Panel.fit(body, title=Text(title), box=box.ROUNDED, padding=(0, 1))


def print_grid(console: Console, rows: tuple[str, ...], title: str = "") -> None:
    """A grid as :func:`grid_panel` when the panel fits the console's width;
    otherwise its rows as they are, one per line, never wrapped or cut.

    A panel wider than the console (a 144-tile layout at 80 columns, or in a
    file, where rich also assumes 80) would be wrapped inside its border, and
    the picture would no longer be the validated grid."""
    width = max((len(row) for row in rows), default=0)
    if 2 * width + 3 <= console.width:  # spaced letters, padding and borders
        console.print(grid_panel(rows, title))
        return
    if title:
        console.print(Text(title, style="dim"), soft_wrap=True)
    console.print(Text("\n".join(row.upper() for row in rows), style="bold"), soft_wrap=True)


class Parts:
    """A line of short pieces joined by " · ", wrapped only between pieces.

    >>> from rich.console import Console
    >>> console = Console(width=24, color_system=None)
    >>> console.print(Parts(["3 rectangles", "search complete", "15.61 s"]))
    3 rectangles
    · search complete
    · 15.61 s
    """

    def __init__(self, parts: list[str], style: str = ""):
        self.parts, self.style = [p for p in parts if p], style

    @property
    def plain(self) -> str:
        return " · ".join(self.parts)

    def __rich_console__(self, console, options):
        width = options.max_width
        lines, line = [], ""
        for part in self.parts:
            joined = f"{line} · {part}" if line else part
            if line and len(joined) > width:
                lines.append(line)
                joined = f"· {part}"
            if len(joined) > width:  # a piece wider than the screen: break it between words
                *full, joined = _pack(_NUMBER_WITH_UNIT.findall(joined), width)
                lines += full
            line = joined
        lines.append(line)
        yield Text("\n".join(lines), style=self.style)


_NUMBER_WITH_UNIT = re.compile(r"\d[\d,.]*\s\S+|\S+")  # "15.61 s" stays one token


def _pack(tokens: list[str], width: int) -> list[str]:
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > width:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    return lines + [line]


def summary(result: SolveResult, what: str, shown: int | None = None) -> Parts:
    """One honest line: what was found, and whether the search finished.

    ``shown``: how many solutions were printed, when that is fewer than were
    found (cpmodel.show.gallery draws a bounded number)."""
    effort = _effort(result)
    seconds = f"{result.seconds:.2f} s"
    if result.status == FOUND:
        if result.stopped_by == "limit":
            done = ["stopped as requested", "more may exist (--all for every one)"]
        else:
            done = ["search complete"] if result.complete else [f"stopped by {result.stopped_by}", "more may exist"]
        if result.objective is not None:
            done = ["optimum proven"] if result.complete else [f"best so far, not proven optimal ({result.stopped_by})"]
            head = [f"best {what}", f"largest rank {result.objective[0]:,}, rank sum {result.objective[1]:,}"]
        else:
            head = [f"{result.count:,} {what}{'s' if result.count != 1 else ''}"]
            if shown is not None and shown < result.count:
                head.append(f"{shown:,} shown")
        return Parts([*head, *done, seconds, effort], style="green")
    if result.status == NONE:
        return Parts([f"none: no {what} exists", "search complete", seconds, effort], style="yellow")
    stopped = "the heuristic search ran dry" if result.stopped_by == GAVE_UP else f"stopped by {result.stopped_by}"
    return Parts([f"unknown: {stopped}", f"after {seconds}", f"no {what} found",
                  "this does not prove that none exists", effort], style="red")


def finished(result: SolveResult) -> bool:
    """Its seconds are the whole job's: neither the clock nor Ctrl-C cut it short."""
    return result.stopped_by not in ("time-limit", "interrupt")


def speed_ratio(slow: SolveResult, fast: SolveResult) -> str:
    """slow / fast as "15.2×", or as a bound when a run was cut short:
    "> 15×" when only the slower one stopped early (it would have taken
    longer), "?" when the faster one did (the order itself is unknown)."""
    ratio = slow.seconds / max(fast.seconds, 1e-6)
    if not finished(fast):
        return "?"
    return f"{ratio:.1f}×" if finished(slow) else f"> {ratio:.1f}×" if ratio < 10 else f"> {ratio:.0f}×"


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
        table.add_column(header, justify="right" if header in ("solutions", "seconds") else "left", no_wrap=True)
    for r in results:
        effort = r.stats.get("nodes", r.stats.get("branches", ""))
        table.add_row(r.solver, r.status, f"{r.count:,}", str(r.complete), f"{r.seconds:.3f}", f"{effort:,}" if effort != "" else "")
    fastest = min(results, key=lambda r: r.seconds)
    slowest = max(results, key=lambda r: r.seconds)
    ratio = speed_ratio(slowest, fastest)
    speed = (f"{fastest.solver} {ratio} faster than {slowest.solver}" if ratio != "?"
             else "speeds not comparable (the faster run was stopped early)")
    table.caption = f"agreement: {agreement} · {speed}"
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


def words_in_order(found) -> Text:
    """Words from a rack in the given order (``--sort common``), blank letters dimmed."""
    line = Text()
    for k, f in enumerate(found):
        if k:
            line.append("  ")
        for position, ch in enumerate(f.word):
            line.append(ch, style="italic magenta" if position in f.blanks else "bold")
    return line


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
    return Panel.fit(Text("\n").join(lines), title=Text(title), box=box.ROUNDED)


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
    table = Table(box=box.SIMPLE_HEAVY, title=f"{len(words):,} words · total {sum(w.score for w in words):,}")
    for header in ("word", "score", "path"):
        table.add_column(header, justify="right" if header == "score" else "left")
    for w in words[:show]:
        table.add_row(w.word, str(w.score), path_drawing(board, w.path))
    if len(words) > show:
        table.caption = f"{len(words) - show:,} more (use --show N or --json)"
    return table


ENGINE_TITLES = {"backtrack": "backtrack", "cp": "cp", "cpsat": "CP-SAT"}


def compare_table(rows, time_limit: float, run_cap: float) -> Table:
    """``compare``: one row per case, each engine's status, seconds and effort
    stacked in one cell, so that three engines fit 80 columns."""
    engines = [name for name in ENGINE_TITLES if any(name in r.results or name in r.case.not_run for r in rows)]
    reasons = list(dict.fromkeys(reason for r in rows for reason in r.case.not_run.values()))
    table = Table(title=f"the exact engines side by side (time limit {time_limit:g} s for the suite, "
                        f"at most {run_cap:g} s per engine and case)",
                  box=box.SIMPLE_HEAVY, caption=_compare_caption(reasons))
    table.add_column("case", overflow="fold")
    table.add_column("agreement")
    for name in engines:  # the third line of each cell is the engine's effort, named in its header
        effort = "nodes" if name == "backtrack" else "branches"
        table.add_column(f"{ENGINE_TITLES[name]}\n{effort}", justify="right", no_wrap=True)
    table.add_column("model\n/bt", justify="right", no_wrap=True)
    for r in rows:
        cells = [_engine_cell(r, name, reasons) for name in engines]
        table.add_row(Text(f"{r.puzzle}\n{r.case.label}"), r.agreement, *cells, _model_ratio_cell(r))
    return table


def _compare_caption(reasons: list[str]) -> str:
    lines = ["model/bt: the fastest model engine (cp or CP-SAT) over the backtracker; "
             "> or < when a run was stopped by the time limit"]
    lines += [f"({k}) not run: {reason}" for k, reason in enumerate(reasons, 1)]
    return "\n".join(lines)


def _engine_cell(row, name: str, reasons: list[str]) -> Text:
    """status and count, seconds, effort; or why the engine sat the case out."""
    if name in row.case.not_run:
        return Text(f"not run ({reasons.index(row.case.not_run[name]) + 1})", style="dim")
    if name not in row.results:
        return Text("")
    result = row.results[name]
    effort = result.stats.get("nodes", result.stats.get("branches", 0))
    return Text(f"{result.status} {result.count:,}\n{result.seconds:.3f} s\n{_compact(effort)}")


def _compact(number: int) -> str:
    """12,262,926 → 12.3M; 77,158 → 77.2k: effort counts that fit a narrow column."""
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if number >= size:
            return f"{number / size:.1f}{unit}" if number < 100 * size else f"{number / size:.0f}{unit}"
    return str(number)


def _model_ratio_cell(row) -> str:
    """The fastest model engine's seconds over the backtracker's, and which engine."""
    model = row.fastest_model()
    if model is None or "backtrack" not in row.results:
        return ""
    return f"{_ratio_cell(row.results[model], row.results['backtrack'])}\n{ENGINE_TITLES[model]}"


def _ratio_cell(model: SolveResult, backtrack: SolveResult) -> str:
    """model/bt, or a bound when a run was cut short: the stopped one would have taken longer."""
    ratio = model.seconds / max(backtrack.seconds, 1e-6)
    shown = f"{ratio:.1f}×" if ratio < 10 else f"{ratio:.0f}×"
    if finished(model) and finished(backtrack):
        return shown
    if finished(backtrack):
        return f"> {shown}"
    if finished(model):
        return f"< {shown}"
    return "?"


def estimate_table(doc: dict, engine: str, first_line_words: int) -> Group:
    """--estimate's plan (cpmodel.run.estimate.plan): Knuth's random paths beside whole
    first-line words, and what the two say together. A cell breaks only before its
    "±"; the heading and notes are :class:`Parts`, which break only between pieces."""
    heading = Parts(["estimate", engine, f"{first_line_words:,} first-line words",
                     f"the run would cut {doc['shards']:,} shards"], style="bold")
    table = Table(box=box.SIMPLE_HEAVY)
    for column in ("method", "nodes", "solutions", "CPU seconds"):
        table.add_column(column, justify="left" if column == "method" else "right", no_wrap=True)
    sampled = doc["sampled_shards"]
    if "knuth" in doc:
        k = doc["knuth"]
        table.add_row(f"Knuth, {k['probes']:,} paths", _pm(k["nodes"], k["nodes_stderr"]),
                      _pm(k["solutions"], k["solutions_stderr"]), _seconds(k["seconds"]) if "seconds" in k else "")
    table.add_row(f"{sampled['sampled']:,} of {sampled['words']:,} words", _pm(sampled["nodes"], sampled["nodes_stderr"]),
                  _pm(sampled["solutions"], sampled["solutions_stderr"]),
                  _pm(sampled["seconds"], sampled["seconds_stderr"], seconds=True))
    workers = doc["workers_for_one_hour"]
    notes = [Parts([f"≈ {doc['cpu_hours']:,.2f} CPU-hours (from the words)",
                    f"{workers:,} {'worker finishes' if workers == 1 else 'workers finish'} in an hour"]),
             Parts(["paths: Knuth's random root-to-leaf paths", "words: first-line words run whole, scaled up",
                    "± one standard error"], style="dim"),
             *_nodes_agreement(doc)]
    return Group(heading, table, *notes)


def _nodes_agreement(doc: dict) -> list[Parts]:
    """Whether the two node estimates agree, and what to believe when they do not."""
    agreement = doc.get("nodes_agreement")
    if not agreement:
        return []
    ratio = agreement["ratio"]
    if agreement["within_error"]:
        return [Parts(["the node estimates agree", f"paths/words {ratio:.2f}, within their errors"])]
    return [Parts([f"the node estimates differ {max(ratio, 1 / ratio):.2f}×, beyond their errors",
                   "the tree is lopsided: a few first-line words hold most of it",
                   "an error from few samples understates such a spread", "trust either to about 2×"],
                  style="yellow")]


def _seconds(value: float) -> str:
    return f"{value:,.1f}" if value < 10 else f"{value:,.0f}"


def _pm(value: float, error: float, seconds: bool = False) -> str:
    """``value`` and, on a line of its own, ``± error`` (NaN: no spread to estimate)."""
    import math

    shown = _seconds(value) if seconds else f"{value:,.0f}"
    if math.isnan(error):
        return shown
    return f"{shown}\n± {_seconds(error) if seconds else f'{error:,.0f}'}"
