"""Where a job is cut: the first line a shard fixes, and the job restricted to some of its words.

A shard (:mod:`cpmodel.run.shards`) and a sampled shard of an estimate
(:mod:`cpmodel.run.estimate`) are the same thing: the job with its *first
line* limited to a group of words. Both cut through here, so the one rule
for which line that is lives in one place.

Which line (rect). The backtracker fills rows or columns by its own rule,
asked through :func:`cpmodel.run.engines.fill_orientation` and never restated here.
A shard must fix the first line *it* fills: then the shards' trees are the
level-1 subtrees of the one-job tree and add up to it node for node. Fixing
the other line instead only trims one crossing line at every level, and each
shard walks most of the whole tree again (a 5×6 count, 1,000 column words ×
16,703 row words, filled by columns: 28.7M nodes over 256 row shards against
3.09M in one job). CP-SAT and classic CP have no fill order; their shards fix
the line with the fewer words (fewer models to build), on a tie the longer
words (a fixed line of n letters pre-filters n crossing tables).
"""

from __future__ import annotations

from dataclasses import replace

from cpmodel.core.jobs import Job
from cpmodel.run.engines import fill_orientation


def split_line(job: Job) -> str:
    """rect: "row" or "col", the first line a shard fixes (see the module docstring)."""
    spec = job.spec
    orientation = fill_orientation(job)
    if orientation:
        return "row" if orientation == "rows" else "col"
    rows, cols = len(spec.first_row or spec.row_words), len(spec.first_col or spec.col_words)
    if rows != cols:
        return "row" if rows < cols else "col"
    return "row" if spec.n >= spec.m else "col"


def first_line_words(job: Job) -> tuple[str, ...]:
    """The words the first line can take, in rank order (the shards' raw material)."""
    spec = job.spec
    if job.puzzle == "rect":
        if split_line(job) == "col":
            spec = spec.transposed()  # the first column is the first row of the transposed puzzle
        words = spec.first_row if spec.first_row is not None else spec.row_words
        fixed = spec.pattern[0] if spec.pattern else "." * spec.n
        starts = {w[0] for w in spec.col_words}  # the line's letter j starts crossing line j
        return tuple(w for w in words if all(c in starts and f in (".", c) for c, f in zip(w, fixed, strict=True)))
    return spec.candidates[split_slot(spec)] if spec.slots else ()


def split_slot(spec) -> int:
    """Wordscapes: the slot with the most candidates (the first of equals) carries the split."""
    return max(range(len(spec.slots)), key=lambda k: (len(spec.candidates[k]), -k))


def pin_orientation(job: Job) -> Job:
    """A backtracker's shards fill the lines the plan was cut along, whatever its rule says later."""
    orientation = fill_orientation(job) if job.puzzle == "rect" else None
    return replace(job, options={**job.options, "orientation": orientation}) if orientation else job


def restrict(job: Job, group: tuple[str, ...], second: str | None = None) -> Job:
    """The job with its first line limited to ``group`` (and, for a pair shard, the second
    line's first letter fixed to ``second``)."""
    spec = job.spec
    if job.puzzle == "rect":
        column = split_line(job) == "col"
        spec = replace(spec, first_col=group) if column else replace(spec, first_row=group)
        if second is not None:
            cell = (0, 1) if column else (1, 0)
            spec = replace(spec, pattern=_with_letter(spec.pattern, spec.m, spec.n, cell, second))
        return replace(job, spec=spec)
    slot = split_slot(spec)
    candidates = spec.candidates[:slot] + (group,) + spec.candidates[slot + 1:]
    ranks = spec.ranks
    if ranks:  # ranks[k][i] belongs to candidates[k][i]: keep them in step (--best reads them)
        rank_of = dict(zip(spec.candidates[slot], ranks[slot], strict=True))
        ranks = ranks[:slot] + (tuple(rank_of[w] for w in group),) + ranks[slot + 1:]
    return replace(job, spec=replace(spec, candidates=candidates, ranks=ranks))


def _with_letter(pattern, m: int, n: int, cell: tuple[int, int], letter: str) -> tuple[str, ...]:
    rows = [list(row) for row in (pattern or ("." * n,) * m)]
    rows[cell[0]][cell[1]] = letter
    return tuple("".join(row) for row in rows)
