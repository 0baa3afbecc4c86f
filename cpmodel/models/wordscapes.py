r"""Wordscapes board fill as a CP-SAT model.

Problem. Fill every open cell of a crossword board so that each slot (a
maximal run of ≥ 2 open cells) spells a distinct dictionary word that can be
spelled from the wheel's letters.

Variables.
    ℓ[p] ∈ 0..25           the letter of open cell p (fixed where pre-filled)
    w[s] ∈ 0..|V|-1         the number of slot s's word in the vocabulary V,
                            the union of all slots' candidate words

Constraints.
    (1) (ℓ[p_1], …, ℓ[p_k], w[s]) ∈ {(word, number(word)) : word ∈ W_s}
        slot s spells one of its candidates W_s (right length, spellable
        from the wheel, agreeing with pre-filled letters), and w[s] names it
    (2) AllDifferent(w[s] for every slot s)      no word is used twice
    (3) ℓ[p] ∈ wheel letters for an open cell in no slot

Objective (``--best``, the most familiar fill), as for rectangles:
    ρ[s] = rank(w[s])  (AddElement; a word's rank among the lexicon's words of its length)
    minimise W · max_s ρ[s] + Σ_s ρ[s],   W = (number of slots) · (largest rank) + 1
so the largest rank comes first and the sum breaks ties. A bound (B, S) from
another shard adds  W · max ρ + Σ ρ < W · B + S  (only better fills count).

w[s] is determined by the letters (each word has one number), so every fill
is enumerated exactly once.
"""

from __future__ import annotations

import time

from ortools.sat.python import cp_model

from cpmodel.core.control import Control, Request, SolutionSink
from cpmodel.core.dawg import ALPHABET
from cpmodel.core.result import SolveResult, status_of
from cpmodel.core.specs import WordscapesSpec
from cpmodel.core.validate import check_wordscapes
from cpmodel.models.cpsat_run import apply_params, prepare, report_bound, solve_with_stop


def build_model(spec: WordscapesSpec, best: bool = False, bound: tuple[int, int] | None = None):
    """(model, letters) where letters maps each open cell to its variable;
    ``best`` adds the rank objective, kept strictly below ``bound`` (another shard's best)."""
    model = cp_model.CpModel()
    letters = {cell: model.new_int_var(0, 25, f"l{cell}") for cell in sorted(spec.board.cells)}
    for cell, fixed in spec.board.cells.items():
        if fixed:
            model.add(letters[cell] == ALPHABET.index(fixed))  # pre-filled letter
    vocabulary = sorted({w for words in spec.candidates for w in words})
    number = {w: k for k, w in enumerate(vocabulary)}
    word_ids = []
    for k, (slot, words) in enumerate(zip(spec.slots, spec.candidates, strict=True)):
        # (1) the slot spells one of its candidates, and w[s] names it
        word_id = model.new_int_var(0, max(len(vocabulary) - 1, 0), f"w{k}")
        rows = [[ALPHABET.index(c) for c in w] + [number[w]] for w in words]
        model.add_allowed_assignments([letters[cell] for cell in slot] + [word_id], rows)
        word_ids.append(word_id)
    if len(word_ids) > 1:
        model.add_all_different(word_ids)  # (2) no word twice
    wheel = sorted({ALPHABET.index(c) for c in spec.wheel})
    for cell in spec.lone_cells:  # (3) a cell in no slot still takes a wheel letter
        model.add_allowed_assignments([letters[cell]], [[c] for c in wheel])
    if best and word_ids and vocabulary:  # no candidate at all: the empty tables are infeasible already
        _add_rank_objective(model, spec, vocabulary, word_ids, bound)
    return model, letters


def _add_rank_objective(model, spec: WordscapesSpec, vocabulary: list[str], word_ids, bound=None) -> None:
    """minimise W · (largest rank) + (sum of ranks), below ``bound`` = (B, S) if given."""
    rank_of = {w: r for words, ranks in zip(spec.candidates, spec.ranks, strict=True)
               for w, r in zip(words, ranks, strict=True)}
    table = [rank_of[w] for w in vocabulary]
    top = max(table)
    ranks = []
    for k, word_id in enumerate(word_ids):
        rank = model.new_int_var(0, top, f"rank{k}")
        model.add_element(word_id, table, rank)  # ρ[s] = rank(w[s])
        ranks.append(rank)
    largest = model.new_int_var(0, top, "largest_rank")
    model.add_max_equality(largest, ranks)
    weight = len(ranks) * top + 1
    objective = weight * largest + sum(ranks)
    if bound is not None:  # another shard already has (B, S): only better fills count
        model.add(objective < weight * bound[0] + bound[1])
    model.minimize(objective)


class _Collector(cp_model.CpSolverSolutionCallback):
    """Reads each fill, validates it, and stops at the limit."""

    def __init__(self, spec, letters, request, control) -> None:
        super().__init__()
        self.spec, self.letters, self.request, self.control = spec, letters, request, control
        self.sink = SolutionSink(request, control)
        self.reached_limit = False
        self.best: tuple[int, int] | None = None

    def on_solution_callback(self) -> None:
        rows = self.spec.render({cell: ALPHABET[self.value(v)] for cell, v in self.letters.items()})
        check_wordscapes(self.spec, rows)
        if self.request.best:  # each improving fill replaces the last
            self.best = self.spec.fill_objective(rows)
            self.control.objective, self.control.bound = self.objective_value, self.best_objective_bound
            self.sink.solutions.clear()
            self.sink.count = 0
        if self.sink.record(rows):
            self.reached_limit = True
            self.stop_search()


def solve(spec: WordscapesSpec, request: Request = Request(), control: Control | None = None, log: bool = False,
          params: tuple[str, ...] = ()) -> SolveResult:
    """Build and solve; ``params`` are ``--param`` SatParameters lines, applied last."""
    control = control or Control()
    started = time.perf_counter()
    model, letters = build_model(spec, best=request.best, bound=request.bound if request.best else None)
    solver = cp_model.CpSolver()
    prepare(solver, control, log, workers=1)  # one worker: boards are small, enumeration needs it
    solver.parameters.enumerate_all_solutions = request.limit != 1 and not request.best
    apply_params(solver, params)
    if request.best:
        report_bound(solver, control)
    collector = _Collector(spec, letters, request, control)
    status = solve_with_stop(solver, model, control, collector)
    finished = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    exhausted = finished and not collector.reached_limit
    complete = exhausted or collector.reached_limit
    if request.best:  # an optimum is complete only when proven
        complete = exhausted = finished
    stopped_by = "limit" if collector.reached_limit and not request.best else (
        None if complete else control.stop_reason() or "time-limit")
    sink = collector.sink
    return SolveResult("cpsat", status_of(sink.count, exhausted), complete, sink.count, sink.solutions,
                       time.perf_counter() - started, stopped_by, objective=collector.best,
                       stats={"branches": solver.num_branches, "conflicts": solver.num_conflicts})
