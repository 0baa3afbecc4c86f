r"""m×n word rectangles in OR-Tools' classic CP solver (depth-first, no learning).

The same formulation as cpmodel/rectangle.py, stated for
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
    distinct    AllDifferent(id[s]),  id[s] = number of slot s's word in R ∪ C
                (an Element on r[s])
    best        minimise  W · max_s r[s] + Σ_s r[s],  W = (m+n)·|longest list| + 1
                (Knuth's criterion), by branch and bound: every solution adds
                "objective < its value" and the search goes on where it was;
                a bound (B, S) from another shard adds objective < W·B + S.

Search (measured on 5×6, see docs/modelling.md, "the same model, three engines").
    enumeration   branch on letters: the cell with the fewest letters left,
                  ties to the lowest largest letter (CHOOSE_MIN_SIZE_LOWEST_MAX),
                  smallest letter first. Each letter choice splits a table's
                  words by one position, like a step down a trie, so the tree
                  stays small (5×6 --top 3000: 77k branches, the 11 word
                  variables as decisions needed 617k).
    first / best  branch on the word variables, most common word first
                  (rank order): the slot with the fewest words left, its most
                  familiar word. The first rectangle is made of common words,
                  and with --best the bound from it cuts every rank above it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.constraint_solver import pywrapcp

from cpmodel.control import Control, Request, SolutionSink
from cpmodel.dawg import ALPHABET
from cpmodel.result import SolveResult, status_of
from cpmodel.specs import RectangleSpec
from cpmodel.validate import check_rectangle, rank_objective


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
    ``words`` adds the rank variables r[slot] (implied by ``best`` and ``distinct``)."""
    params = pywrapcp.Solver.DefaultSolverParameters()
    params.store_names = False  # names cost memory and time, and we never print the model
    solver = pywrapcp.Solver("rectangle", params)
    m, n = spec.m, spec.n
    letter = [[solver.IntVar(0, 25, f"l[{i},{j}]") for j in range(n)] for i in range(m)]
    variables = CpRectangleVars(letter)
    words = words or best or spec.distinct

    # (1), (2) every row and every column is a word (with its rank, if asked)
    for kind, index, cells, slot_words in _slots(spec, letter):
        if not slot_words:
            solver.Add(solver.FalseConstraint())  # no word of this length: infeasible
            continue
        tuples = [_codes(w) for w in slot_words]
        if words:
            rank = solver.IntVar(0, len(slot_words) - 1, f"r[{kind}{index}]")
            variables.word[(kind, index)] = rank
            solver.Add(solver.AllowedAssignments(cells + [rank], [t + [r] for r, t in enumerate(tuples)]))
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
    for line, words in ((letter[0], spec.first_row), ([letter[i][0] for i in range(m)], spec.first_col)):
        if words is not None:
            solver.Add(solver.AllowedAssignments(line, [_codes(w) for w in words]) if words else solver.FalseConstraint())

    # no word twice: the slots' numbers in the shared vocabulary R ∪ C differ
    if spec.distinct and len(variables.word) == m + n:
        vocabulary = {w: k for k, w in enumerate(dict.fromkeys(spec.row_words + spec.col_words))}
        ids = []
        for (kind, _), rank in variables.word.items():
            own = spec.row_words if kind == "row" else spec.col_words
            ids.append(solver.Element([vocabulary[w] for w in own], rank).Var())
        solver.Add(solver.AllDifferent(ids))

    if best and len(variables.word) == m + n:
        _add_rank_objective(solver, spec, variables)
    return solver, variables


def _slots(spec: RectangleSpec, letter):
    """Each row and column: (kind, index, its letter variables, its words)."""
    for i in range(spec.m):
        yield "row", i, letter[i], spec.row_words
    for j in range(spec.n):
        yield "col", j, [letter[i][j] for i in range(spec.m)], spec.col_words


def _codes(word: str) -> list[int]:
    return [ALPHABET.index(c) for c in word]


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

    def __init__(self, solver: pywrapcp.Solver, control: Control, every: int = 256):
        self.solver, self.control, self.every = solver, control, every
        self.calls = 0
        self.reason: str | None = None
        self.limit = solver.CustomLimit(self._check)

    def _check(self) -> bool:
        self.calls += 1
        if self.reason is None and self.calls % self.every == 0:
            self.control.nodes = self.solver.Branches()
            self.reason = self.control.stop_reason()
        return self.reason is not None


def solve(spec: RectangleSpec, request: Request = Request(), control: Control | None = None) -> SolveResult:
    """Build and search; the status says honestly whether the search finished."""
    control = control or Control()
    started = time.perf_counter()
    first_only = request.limit == 1 and not request.best
    solver, variables = build_model(spec, words=first_only, best=request.best)
    by_rank = first_only or request.best
    builder = decision_builder(solver, variables, by_rank)
    poll = StopPoll(solver, control)
    monitors = [poll.limit]
    if request.best and variables.objective is not None:
        if request.bound is not None:  # another shard already has (B, S): only better rectangles count
            largest, total = request.bound
            solver.Add(variables.objective < variables.weight * largest + total)
        monitors.append(solver.Minimize(variables.objective, 1))  # branch and bound

    sink, best, reached_limit = SolutionSink(request, control), None, False
    solver.NewSearch(builder, monitors)
    try:
        while solver.NextSolution():
            rows = tuple("".join(ALPHABET[v.Value()] for v in row) for row in variables.letter)
            check_rectangle(spec, rows)
            if request.best:  # each solution improves on the last: keep only the newest
                best = rank_objective(spec, rows)
                sink.solutions.clear()
                sink.count = 0
            if sink.record(rows):
                reached_limit = True
                break
    finally:
        branches, failures = solver.Branches(), solver.Failures()
        solver.EndSearch()

    stopped_by = "limit" if reached_limit else poll.reason
    exhausted = stopped_by is None  # the search tree was walked to its end
    complete = exhausted or reached_limit
    return SolveResult(
        solver="cp",
        status=status_of(sink.count, exhausted),
        complete=complete,
        count=sink.count,
        solutions=sink.solutions,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        objective=best,
        stats={"branches": branches, "failures": failures, "search": "words by rank" if by_rank else "letters first-fail"},
    )
