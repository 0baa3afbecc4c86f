r"""Bananagrams layouts as a CP-SAT model, in a fixed R×C box.

Problem. Place the multiset M of N tiles on a grid so that the tiles are
4-connected and every maximal run of ≥ 2 letters is a word of D.

Alphabet Σ = the hand's letters ∪ {□} (□ = empty cell).

Variables.
    x[r,c,a] ∈ {0,1}           cell (r,c) holds a ∈ Σ;  Σ_a x[r,c,a] = 1
    ℓ[r,c]  ∈ 0..|Σ|-1          the same as an integer (AddMapDomain)
    occ[r,c] = 1 − x[r,c,□]     the cell holds a tile
    root[r,c] ∈ {0,1}           the flow's source
    f[u→v] ∈ 0..N−1             flow on each directed edge between neighbours

Constraints.
    (1) Σ_{r,c} x[r,c,a] = M(a)  for every letter a          every tile placed once
    (2) rows and columns are words, in one of two encodings:
        automaton: (ℓ[r,0], …, ℓ[r,C−1]) ∈ L, where L is the regular
            language of lines over Σ whose maximal letter runs are single
            letters or words; its DFA is the trie of the words plus a
            "blank" state (AddAutomaton)
        table: for every possible run (start, length k ≥ 2) a literal
            run ⇔ (□ or edge before) ∧ (k tiles) ∧ (□ or edge after), and
            run ⇒ (ℓ over the run) ∈ D_k (enforced AddAllowedAssignments)
    (3) connectivity by single-commodity flow: the root sends N − 1 units,
        every other tile keeps one:
            Σ_in f − Σ_out f = occ[v] − N·root[v],   f[u→v] ≤ (N−1)·occ[u], (N−1)·occ[v]
    (4) symmetry: the layout touches row 0 and column 0 (translation), and
        the root is pinned to the first tile of row 0, so it is a function
        of the letters.

The flows are not determined by the letters (many flows witness one
connected layout), so this model is solved for one layout or an optimum,
never enumerated.

Box strategy: ``solve`` tries three roomy compact boxes first (the smallest
of area ≥ 2N, where layouts are found fast), then the largest boxes,
R + C = N + 1. An infeasible box is proven for that box and every box inside
it (a layout that fits the smaller box fits the larger one), so those are
skipped. ``none`` is reported only when every box that could hold a connected
layout (R ≤ C by transposition, R + C ≤ N + 1) was proven infeasible, itself
or inside a larger one: the ⌈N/2⌉ largest boxes cover them all.
``--compact`` (``compact``) first lets the backtracker search boxes of
growing area for a compact layout, then asks CP-SAT about every box of
smaller area, smallest first: the area is proven smallest only when all of
those are infeasible.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from cpmodel.core.boards import layout_rows
from cpmodel.core.control import Control
from cpmodel.core.result import FOUND, NONE, UNKNOWN, SolveResult
from cpmodel.core.specs import BananaSpec
from cpmodel.core.validate import check_banana
from cpmodel.models.cpsat_run import apply_params, prepare, solve_with_stop

BLANK = "."
ENCODINGS = ("automaton", "table")


@dataclass
class BananaVars:
    rows: int
    cols: int
    alphabet: str  # letters of the hand, then BLANK
    x: list  # x[r][c][a]
    letter: list  # ℓ[r][c]
    occ: list  # occ[r][c] literal


def line_automaton(words, alphabet: str):
    """DFA of lines whose maximal letter runs are single letters or words.

    State 0 is "after a blank / at the start"; every other state is a trie
    node, i.e. the letters of the current run so far."""
    blank = alphabet.index(BLANK)
    node_of: dict[str, int] = {"": 0}
    is_word: set[int] = set()
    for word in words:
        for k in range(1, len(word) + 1):
            node_of.setdefault(word[:k], len(node_of))
        is_word.add(node_of[word])
    for a in alphabet[:-1]:  # a single letter is always a legal run
        node_of.setdefault(a, len(node_of))
    transitions = [(0, blank, 0)]
    finals = {0}
    for prefix, state in node_of.items():
        if not prefix:
            continue
        for a in alphabet[:-1]:
            if prefix + a in node_of:
                transitions.append((state, alphabet.index(a), node_of[prefix + a]))
        if len(prefix) == 1 or state in is_word:  # the run may end here
            transitions.append((state, blank, 0))
            finals.add(state)
    for a in alphabet[:-1]:
        transitions.append((0, alphabet.index(a), node_of[a]))
    return 0, sorted(finals), transitions


def build_model(spec: BananaSpec, rows: int, cols: int, encoding: str = "automaton"):
    """The model of ``spec`` in an rows×cols box; nothing is solved here."""
    model = cp_model.CpModel()
    alphabet = "".join(sorted(set(spec.hand))) + BLANK
    blank = len(alphabet) - 1
    n = spec.size
    x = [[[model.new_bool_var(f"x[{r},{c},{a}]") for a in alphabet] for c in range(cols)] for r in range(rows)]
    letter = [[model.new_int_var(0, blank, f"l[{r},{c}]") for c in range(cols)] for r in range(rows)]
    occ = [[x[r][c][blank].Not() for c in range(cols)] for r in range(rows)]
    for r in range(rows):
        for c in range(cols):
            model.add_exactly_one(x[r][c])  # one symbol per cell
            model.add_map_domain(letter[r][c], x[r][c])

    # (1) every tile of the hand is placed exactly once
    for k, a in enumerate(alphabet[:-1]):
        model.add(sum(x[r][c][k] for r in range(rows) for c in range(cols)) == spec.hand.count(a))

    # (2) every maximal run of ≥ 2 letters is a word
    lines = [letter[r] for r in range(rows)] + [[letter[r][c] for r in range(rows)] for c in range(cols)]
    if encoding == "automaton":
        for length in {cols, rows}:
            start, finals, transitions = line_automaton([w for w in spec.words if len(w) <= length], alphabet)
            for line in (line for line in lines if len(line) == length):
                model.add_automaton(line, start, finals, transitions)
    else:
        _add_run_tables(model, spec, alphabet, x, rows, cols)

    # (4) translation symmetry: the layout touches row 0 and column 0
    model.add_bool_or([occ[0][c] for c in range(cols)])
    model.add_bool_or([occ[r][0] for r in range(rows)])

    # (3) connectivity: a flow of N − 1 units from the root reaches every tile
    _add_flow(model, occ, rows, cols, n)
    return model, BananaVars(rows, cols, alphabet, x, letter, occ)


def _add_run_tables(model, spec, alphabet, x, rows, cols) -> None:
    """Enforced table per possible run: run(start, k) ⇒ its letters form a word."""
    blank = len(alphabet) - 1
    by_length: dict[int, list] = {}
    for w in spec.words:
        by_length.setdefault(len(w), []).append([alphabet.index(ch) for ch in w])
    for dr, dc, length in ((0, 1, cols), (1, 0, rows)):
        starts = [(r, c) for r in range(rows) for c in range(cols)]
        for (r, c) in starts:
            position = c if dc else r
            for k in range(2, length - position + 1):
                cells = [(r + i * dr, c + i * dc) for i in range(k)]
                run = model.new_bool_var(f"run[{r},{c},{dr},{k}]")
                edges = []
                before, after = (r - dr, c - dc), (r + k * dr, c + k * dc)
                if 0 <= before[0] and 0 <= before[1]:
                    edges.append(x[before[0]][before[1]][blank])
                if after[0] < rows and after[1] < cols:
                    edges.append(x[after[0]][after[1]][blank])
                inside = [x[i][j][blank].Not() for i, j in cells]
                model.add_bool_and(inside + edges).only_enforce_if(run)
                model.add_bool_or([run] + [lit.Not() for lit in inside + edges])
                tuples = by_length.get(k, [])
                variables = [model.new_int_var(0, blank, "") for _ in cells]
                for var, (i, j) in zip(variables, cells, strict=True):
                    model.add_map_domain(var, x[i][j])
                if tuples:
                    model.add_allowed_assignments(variables, tuples).only_enforce_if(run)
                else:
                    model.add(run == 0)


def _add_flow(model, occ, rows, cols, n: int) -> None:
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    # the root is the first tile of row 0: root[0,c] ⇔ occ[0,c] ∧ no tile left of it
    root = {cell: model.new_bool_var(f"root{cell}") for cell in cells}
    for (r, c) in cells:
        if r > 0:
            model.add(root[(r, c)] == 0)
            continue
        conditions = [occ[0][c]] + [occ[0][k].Not() for k in range(c)]
        model.add_bool_and(conditions).only_enforce_if(root[(0, c)])
        model.add_bool_or([root[(0, c)]] + [lit.Not() for lit in conditions])
    flow = {}
    for (r, c) in cells:
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            v = (r + dr, c + dc)
            if v in root:
                f = model.new_int_var(0, n - 1, f"f[{r},{c}->{v}]")
                model.add(f == 0).only_enforce_if(occ[r][c].Not())
                model.add(f == 0).only_enforce_if(occ[v[0]][v[1]].Not())
                flow[((r, c), v)] = f
    for v in cells:
        inflow = sum(f for (a, b), f in flow.items() if b == v)
        outflow = sum(f for (a, b), f in flow.items() if a == v)
        model.add(inflow - outflow == occ[v[0]][v[1]] - n * root[v])


def read_layout(solver, variables: BananaVars) -> dict:
    cells = {}
    for r in range(variables.rows):
        for c in range(variables.cols):
            symbol = variables.alphabet[solver.value(variables.letter[r][c])]
            if symbol != BLANK:
                cells[(r, c)] = symbol
    return cells


def candidate_boxes(n: int, roomy_first: int = 3) -> list[tuple[int, int]]:
    """Every box that can hold a connected layout of n tiles (R ≤ C, R·C ≥ n,
    R + C ≤ n + 1), in the order ``solve`` tries them: the ``roomy_first``
    smallest boxes of area ≥ 2n (where layouts are usually found), then the
    largest boxes (R + C = n + 1: every other box fits inside one of them, so
    once they are infeasible nothing is left to try), then the rest; each
    group by area, then squareness."""
    boxes = [(r, c) for r in range(1, n + 1) for c in range(r, n + 1) if r * c >= n and r + c <= n + 1]
    by_area = sorted(boxes, key=lambda b: (b[0] * b[1], b[1] - b[0]))
    roomy = [b for b in by_area if b[0] * b[1] >= 2 * n][:roomy_first]
    largest = [b for b in by_area if b[0] + b[1] == n + 1 and b not in roomy]
    return roomy + largest + [b for b in by_area if b not in roomy and b not in largest]


def solve(spec: BananaSpec, control: Control | None = None, encoding: str = "automaton", log: bool = False,
          params: tuple[str, ...] = ()) -> SolveResult:
    """Grow the box until a layout is found, every box is proven empty, or time runs out."""
    control = control or Control()
    started = time.perf_counter()
    word_set = set(spec.words)
    proven_empty: list[tuple[int, int]] = []
    tried, timed_out = [], False
    for rows, cols in candidate_boxes(spec.size):
        reason = control.stop_reason()
        if reason:
            timed_out = True
            break
        inside = next(((r, c) for r, c in proven_empty if rows <= r and cols <= c), None)
        if inside is not None:  # a layout in this box would fit the larger, infeasible one
            tried.append(f"{rows}x{cols}:inside {inside[0]}x{inside[1]}")
            continue
        status, cells, solver = _solve_box(spec, rows, cols, encoding, control, log, params=params)
        tried.append(f"{rows}x{cols}:{solver.status_name(status)}")
        if cells is not None:
            check_banana(cells, spec.hand, word_set)
            return _result(FOUND, True, [tuple(layout_rows(cells))], started, None, tried, solver)
        if status == cp_model.INFEASIBLE:
            proven_empty.append((rows, cols))
        else:
            timed_out = True
    if timed_out:
        return _result(UNKNOWN, False, [], started, control.stop_reason() or "time-limit", tried, None)
    return _result(NONE, True, [], started, None, tried, None)


def _solve_box(spec, rows, cols, encoding, control, log, params=()):
    model, variables = build_model(spec, rows, cols, encoding)
    solver = cp_model.CpSolver()
    prepare(solver, control, log, workers=2)  # the portfolio helps on these small, hard boxes
    apply_params(solver, params)
    status = solve_with_stop(solver, model, control)
    cells = read_layout(solver, variables) if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None
    return status, cells, solver


def compact(spec: BananaSpec, start_layout: tuple[str, ...], control: Control | None = None,
            encoding: str = "automaton", log: bool = False, params: tuple[str, ...] = (), table=None) -> SolveResult:
    """Smallest bounding-box area: heuristic first, then CP-SAT box by box.

    1. heuristics.bananagrams.smallest_box_layout: the backtracker inside
       boxes of growing area (each with a small budget) finds a compact layout.
    2. CP-SAT then takes every box of smaller area (R ≤ C, R + C ≤ N + 1),
       smallest first. A feasible box holds a layout whose bounding box has
       that area, since every smaller box was proven infeasible before it.
       When every smaller box is infeasible the area is *proven smallest*;
       a box cut short by the clock leaves the answer unproven."""
    from heuristics.bananagrams import boxes_below, smallest_box_layout

    control = _held_back(control or Control())
    started = time.perf_counter()
    words = set(spec.words)
    best = {(r, c): ch for r, row in enumerate(start_layout) for c, ch in enumerate(row) if ch != BLANK}
    check_banana(best, spec.hand, words)  # the starting layout must itself be legal
    rows = layout_rows(best)
    found, tried = smallest_box_layout(spec, len(rows) * len(rows[0]), control, table)
    if found is not None:
        best = {(r, c): ch for r, row in enumerate(found) for c, ch in enumerate(row) if ch != BLANK}
    heuristic_area = _area(best)
    proven, solver, boxes = True, None, []
    for box_rows, box_cols in boxes_below(spec.size, heuristic_area):
        if control.stop_reason():
            proven = False
            break
        status, cells, solver = _solve_box(spec, box_rows, box_cols, encoding, control, log, params=params)
        boxes.append(f"{box_rows}x{box_cols}:{solver.status_name(status)}")
        if cells is not None:
            best = cells
            break
        if status != cp_model.INFEASIBLE:
            proven = False
            break
    check_banana(best, spec.hand, words)
    result = _result(FOUND, proven, [tuple(layout_rows(best))], started,
                     None if proven else control.stop_reason() or "time-limit", boxes, solver)
    result.stats.update(optimum_proven=proven, area=_area(best), heuristic_area=heuristic_area,
                        heuristic_boxes=len(tried), perimeter=2 * sum(_shape(best)))
    return result


def _held_back(control: Control) -> Control:
    """The caller's control with 5% of its time limit kept back: a CP-SAT box
    stops a little late (its workers, a model built near the deadline), and
    ``--compact --time-limit T`` should answer within T."""
    if control.time_limit is None:
        return control
    return Control(time_limit=0.95 * control.time_limit, stop=control.stop, started=control.started)


def _shape(cells: dict) -> tuple[int, int]:
    rows = layout_rows(cells)
    return len(rows), len(rows[0])


def _area(cells: dict) -> int:
    height, width = _shape(cells)
    return height * width


def _result(status, complete, layouts, started, stopped_by, boxes, solver) -> SolveResult:
    stats = {"boxes": boxes}
    if solver is not None:
        stats.update(branches=solver.num_branches, conflicts=solver.num_conflicts)
    return SolveResult("cpsat", status, complete, len(layouts), layouts, time.perf_counter() - started, stopped_by, stats=stats)
