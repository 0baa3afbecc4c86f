"""``python -m cpmodel compare``: a fixed, seeded suite on every exact engine.

Each case states one question (a puzzle, a spec, a mode) and runs it, one
engine after the other, on the engines that can *decide* it within the time
limit: the backtracker, OR-Tools' classic CP (``cp``) and CP-SAT for
rectangles and Wordscapes; the layout search and CP-SAT for Bananagrams. An
engine that cannot decide a case is left out of it, and the case says why
(CP-SAT cannot finish big rectangle enumerations or prove 4×4 optima:
clause learning on big tables, see docs/modelling.md), rather than running
into the limit and making the case "undecided".

A row records each engine's status, seconds and effort (nodes or branches)
and whether the engines agree: identical solution sets, counts or optima for
rectangles and Wordscapes, valid layouts for Bananagrams (layouts are not
unique). An engine stopped by the limit still makes the agreement
"undecided", never a pass. The ratio is the fastest exact *model* engine
(cp or CP-SAT) over the backtracker.

A stop signal ends the suite within a second and keeps the rows already
finished: with a console to show progress on, each engine runs under a
supervisor (cpmodel.run.supervise) that polls the held signals, and the case
in progress is dropped (its engines did not all finish).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from cpmodel.core.control import Control, Request
from cpmodel.core.result import UNKNOWN, SolveResult

RUN_CAP = 30.0  # seconds for one engine on one case: every case is decided well within it
MODEL_ENGINES = ("cp", "cpsat")  # the constraint models, as against the backtrackers
ALL, COUNT, BEST, FIRST = Request(limit=None), Request(limit=None, count_only=True), Request(limit=None, best=True), Request()
MODES = {"all": ALL, "count": COUNT, "best": BEST, "first": FIRST}

# Why an engine sits a case out (measured in benchmarks/engines.py and docs/modelling.md).
CPSAT_ENUMERATION = "CP-SAT cannot enumerate this within the limit (5×6 --top 3000 --all: about 190 s)"
CPSAT_OPTIMUM = "CP-SAT proves this optimum in 28 s to over 60 s, or finds nothing in 60 s (5×6)"

# ((m, n), --top or None for every word, mode, engines left out with the reason)
RECT_CASES = [
    ((3, 3), 300, "all", {}),
    ((4, 4), 500, "count", {}),
    ((4, 4), 2000, "best", {"cpsat": CPSAT_OPTIMUM}),
    ((5, 6), None, "first", {}),
    ((5, 6), 3000, "all", {"cpsat": CPSAT_ENUMERATION}),
    ((5, 6), 3000, "best", {"cpsat": CPSAT_OPTIMUM}),
]
BANANA_CASES = [(11, 0), (15, 0), (21, 0)]
WORDSCAPES_CASES = [("ring", "....\n.##.\n....", "retains", "count"), ("cross", "#.#\n...\n#.#\n#.#", "stone", "count"),
                    ("ring", "....\n.##.\n....", "retains", "best")]
# --quick: one small case per kind that every engine settles in about a second, so the
# table shows agreement, not time limits (~2 s in all)
QUICK = {"rect": [((3, 3), 100, "all", {})], "banana": [(7, 0)], "wordscapes": WORDSCAPES_CASES[1:2]}


@dataclass
class Case:
    """One question and the engines that answer it."""

    puzzle: str
    label: str
    size: int  # cells or tiles, the plot's x axis
    job: object  # a cpmodel.core.jobs.Job; its engine is replaced per run
    engines: tuple[str, ...]
    not_run: dict[str, str] = field(default_factory=dict)  # engine → why it sits this case out
    kind: str = "sets"  # "sets" (sets, counts, optima) or "layouts" (any valid layout)


@dataclass
class Row:
    case: Case
    results: dict[str, SolveResult]  # engine → its result, in run order
    agreement: str

    @property
    def puzzle(self) -> str:
        return self.case.puzzle

    def fastest_model(self) -> str | None:
        """The model engine (cp or CP-SAT) that answered fastest, if any ran."""
        ran = [name for name in MODEL_ENGINES if name in self.results]
        return min(ran, key=lambda name: self.results[name].seconds, default=None)

    def ratio(self) -> float | None:
        """The fastest model engine's seconds over the backtracker's."""
        model = self.fastest_model()
        if model is None or "backtrack" not in self.results:
            return None
        return self.results[model].seconds / max(self.results["backtrack"].seconds, 1e-6)


def run_suite(lexicon, time_limit: float | None, progress=None, quick: bool = False, stderr=None,
              run_cap: float = RUN_CAP) -> list[Row]:
    """Every case's row, in order; fewer when a stop signal came (``interrupts.stop_asked()``).

    ``time_limit`` is the whole suite's: each engine run gets what is left of it, at most
    ``run_cap`` seconds. Once it is spent the suite ends: the case in progress keeps
    the runs it made (the others unknown, so it is undecided), and the later cases
    are left out. ``stderr``: a rich Console for each engine's progress line (and its
    prompt stop)."""
    import time

    from cpmodel.run import interrupts

    _warm_up()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    rows = []
    for case in cases(lexicon, quick):
        if interrupts.stop_asked() or (deadline is not None and time.monotonic() >= deadline):
            break
        if progress:
            progress(case.puzzle, case.label)
        left = run_cap if deadline is None else max(0.0, min(run_cap, deadline - time.monotonic()))
        row = run_case(case, left, stderr, deadline)
        if row is not None:
            rows.append(row)
    return rows


def _warm_up() -> None:
    """Load the solver libraries before any clock starts: importing OR-Tools and
    creating its first solver take ~0.2 s once per process, which is no engine's search."""
    from ortools.constraint_solver import pywrapcp
    from ortools.sat.python import cp_model

    pywrapcp.Solver("warm-up")
    cp_model.CpSolver()


