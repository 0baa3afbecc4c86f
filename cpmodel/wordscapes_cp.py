r"""Wordscapes board fill in OR-Tools' classic CP solver (depth-first, no learning).

The same formulation as cpmodel/wordscapes.py, for ``ortools.constraint_solver``.

Variables.
    ℓ[p] ∈ 0..25            the letter of open cell p (fixed where pre-filled)
    w[s] ∈ 0..|V|-1          the number of slot s's word in the vocabulary V,
                             the union of all slots' candidates, in rank order

Constraints.
    (1) (ℓ[p_1], …, ℓ[p_k], w[s]) ∈ {(word, number(word)) : word ∈ W_s}
        slot s spells one of its candidates, and w[s] names it
    (2) AllDifferent(w[s] for every slot s)      no word is used twice
    (3) ℓ[p] ∈ wheel letters for an open cell in no slot

w[s] is a function of the letters, so every fill is enumerated once.

Search: the slot with the fewest words left, its most common word first
(word-level branching, as the backtracker does), then any lone cells.
"""

from __future__ import annotations

import time

from ortools.constraint_solver import pywrapcp

from cpmodel.control import Control, Request, SolutionSink
from cpmodel.dawg import ALPHABET
from cpmodel.rectangle_cp import StopPoll
from cpmodel.result import SolveResult, status_of
from cpmodel.specs import WordscapesSpec
from cpmodel.validate import check_wordscapes


def build_model(spec: WordscapesSpec):
    """(solver, letters, word_ids): letters maps each open cell to its variable."""
    params = pywrapcp.Solver.DefaultSolverParameters()
    params.store_names = False
    solver = pywrapcp.Solver("wordscapes", params)
    letters = {cell: solver.IntVar(0, 25, f"l{cell}") for cell in sorted(spec.board.cells)}
    for cell, fixed in spec.board.cells.items():
        if fixed:
            solver.Add(letters[cell] == ALPHABET.index(fixed))  # pre-filled letter
    vocabulary = list(dict.fromkeys(w for words in spec.candidates for w in words))
    number = {w: k for k, w in enumerate(vocabulary)}
    word_ids = []
    for k, (slot, words) in enumerate(zip(spec.slots, spec.candidates)):
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
    return solver, letters, word_ids


def solve(spec: WordscapesSpec, request: Request = Request(), control: Control | None = None) -> SolveResult:
    control = control or Control()
    started = time.perf_counter()
    solver, letters, word_ids = build_model(spec)
    by_word = solver.Phase(word_ids, solver.CHOOSE_MIN_SIZE_LOWEST_MIN, solver.ASSIGN_MIN_VALUE)
    rest = solver.Phase(list(letters.values()), solver.CHOOSE_FIRST_UNBOUND, solver.ASSIGN_MIN_VALUE)
    poll = StopPoll(solver, control)
    sink, reached_limit = SolutionSink(request, control), False
    solver.NewSearch(solver.Compose([by_word, rest]), [poll.limit])
    try:
        while solver.NextSolution():
            rows = spec.render({cell: ALPHABET[v.Value()] for cell, v in letters.items()})
            check_wordscapes(spec, rows)
            if sink.record(rows):
                reached_limit = True
                break
    finally:
        branches = solver.Branches()
        solver.EndSearch()
    stopped_by = "limit" if reached_limit else poll.reason
    exhausted = stopped_by is None
    return SolveResult("cp", status_of(sink.count, exhausted), exhausted or reached_limit, sink.count, sink.solutions,
                       time.perf_counter() - started, stopped_by, stats={"branches": branches})
