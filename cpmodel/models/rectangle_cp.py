r"""m×n word rectangles in OR-Tools' classic CP solver (depth-first, no learning).

The same formulation as cpmodel/models/rectangle.py, stated for
``ortools.constraint_solver``: propagate, branch, backtrack, and nothing is
learned from a failure. That is exactly what makes it fast here: CP-SAT's
clause learning on big word tables produces clauses of thousands of tuple
literals (see rectangle.py), while this solver only keeps each table's
supports up to date (a compact-table bitset per line).

Variables.
    ℓ[i,j] ∈ 0..25          the letter of cell (i,j)
    r[s]   ∈ 0..|W_s|-1      the rank of slot s's word in its own list W_s
                            (R for a row, C for a column), when asked for

Constraints.
    (1) (ℓ[i,0], …, ℓ[i,n-1]) ∈ R                       every row is a word
    (2) (ℓ[0,j], …, ℓ[m-1,j]) ∈ C                       every column is a word
        both as AllowedAssignments (a positive table, propagated to arc
        consistency). With word variables the table is (letters, rank):
        (ℓ[slot], r[slot]) ∈ {(w, rank(w)) : w ∈ W_s}, so r is a function of
        the letters and every rectangle is still enumerated once.

Options.
    pattern     ℓ[i,j] = c for each fixed letter
    symmetric   ℓ[i,j] = ℓ[j,i]                         (word squares)
    distinct    Σ_k [ℓ[s,k] ≠ ℓ[t,k]] ≥ 1 for every two lines s, t of one length
                (they differ somewhere). An AllDifferent over word numbers says
                the same, but needs word variables, whose domains the tables
                scan at every propagation: 11× slower on 5×6 --top 3000.
    best        Knuth's criterion (smallest largest rank, then smallest sum),
                lexicographically and by restarts, see _solve_best: the tables
                are cut to the words of rank ≤ r (probes r = 64, 96, …), then
                every rectangle under the best's largest rank is enumerated,
                restarting whenever that rank drops. build_model(best=True)
                states the direct objective instead, for teaching and for
                benchmarks/engines.py:  r[s] in every table and
                minimise W · max_s r[s] + Σ_s r[s],  W = (m+n)·|longest list| + 1.

Search (measured on 5×6 in benchmarks/engines.py; docs/modelling.md, "the same
model, three engines").
    enumeration   branch on letters: the cell with the fewest letters left,
                  ties to the lowest largest letter (CHOOSE_MIN_SIZE_LOWEST_MAX),
                  smallest letter first. Each letter choice splits a table's
                  words by one position, like a step down a trie, so the tree
                  stays small (5×6 --top 3000: 77k branches, the 11 word
                  variables as decisions needed 617k).
    first         branch on the word variables, most common word first
                  (rank order): the slot with the fewest words left, its most
                  familiar word. The first rectangle is made of common words.
    best          letters first-fail in every restart. A rank variable in a
                  table costs a scan of its whole domain (the word list) at each
                  propagation, and word branching walks 10× the tree, so the
                  direct objective stalled (5×6, full lexicon: largest rank 2954
                  after minutes, optimum 2730); cut tables keep the enumeration's
                  speed and prove the optimum.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from ortools.constraint_solver import pywrapcp

from cpmodel.core.control import Control, Request, SolutionSink
from cpmodel.core.dawg import ALPHABET
from cpmodel.core.result import SolveResult, status_of
from cpmodel.core.specs import RectangleSpec
from cpmodel.core.validate import check_rectangle, rank_objective


@dataclass
class CpRectangleVars:
    """The model's variables, for the search, for reading solutions and for teaching."""

    letter: list[list[pywrapcp.IntVar]]  # ℓ[i][j]
    word: dict[tuple[str, int], pywrapcp.IntVar] = field(default_factory=dict)  # ("row", i) → r[slot]
    largest: pywrapcp.IntVar | None = None  # best: max_s r[s]
    objective: pywrapcp.IntVar | None = None  # best: W · largest + Σ r
    weight: int = 0  # best: W


