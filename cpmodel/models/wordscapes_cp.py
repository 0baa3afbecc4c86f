r"""Wordscapes board fill in OR-Tools' classic CP solver (depth-first, no learning).

The same formulation as cpmodel/models/wordscapes.py, for ``ortools.constraint_solver``.

Variables.
    ℓ[p] ∈ 0..25            the letter of open cell p (fixed where pre-filled)
    w[s] ∈ 0..|V|-1          the number of slot s's word in the vocabulary V,
                             the union of all slots' candidates, numbered in
                             rank order (most common first, ties by spelling)

Constraints.
    (1) (ℓ[p_1], …, ℓ[p_k], w[s]) ∈ {(word, number(word)) : word ∈ W_s}
        slot s spells one of its candidates, and w[s] names it
    (2) AllDifferent(w[s] for every slot s)      no word is used twice
    (3) ℓ[p] ∈ wheel letters for an open cell in no slot

w[s] is a function of the letters, so every fill is enumerated once.

Objective (``--best``, the most familiar fill), as in the CP-SAT model:
    ρ[s] = rank(w[s])          (an Element; V is in rank order, so ρ grows with w)
    minimise W · max_s ρ[s] + Σ_s ρ[s],   W = (number of slots) · (largest rank) + 1
by branch and bound: each fill found adds "objective < its value" and the
search goes on where it was. Boards are small (a slot has at most a few
hundred candidates), so unlike rectangles (rectangle_cp.py) the rank
variables cost little and one search proves the optimum.

Search: the slot with the fewest words left, its most common word first
(word-level branching, as the backtracker does), then any lone cells.
"""

from __future__ import annotations

import time

from ortools.constraint_solver import pywrapcp

from cpmodel.core.control import Control, Request, SolutionSink
from cpmodel.core.dawg import ALPHABET
from cpmodel.core.result import SolveResult, status_of
from cpmodel.core.specs import WordscapesSpec
from cpmodel.core.validate import check_wordscapes
from cpmodel.models.rectangle_cp import StopPoll


def build_model(spec: WordscapesSpec, best: bool = False, bound: tuple[int, int] | None = None):
    """(solver, letters, word_ids, objective): letters maps each open cell to its
    variable; ``objective`` is None unless ``best`` (then only values below
    ``bound``, if given, are allowed)."""
    params = pywrapcp.Solver.DefaultSolverParameters()
    params.store_names = False
    solver = pywrapcp.Solver("wordscapes", params)
    letters = {cell: solver.IntVar(0, 25, f"l{cell}") for cell in sorted(spec.board.cells)}
    for cell, fixed in spec.board.cells.items():
        if fixed:
            solver.Add(letters[cell] == ALPHABET.index(fixed))  # pre-filled letter
    rank_of = word_ranks(spec)
    vocabulary = sorted({w for words in spec.candidates for w in words}, key=lambda w: (rank_of[w], w))
    number = {w: k for k, w in enumerate(vocabulary)}
    word_ids = []
    for k, (slot, words) in enumerate(zip(spec.slots, spec.candidates, strict=True)):
        if not words:
            solver.Add(solver.FalseConstraint())  # a slot no word fits: infeasible
            continue
        # (1) the slot spells one of its candidates, and w[s] names it
        word_id = solver.IntVar(0, len(vocabulary) - 1, f"w{k}")
        tuples = [[ALPHABET.index(c) for c in w] + [number[w]] for w in words]
        solver.Add(solver.AllowedAssignments([letters[cell] for cell in slot] + [word_id], tuples))
        word_ids.append(word_id)
    if len(word_ids) > 1:
        solver.Add(solver.AllDifferent(word_ids))  # (2) no word twice
    wheel = sorted({ALPHABET.index(c) for c in spec.wheel})
    for cell in spec.lone_cells:  # (3) a cell in no slot still takes a wheel letter
        solver.Add(solver.MemberCt(letters[cell], wheel))
    objective = None
    if best and word_ids and len(word_ids) == len(spec.slots):
        objective = _add_rank_objective(solver, [rank_of[w] for w in vocabulary], word_ids, bound)
    return solver, letters, word_ids, objective


def word_ranks(spec: WordscapesSpec) -> dict[str, int]:
    """Each candidate's rank among the lexicon's words of its length (0 = most common)."""
    # ranks may be () (a hand-built spec): then no word has a rank
    return {w: r for words, ranks in zip(spec.candidates, spec.ranks, strict=False)
            for w, r in zip(words, ranks, strict=True)}


def _add_rank_objective(solver: pywrapcp.Solver, rank_table: list[int], word_ids, bound) -> pywrapcp.IntVar:
    """objective = W · (largest rank) + (sum of ranks), below ``bound`` if given."""
    ranks = [solver.Element(rank_table, word_id).Var() for word_id in word_ids]  # ρ[s] = rank(w[s])
    largest = solver.Max(ranks).Var()
    weight = len(ranks) * max(rank_table) + 1
    objective = (largest * weight + solver.Sum(ranks)).Var()
    if bound is not None:  # another shard already has (B, S): only better fills count
        solver.Add(objective < weight * bound[0] + bound[1])
    return objective


def solve(spec: WordscapesSpec, request: Request = Request(), control: Control | None = None) -> SolveResult:
    control = control or Control()
    started = time.perf_counter()
    solver, letters, word_ids, objective = build_model(spec, best=request.best, bound=request.bound)
    by_word = solver.Phase(word_ids, solver.CHOOSE_MIN_SIZE_LOWEST_MIN, solver.ASSIGN_MIN_VALUE)
    rest = solver.Phase(list(letters.values()), solver.CHOOSE_FIRST_UNBOUND, solver.ASSIGN_MIN_VALUE)
    poll = StopPoll(solver, control)
    monitors = [poll.limit]
    if objective is not None:
        monitors.append(solver.Minimize(objective, 1))  # branch and bound
    sink, reached_limit, best = SolutionSink(request, control), False, None
    solver.NewSearch(solver.Compose([by_word, rest]), monitors)
    try:
        while solver.NextSolution():
            rows = spec.render({cell: ALPHABET[v.Value()] for cell, v in letters.items()})
            check_wordscapes(spec, rows)
            if request.best:  # each fill improves on the last (the objective is exact): keep the newest
                best = control.objective = spec.fill_objective(rows)
                sink.solutions.clear()
                sink.count = 0
            if sink.record(rows) and not request.best:
                reached_limit = True
                break
    finally:
        branches, failures = solver.Branches(), solver.Failures()
        solver.EndSearch()
    stopped_by = "limit" if reached_limit else poll.reason
    exhausted = stopped_by is None
    return SolveResult("cp", status_of(sink.count, exhausted), exhausted or reached_limit, sink.count, sink.solutions,
                       time.perf_counter() - started, stopped_by, objective=best,
                       stats={"branches": branches, "failures": failures})