def run_case(case: Case, time_limit: float, stderr=None, deadline: float | None = None) -> Row | None:
    """The case on each of its engines, each for ``time_limit`` seconds at most and not past
    ``deadline`` (time.monotonic()); None when a stop signal cut it short."""
    import time

    from cpmodel.run import engines, interrupts
    from cpmodel.run.supervise import Supervisor

    results = {}
    for name in case.engines:
        limit = time_limit if deadline is None else max(0.0, min(time_limit, deadline - time.monotonic()))
        job, control = case.job.with_engine(name), Control(time_limit=limit)
        if limit <= 0:  # the suite's time is spent: not run
            results[name] = SolveResult(name, UNKNOWN, False, 0, stopped_by="time-limit")
        elif stderr is None:
            results[name] = engines.run(job, control)
        else:
            supervisor = Supervisor(control, f"{name} {case.puzzle} {case.label}", stderr, engine=name)
            results[name] = supervisor.run(partial(engines.run, job, control))
        if interrupts.stop_asked():
            return None
    return Row(case, results, agreement(list(results.values()), case.kind))


def cases(lexicon, quick: bool = False):
    """The suite's cases, built from ``lexicon``."""
    from cpmodel.core.boards import parse_crossword
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import banana_spec, draw_hand, rectangle_spec, wordscapes_spec
    from cpmodel.run.engines import engines_for
    from heuristics.words import WordIndex, find_words

    suite = QUICK if quick else {"rect": RECT_CASES, "banana": BANANA_CASES, "wordscapes": WORDSCAPES_CASES}
    for (m, n), top, mode, left_out in suite["rect"]:
        spec = rectangle_spec(m, n, lexicon, top=top)
        label = f"{m}x{n}{f' --top {top}' if top else ''} {'first solution' if mode == 'first' else '--' + mode}"
        yield _case("rect", label, m * n, Job("rect", spec, "backtrack", MODES[mode]), left_out)
    index = WordIndex(lexicon.words)
    for tiles, seed in suite["banana"]:
        spec = banana_spec(draw_hand(tiles, seed), lexicon, lambda h: [f.word for f in find_words(index, h, min_len=2)])
        job = Job("banana", spec, "backtrack", FIRST, options={"mode": "free"})
        yield Case("banana", f"{tiles} tiles, seed {seed}", tiles, job, tuple(engines_for("banana")), kind="layouts")
    for name, board, wheel, mode in suite["wordscapes"]:
        spec = wordscapes_spec(parse_crossword(board), wheel, lexicon)
        yield _case("wordscapes", f"{name} board, {wheel} --{mode}", len(spec.board.cells),
                    Job("wordscapes", spec, "backtrack", MODES[mode]), {})


def _case(puzzle: str, label: str, size: int, job, left_out: dict[str, str]) -> Case:
    from cpmodel.run.engines import engines_for

    chosen = tuple(name for name in engines_for(puzzle, best=job.request.best) if name not in left_out)
    return Case(puzzle, label, size, job, chosen, dict(left_out))


def agreement(results: list[SolveResult], kind: str) -> str:
    """What the engines' answers say together (never a pass when one was cut short)."""
    if kind == "layouts":
        statuses = {r.status for r in results}
        if statuses == {"found"}:
            return "all valid" if len(results) > 2 else "both valid"
        if {"found", "none"} <= statuses:
            return "DISAGREE"
        return "undecided"
    if not all(r.complete for r in results):
        return "undecided"
    first = results[0]
    for other in results[1:]:
        if other.count != first.count or other.objective != first.objective:
            return "DISAGREE"
        if first.stopped_by != "limit" and first.solutions and set(other.solutions) != set(first.solutions):
            return "DISAGREE"
    if first.objective is not None:
        return "same optimum"
    if first.stopped_by == "limit":
        return "each found one" if first.count == 1 else "each found them"
    return "identical sets" if first.solutions else "same count"


def to_json(rows: list[Row]) -> list[dict]:
    """One document per case: every engine's result, who sat out and why, the ratios."""
    from cpmodel.show.render import finished

    docs = []
    for row in rows:
        doc = {"puzzle": row.puzzle, "case": row.case.label, "agreement": row.agreement,
               "engines": list(row.results), "not_run": row.case.not_run}
        doc.update({name: result.to_json(with_solutions=False) for name, result in row.results.items()})
        backtrack = row.results.get("backtrack")
        for name in MODEL_ENGINES:
            if name in row.results and backtrack is not None:
                doc[f"{name}_over_backtrack"] = round(row.results[name].seconds / max(backtrack.seconds, 1e-6), 2)
        model = row.fastest_model()
        if model is not None and backtrack is not None:
            doc["fastest_model"] = model
            doc["model_over_backtrack"] = round(row.ratio(), 2)
            doc["ratio_exact"] = finished(row.results[model]) and finished(backtrack)  # else only a bound
        docs.append(doc)
    return docs


def plot(rows: list[Row], path: str) -> None:
    """Seconds against instance size, every engine, log axis (matplotlib extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(13, 4))
    markers = {"backtrack": "o-", "cp": "^:", "cpsat": "s--"}
    for axis, puzzle in zip(axes, ("rect", "banana", "wordscapes"), strict=True):
        chosen = [r for r in rows if r.puzzle == puzzle]
        for engine, marker in markers.items():
            points = [(r.case.size, max(r.results[engine].seconds, 1e-4)) for r in chosen if engine in r.results]
            if points:
                axis.plot(*zip(*points, strict=True), marker, label=engine)
        axis.set_yscale("log")
        axis.set_title(puzzle)
        axis.set_xlabel("cells" if puzzle != "banana" else "tiles")
        axis.set_ylabel("seconds (log)")
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)