def build_model(spec: RectangleSpec, words: bool = False, best: bool = False) -> tuple[pywrapcp.Solver, CpRectangleVars]:
    """The classic-CP model of ``spec`` and its variables; nothing is searched here.
    ``words`` adds the rank variables r[slot] (implied by ``best``)."""
    params = pywrapcp.Solver.DefaultSolverParameters()
    params.store_names = False  # names cost memory and time, and we never print the model
    solver = pywrapcp.Solver("rectangle", params)
    m, n = spec.m, spec.n
    letter = [[solver.IntVar(0, 25, f"l[{i},{j}]") for j in range(n)] for i in range(m)]
    variables = CpRectangleVars(letter)
    words = words or best

    # (1), (2) every row and every column is a word (with its rank, if asked)
    tables: dict[int, list[list[int]]] = {}  # one tuple list per word list, shared by its slots
    for kind, index, cells, slot_words in _slots(spec, letter):
        if not slot_words:
            solver.Add(solver.FalseConstraint())  # no word of this length: infeasible
            continue
        tuples = tables.get(id(slot_words))
        if tuples is None:
            tuples = tables[id(slot_words)] = _table(slot_words, with_rank=words)
        if words:
            rank = solver.IntVar(0, len(slot_words) - 1, f"r[{kind}{index}]")
            variables.word[(kind, index)] = rank
            solver.Add(solver.AllowedAssignments(cells + [rank], tuples))
        else:
            solver.Add(solver.AllowedAssignments(cells, tuples))

    # fixed letters of the pattern
    for i, row in enumerate(spec.pattern or ()):
        for j, c in enumerate(row):
            if c != ".":
                solver.Add(letter[i][j] == ALPHABET.index(c))

    # symmetric word square: row i is column i
    if spec.symmetric:
        for i in range(m):
            for j in range(i + 1, n):
                solver.Add(letter[i][j] == letter[j][i])

    # a shard: the first row (column) may take only the job's words
    for line, allowed in ((letter[0], spec.first_row), ([letter[i][0] for i in range(m)], spec.first_col)):
        if allowed is not None:
            solver.Add(solver.AllowedAssignments(line, _table(allowed)) if allowed else solver.FalseConstraint())

    # no word twice: two lines of the same length differ in some position
    if spec.distinct:
        lines = [cells for _, _, cells, _ in _slots(spec, letter)]
        for a, first in enumerate(lines):
            for second in lines[a + 1:]:
                if len(first) == len(second):
                    solver.Add(solver.Sum([solver.IsDifferentVar(x, y) for x, y in zip(first, second, strict=True)]) >= 1)

    if best and len(variables.word) == m + n:
        _add_rank_objective(solver, spec, variables)
    return solver, variables


def _slots(spec: RectangleSpec, letter):
    """Each row and column: (kind, index, its letter variables, its words)."""
    for i in range(spec.m):
        yield "row", i, letter[i], spec.row_words
    for j in range(spec.n):
        yield "col", j, [letter[i][j] for i in range(spec.m)], spec.col_words


_CODE = {c: k for k, c in enumerate(ALPHABET)}


def _codes(word: str) -> list[int]:
    return [_CODE[c] for c in word]


def _table(words, with_rank: bool = False) -> list[list[int]]:
    """The tuples of a word list: each word's letter codes (and its rank, its index)."""
    if with_rank:
        return [[_CODE[c] for c in w] + [r] for r, w in enumerate(words)]
    return [[_CODE[c] for c in w] for w in words]


def _add_rank_objective(solver: pywrapcp.Solver, spec: RectangleSpec, variables: CpRectangleVars) -> None:
    """objective = W · (largest rank) + (sum of ranks): largest first, then the sum."""
    ranks = list(variables.word.values())
    longest = max(len(spec.row_words), len(spec.col_words))
    variables.largest = solver.Max(ranks).Var()
    weight = len(ranks) * longest + 1
    variables.weight = weight
    variables.objective = (variables.largest * weight + solver.Sum(ranks)).Var()


# -- searching ------------------------------------------------------------------


def decision_builder(solver: pywrapcp.Solver, variables: CpRectangleVars, by_rank: bool):
    """The search order: letters first-fail (enumeration) or words in rank order."""
    letters = [v for row in variables.letter for v in row]
    by_letter = solver.Phase(letters, solver.CHOOSE_MIN_SIZE_LOWEST_MAX, solver.ASSIGN_MIN_VALUE)
    if not by_rank or not variables.word:
        return by_letter
    ranks = list(variables.word.values())
    by_word = solver.Phase(ranks, solver.CHOOSE_MIN_SIZE_LOWEST_MIN, solver.ASSIGN_MIN_VALUE)
    return solver.Compose([by_word, by_letter])  # letters are all fixed once the words are


