"""``python -m cpmodel compare``: a fixed, seeded suite on both solvers.

Each case runs the backtracker and CP-SAT on the same spec, one after the
other, and records status, seconds, effort (nodes or branches) and whether
they agree: identical solution sets or counts for rectangles and Wordscapes,
two valid layouts for Bananagrams (layouts are not unique). A solver that
hits the per-case time limit makes the agreement "undecided", never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from cpmodel.control import Control, Request
from cpmodel.result import SolveResult

RECT_CASES = [((3, 3), 100, "all"), ((3, 3), 300, "all"), ((4, 4), 300, "count"), ((4, 4), 500, "count"),
              ((4, 5), 500, "count"), ((4, 5), 1000, "count"), ((5, 6), 1000, "count"), ((5, 6), 2000, "count")]
BANANA_CASES = [(11, 0), (15, 0), (21, 0)]
WORDSCAPES_CASES = [("ring", "....\n.##.\n....", "retains"), ("cross", "#.#\n...\n#.#\n#.#", "stone")]
# --quick: one small case per kind, a few seconds in all
QUICK_CASES = {"rect": RECT_CASES[:1], "banana": BANANA_CASES[:1], "wordscapes": WORDSCAPES_CASES[:1]}


@dataclass
class Row:
    puzzle: str
    case: str
    size: int  # tiles or cells, for the plot's x axis
    backtrack: SolveResult
    cpsat: SolveResult
    agreement: str

    def ratio(self) -> float:
        return self.cpsat.seconds / max(self.backtrack.seconds, 1e-6)


def run_suite(lexicon, time_limit: float, progress=None, quick: bool = False) -> list[Row]:
    rows = []
    for case in _cases(lexicon, quick):
        if progress:
            progress(case[0], case[1])
        rows.append(_run(*case, time_limit))
    return rows


def _cases(lexicon, quick: bool = False):
    from cpmodel import bananagrams as cp_banana
    from cpmodel import rectangle as cp_rect
    from cpmodel import wordscapes as cp_scapes
    from cpmodel.boards import parse_crossword
    from cpmodel.specs import banana_spec, draw_hand, rectangle_spec, wordscapes_spec
    from heuristics import bananagrams as bt_banana
    from heuristics import rectangle as bt_rect
    from heuristics import wordscapes as bt_scapes
    from heuristics.words import WordIndex, find_words

    suite = QUICK_CASES if quick else {"rect": RECT_CASES, "banana": BANANA_CASES, "wordscapes": WORDSCAPES_CASES}
    for (m, n), top, mode in suite["rect"]:
        spec = rectangle_spec(m, n, lexicon, top=top)
        request = Request(limit=None, count_only=mode == "count")
        yield ("rect", f"{m}x{n} --top {top} --{mode}", m * n,
               lambda c, s=spec, r=request: bt_rect.solve(s, r, c),
               lambda c, s=spec, r=request: cp_rect.solve(s, r, c), "sets")
    index = WordIndex(lexicon.words)
    for tiles, seed in suite["banana"]:
        spec = banana_spec(draw_hand(tiles, seed), lexicon, lambda h: [f.word for f in find_words(index, h, min_len=2)])
        yield ("banana", f"{tiles} tiles, seed {seed}", tiles,
               lambda c, s=spec: bt_banana.solve(s, "free", c), lambda c, s=spec: cp_banana.solve(s, c), "layouts")
    for name, board, wheel in suite["wordscapes"]:
        spec = wordscapes_spec(parse_crossword(board), wheel, lexicon)
        request = Request(limit=None, count_only=True)
        yield ("wordscapes", f"{name} board, {wheel} --count", len(parse_crossword(board).cells),
               lambda c, s=spec, r=request: bt_scapes.solve(s, r, c),
               lambda c, s=spec, r=request: cp_scapes.solve(s, r, c), "sets")


def _run(puzzle, case, size, backtrack, cpsat, kind, time_limit) -> Row:
    bt = backtrack(Control(time_limit=time_limit))
    cp = cpsat(Control(time_limit=time_limit))
    return Row(puzzle, case, size, bt, cp, agreement(bt, cp, kind))


def agreement(bt: SolveResult, cp: SolveResult, kind: str) -> str:
    if kind == "layouts":
        if bt.status == cp.status == "found":
            return "both valid"
        if {bt.status, cp.status} == {"found", "none"}:
            return "DISAGREE"
        return "undecided"
    if not (bt.complete and cp.complete):
        return "undecided"
    if bt.count != cp.count:
        return "DISAGREE"
    if bt.solutions and set(bt.solutions) != set(cp.solutions):
        return "DISAGREE"
    return "identical sets" if bt.solutions else "same count"


def to_json(rows: list[Row]) -> list[dict]:
    from cpmodel.render import finished

    return [{"puzzle": r.puzzle, "case": r.case, "agreement": r.agreement, "cpsat_over_backtrack": round(r.ratio(), 2),
             "ratio_exact": finished(r.backtrack) and finished(r.cpsat),  # else the ratio is only a bound
             "backtrack": r.backtrack.to_json(with_solutions=False), "cpsat": r.cpsat.to_json(with_solutions=False)}
            for r in rows]


def plot(rows: list[Row], path: str) -> None:
    """Seconds against instance size, both solvers, log axis (matplotlib extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(13, 4))
    for axis, puzzle in zip(axes, ("rect", "banana", "wordscapes")):
        chosen = [r for r in rows if r.puzzle == puzzle]
        for solver, marker in (("backtrack", "o-"), ("cpsat", "s--")):
            axis.plot([r.size for r in chosen], [max(getattr(r, solver).seconds, 1e-4) for r in chosen], marker, label=solver)
        axis.set_yscale("log")
        axis.set_title(puzzle)
        axis.set_xlabel("cells" if puzzle != "banana" else "tiles")
        axis.set_ylabel("seconds (log)")
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