class StopPoll:
    """A search limit that asks the caller's Control (Ctrl-C, clock) every few nodes.

    The classic solver calls a CustomLimit's function at every node; a Python
    call per node is cheap next to the table propagation, and the clock is read
    only every ``every`` calls."""

    def __init__(self, solver: pywrapcp.Solver, control: Control, every: int = 256, offset: int = 0):
        self.solver, self.control, self.every, self.offset = solver, control, every, offset
        self.calls = 0
        self.reason: str | None = None
        self.limit = solver.CustomLimit(self._check)

    def _check(self) -> bool:
        self.calls += 1
        if self.reason is None and self.calls % self.every == 0:
            self.control.nodes = self.offset + self.solver.Branches()
            self.reason = self.control.stop_reason()
        return self.reason is not None


def solve(spec: RectangleSpec, request: Request = Request(), control: Control | None = None,
          order: str | None = None) -> SolveResult:
    """Build and search; the status says honestly whether the search finished.
    ``order`` ("rank" or "letters") overrides the search order chosen by the mode
    (words by rank for a first solution, letters otherwise; --best has its own search)."""
    control = control or Control()
    if request.best:
        return _solve_best(spec, request, control)
    started = time.perf_counter()
    first_only = request.limit == 1
    by_rank = first_only if order is None else order == "rank"
    solver, variables = build_model(spec, words=by_rank)
    builder = decision_builder(solver, variables, by_rank=by_rank)
    sink, reached_limit = SolutionSink(request, control), False

    def record(rows) -> bool:
        nonlocal reached_limit
        reached_limit = sink.record(rows)
        return reached_limit

    # a bare count reads no letters back: as the backtracker's count, it is checked by agreement
    # (--solver both, compare), and reading 30 letters per solution through SWIG costs more than
    # finding it when solutions are many (4×4 --top 2000: 805,781 rectangles)
    decode = not (request.count_only and request.on_solution is None)
    stopped_by, branches, failures = _search(solver, variables, builder, spec, control, record, decode=decode)
    if reached_limit:
        stopped_by = "limit"
    exhausted = stopped_by is None  # the search tree was walked to its end
    return SolveResult(
        solver="cp",
        status=status_of(sink.count, exhausted),
        complete=exhausted or reached_limit,
        count=sink.count,
        solutions=sink.solutions,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        stats={"branches": branches, "failures": failures,
               "search": "words by rank" if by_rank else "letters first-fail"},
    )


def _search(solver, variables, builder, spec, control, visit, offset: int = 0,
            decode: bool = True) -> tuple[str | None, int, int]:
    """Run one search, validate each rectangle and hand it to ``visit`` (True stops);
    without ``decode``, ``visit`` gets None for each solution.

    Returns (why it stopped: None when the tree was exhausted, "visit" when
    ``visit`` asked, else the Control's reason; branches; failures)."""
    poll = StopPoll(solver, control, offset=offset)
    stopped_by = None
    solver.NewSearch(builder, [poll.limit])
    try:
        while solver.NextSolution():
            rows = None
            if decode:
                rows = tuple("".join([ALPHABET[v.Value()] for v in row]) for row in variables.letter)
                check_rectangle(spec, rows)
            if visit(rows):
                stopped_by = "visit"
                break
    finally:
        branches, failures = solver.Branches(), solver.Failures()
        solver.EndSearch()
    return stopped_by or poll.reason, branches, failures


# -- --best: restarts on the largest rank ----------------------------------------

FIRST_PROBE = 64  # the first largest rank tried: small tables prove "none here" in milliseconds
PROBE_GROWTH = 1.5  # each probe allows 1.5× the ranks of the one before; the last 1.5× below
# the best so far is left to the enumeration, which finds the better rectangles there anyway
# (5×6 --top 3000: 114k branches in all, against 145k when probing up to the best)


def cut(spec: RectangleSpec, largest: int) -> RectangleSpec:
    """The same puzzle with only the words of rank ≤ ``largest`` (a shorter --top)."""
    return replace(spec, row_words=spec.row_words[:largest + 1], col_words=spec.col_words[:largest + 1])


def _solve_best(spec: RectangleSpec, request: Request, control: Control) -> SolveResult:
    """Knuth's criterion, lexicographically: the smallest largest rank r*, then the smallest sum.

    A word-rank variable in every table and a Minimize monitor state the
    objective directly, but a rank variable's domain is the whole word list,
    and the table revisits it at every propagation (5×6 full lexicon: stuck at
    largest rank 2954 after minutes). Cutting the tables instead keeps the
    search as fast as enumeration:

    0. any rectangle (a first solution with every word): none proves none,
       and the one found is shown if the search is stopped early;
    1. probes: is there a rectangle of words of rank ≤ r?  r = 64, 97, 146, …
       (first solution only; a "no" costs little while the tables are small),
       while 1.5·r is below the best's largest rank;
    2. the first "yes" gives a rectangle with largest rank M. Enumerate every
       rectangle of ranks ≤ M, keeping the best (largest, sum); when one has a
       smaller largest rank, restart with the tables cut to it.
    3. The enumeration that runs to its end saw every rectangle whose largest
       rank is at most the best's, so the best is proven optimal.

    ``request.bound`` (another shard's best) caps the tables at its largest
    rank, and only strictly better rectangles are reported."""
    started = time.perf_counter()
    sink = SolutionSink(Request(limit=None, on_solution=request.on_solution), control)
    to_beat = request.bound  # report only objectives strictly below this
    longest = max(len(spec.row_words), len(spec.col_words)) - 1
    ceiling = max(0, longest if to_beat is None else min(longest, to_beat[0]))
    best: tuple[int, int] | None = None
    # stages: (largest rank allowed, branches, outcome)
    effort: dict[str, Any] = {"branches": 0, "failures": 0, "stages": []}

    def run(largest: int, first_only: bool, restart_below: int | None) -> str | None:
        """One search over the tables cut to ``largest``; returns why it stopped (None: exhausted)."""
        nonlocal best

        def visit(rows) -> bool:
            nonlocal best
            value = rank_objective(spec, rows)
            if (best is not None and value >= best) or (to_beat is not None and value >= to_beat):
                return False
            best = value
            control.objective = value  # the progress line shows the best so far
            sink.solutions.clear()
            sink.count = 0
            sink.record(rows)
            return first_only or (restart_below is not None and value[0] < restart_below)

        part = cut(spec, largest)
        solver, variables = build_model(part)
        builder = decision_builder(solver, variables, by_rank=False)
        stopped_by, branches, failures = _search(solver, variables, builder, part, control, visit,
                                                 offset=effort["branches"])
        effort["branches"] += branches
        effort["failures"] += failures
        outcome = {None: "exhausted", "visit": "found" if first_only else "restart"}.get(stopped_by, stopped_by)
        effort["stages"].append((largest, branches, outcome))
        return stopped_by

    # 0. any rectangle at all: none proves none, and one is an answer to show early
    stopped_by = run(ceiling, first_only=True, restart_below=None)
    # 1. probes with growing largest rank, well below the best so far, until one finds a rectangle
    largest = FIRST_PROBE
    while stopped_by == "visit" and best is not None and largest * PROBE_GROWTH < best[0]:
        reason = run(largest, first_only=True, restart_below=None)
        if reason is not None:
            stopped_by = reason  # "visit": a better rectangle; else the clock or Ctrl-C
            break
        largest = int(largest * PROBE_GROWTH) + 1  # none that common: allow rarer words
    # 2. enumerate under the best's largest rank; restart when it drops
    while best is not None and stopped_by not in ("interrupt", "time-limit"):
        stopped_by = run(best[0], first_only=False, restart_below=best[0])
        if stopped_by is None:
            break  # 3. exhausted: proven optimal
    exhausted = stopped_by is None
    return SolveResult(
        solver="cp",
        status=status_of(sink.count, exhausted),
        complete=exhausted,
        count=sink.count,
        solutions=sink.solutions,
        seconds=time.perf_counter() - started,
        stopped_by=None if exhausted else stopped_by,
        objective=best,
        stats={**effort, "search": "largest rank by restarts, letters first-fail"},
    )
