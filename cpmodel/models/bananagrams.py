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
            letters or words (AddAutomaton; its DFA below)
        table: for every possible run (start, length k ≥ 2) a literal
            run ⇔ (□ or edge before) ∧ (k tiles) ∧ (□ or edge after), and
            run ⇒ (ℓ over the run) ∈ D_k (enforced AddAllowedAssignments)
    (3) connectivity by single-commodity flow: the root sends N − 1 units,
        every other tile keeps one:
            Σ_in f − Σ_out f = occ[v] − N·root[v],   f[u→v] ≤ (N−1)·occ[u], (N−1)·occ[v]
    (4) symmetry: the layout touches row 0 and column 0 (translation), and
        the root is pinned to the first tile of row 0, so it is a function
        of the letters.
    (5) redundant: Σ_{r,c} x[r,c,□] = R·C − N (implied by (1) and the
        exactly-ones, but stated it lets the LP see the blanks: 2–5× fewer
        branches in tight boxes). In ``compact``, where every box of smaller
        area is already proven empty, the layout also touches row R−1 and
        column C−1.

The line automaton is the trie of the words. Its minimal DFA (``minimal=True``,
the DAWG of the runs closed by a blank back to its start) has about 8× fewer
states, and CP-SAT's expanded model a third of the Booleans, but it was not
faster (21-tile hands: presolve as long, more branches), so it stays an
option for Lesson 5, off by default.

The flows are not determined by the letters (many flows witness one
connected layout), so this model is solved for one layout or an optimum,
never enumerated.

How ``solve`` spends its time (each step measured in docs/modelling.md,
"Making the Bananagrams model fast"):

1. A hint. The backtracker lays the hand out (in the first roomy box,
   then anywhere); CP-SAT confirms that layout in its own box with the
   layout's own words (a layout legal with fewer words is legal with all)
   and light presolve. Finding is the backtracker's strength; the model is
   there for what it cannot do: proofs.
2. The word-count relaxation (:mod:`cpmodel.models.bananagrams_words`):
   forget where words are, keep how often each is used across and down.
   Infeasible counts prove ``none`` at once: hands with few vowels or many
   j, q, x, z, which the box-by-box proof below cannot finish in minutes.
3. Box by box. ``candidate_boxes`` orders them: three roomy boxes, then
   the largest (R + C = N + 1). An infeasible box is proven for that box and
   every box inside it (a layout that fits the smaller box fits the larger
   one), so those are skipped. ``none`` is reported only when every box that
   could hold a connected layout (R ≤ C by transposition, R + C ≤ N + 1) was
   proven infeasible, itself or inside a larger one. Before its cell model,
   each box gets the full-lines packing (below) and the relaxation's box
   version (words no longer than the box, room for runs per line), each
   with a short budget.

``--compact`` (``compact``) first lets the backtracker search boxes of
growing area for a compact layout (only boxes it would fill at most 85%:
it never packs tighter), then settles every box of smaller area, smallest
first: the area is proven smallest only when all of those are infeasible.
A box of B = R·C − N blanks has at least R − B blank-free rows, each a
word of length C, and C − B blank-free columns, words of length R; when the
hand cannot hold that many at once (a small packing, ``full_lines_allow`` in
:mod:`cpmodel.models.bananagrams_words`) the box is empty without a cell
model (2×11 for 21 tiles: an 11-letter word and ten 2-letter words). A
box with few ways to place its blanks (C(R·C, B) ≤ 13,000: 4×6 and 5×5 for
21 tiles, 4×8 for 30) goes to an exact native fill,
:mod:`heuristics.banana_fill`: each placement of the blanks is a crossword,
filled slot by slot with arc consistency and the hand as a budget; it
decides boxes this model leaves open. The rest go to CP-SAT. Those boxes are
nearly full, so they are decided by search, not presolve: one presolve pass,
and two search workers (``default_lp`` and ``no_lp``) in place of one beside
feasibility jump.

:class:`Tuning` switches each speed-up off for Lesson 5; ``BASELINE`` is the
model as it was first written.
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
HINT_SECONDS = 0.5  # the backtracker's budget for a hint (it lays out 144 tiles in 0.3 s)
COUNTS_SECONDS = 5.0  # the word-count relaxation's budget for a whole hand: infeasible hands fail in < 0.3 s
HEURISTIC_BOX_SECONDS = 0.1  # --compact: the backtracker's try per box (0.3 s: 2 s more per 21-tile hand, no smaller box)
BOX_COUNTS_SECONDS = 1.0  # and per box (feasible counts can take seconds to find, and prove nothing)


@dataclass(frozen=True)
class Tuning:
    """The speed-ups of Lesson 5, each measured on its own and each on by
    default; ``BASELINE`` turns them all off (the model as it was first written)."""
    minimal_automaton: bool = False  # the DAWG line automaton: a third of the Booleans, but no faster (measured)
    hint: bool = True  # the backtracker's layout as CP-SAT's solution hint
    light_presolve: bool = True  # when a hint is there to confirm, presolve lightly
    own_words: bool = True  # confirm the hint with the hint's own words only
    counting: bool = True  # the word-count relaxation proves hopeless hands and boxes empty
    blank_count: bool = True  # state the number of blanks in the box (redundant)
    tight_boxes: bool = True  # --compact: the layout touches all four sides of each box it tries
    table_when_tight: bool = True  # --compact: run tables in its nearly full boxes (2–4× faster there)
    box_search: bool = True  # --compact: two search workers (not feasibility jump) and one presolve pass per box
    heuristic_fill: float = 0.85  # --compact: the backtracker tries boxes it fills at most this much (it never packed beyond 0.81)
    full_lines: bool = True  # a box's blank-free lines must be words held at once (bananagrams_words.full_lines_allow)
    exact_fill: bool = True  # --compact: boxes with few blank placements go to the exact fill (heuristics.banana_fill)


FAST = Tuning()
BASELINE = Tuning(minimal_automaton=False, hint=False, light_presolve=False, own_words=False, counting=False,
                  blank_count=False, tight_boxes=False, table_when_tight=False, box_search=False,
                  heuristic_fill=1.0, full_lines=False, exact_fill=False)
LIGHT_PRESOLVE = ("cp_model_probing_level:0", "symmetry_level:0", "max_presolve_iterations:1")
# A nearly full box is decided by search: with two workers CP-SAT runs one search and feasibility jump
# (a local search that never finds these layouts); three workers without it run default_lp and no_lp.
BOX_SEARCH = ("num_workers:3", "use_feasibility_jump:false", "max_presolve_iterations:1")


@dataclass
class BananaVars:
    rows: int
    cols: int
    alphabet: str  # letters of the hand, then BLANK
    x: list  # x[r][c][a]
    letter: list  # ℓ[r][c]
    occ: list  # occ[r][c] literal
    root: dict  # (r, c) → root literal
    flow: dict  # ((r, c), (r', c')) → flow on that edge


def line_automaton(words, alphabet: str, minimal: bool = False):
    """DFA of lines whose maximal letter runs are single letters or words.

    State ``start`` is "after a blank / at the start of the line"; every other
    state stands for the letters of the current run so far. ``minimal``
    merges the runs that every continuation treats alike (the minimal DAWG
    of the words and the single letters, Myhill–Nerode): for a 21-tile hand
    about 900 states against 7,000 trie nodes, and CP-SAT expands the
    automaton into one Boolean per state and position. It shrinks the model
    but did not speed it up, so the trie is the default."""
    if minimal:
        return _minimal_line_automaton(words, alphabet)
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


def _minimal_line_automaton(words, alphabet: str):
    """The DAWG of the runs (words and single letters), closed into a loop:
    a blank leads from every state where a run may end back to the start."""
    from cpmodel.core.dawg import ALPHABET, build_dawg

    dawg = build_dawg(list(words) + list(alphabet[:-1]))
    code = {ALPHABET.index(a): k for k, a in enumerate(alphabet[:-1])}
    transitions = [(s, code[letter], t) for s, letter, t in dawg.transitions]
    finals = sorted(set(dawg.finals) | {dawg.start})  # the start: an empty line, or after a blank
    transitions += [(state, alphabet.index(BLANK), dawg.start) for state in finals]
    return dawg.start, finals, transitions


def build_model(spec: BananaSpec, rows: int, cols: int, encoding: str = "automaton", minimal: bool = False,
                blank_count: bool = True, tight: bool = False):
    """The model of ``spec`` in an rows×cols box; nothing is solved here.
    ``tight``: the layout touches all four sides (sound once every box of
    smaller area is proven empty, as ``compact`` does)."""
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
            start, finals, transitions = line_automaton([w for w in spec.words if len(w) <= length], alphabet, minimal)
            for line in (line for line in lines if len(line) == length):
                model.add_automaton(line, start, finals, transitions)
    else:
        _add_run_tables(model, spec, alphabet, x, rows, cols)

    # (4) translation symmetry: the layout touches row 0 and column 0
    model.add_bool_or([occ[0][c] for c in range(cols)])
    model.add_bool_or([occ[r][0] for r in range(rows)])
    if tight:  # every smaller box is proven empty: the layout fills this one edge to edge
        model.add_bool_or([occ[rows - 1][c] for c in range(cols)])
        model.add_bool_or([occ[r][cols - 1] for r in range(rows)])

    # (5) redundant: the box holds exactly R·C − N blanks (implied by (1); stated, it cuts the search 2–5×)
    if blank_count:
        model.add(sum(x[r][c][blank] for r in range(rows) for c in range(cols)) == rows * cols - n)

    # (3) connectivity: a flow of N − 1 units from the root reaches every tile
    root, flow = _add_flow(model, occ, rows, cols, n)
    return model, BananaVars(rows, cols, alphabet, x, letter, occ, root, flow)


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


def _add_flow(model, occ, rows, cols, n: int):
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
    return root, flow


def add_layout_hint(model, variables: BananaVars, cells: dict) -> None:
    """Hint every variable from a legal layout (cells from (0, 0), fitting the
    box): its letters, its root (the first tile of row 0) and a flow along a
    breadth-first tree from the root, each edge carrying the tiles beyond it.
    A complete, feasible hint lets CP-SAT answer as soon as it has checked it."""
    from collections import deque

    for r in range(variables.rows):
        for c in range(variables.cols):
            symbol = cells.get((r, c), BLANK)
            for k, a in enumerate(variables.alphabet):
                model.add_hint(variables.x[r][c][k], a == symbol)
            model.add_hint(variables.letter[r][c], variables.alphabet.index(symbol))
    root = min((cell for cell in cells if cell[0] == 0), key=lambda cell: cell[1])
    parent, order, queue = {root: None}, [], deque([root])
    while queue:  # breadth-first tree of the tiles
        u = queue.popleft()
        order.append(u)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            v = (u[0] + dr, u[1] + dc)
            if v in cells and v not in parent:
                parent[v] = u
                queue.append(v)
    beyond = dict.fromkeys(order, 1)
    for v in reversed(order[1:]):  # each tile's subtree size, leaves first
        beyond[parent[v]] += beyond[v]
    for cell, literal in variables.root.items():
        model.add_hint(literal, cell == root)
    for (u, v), f in variables.flow.items():
        model.add_hint(f, beyond[v] if parent.get(v) == u else 0)


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
          params: tuple[str, ...] = (), tuning: Tuning = FAST) -> SolveResult:
    """A layout, a proof that there is none, or ``unknown`` when time runs out.

    1. (``tuning.hint``) The backtracker's layout, if it finds one within a
       small budget, is CP-SAT's hint in the box of that layout: CP-SAT checks
       it and answers at once. The layout is CP-SAT's answer, validated.
    2. (``tuning.counting``) The word-count relaxation
       (:mod:`cpmodel.models.bananagrams_words`): infeasible counts prove
       ``none`` without a cell; per box, they prove the box empty.
    3. Box by box, as ``candidate_boxes`` orders them."""
    control = control or Control()
    started = time.perf_counter()
    word_set = set(spec.words)
    tried: list[str] = []
    stats: dict = {}
    if control.stop_reason():
        return _result(UNKNOWN, False, [], started, control.stop_reason(), tried, None, stats)
    if tuning.hint:
        hint, stats["hint_seconds"] = _backtrack_hint(spec, control)
        if hint is not None:
            rows, cols = _shape(hint)
            own = own_words(hint) if tuning.own_words else spec
            stats["hint_words"] = len(own.words)
            status, cells, solver = _solve_box(own, rows, cols, encoding, control, log, params, tuning, hint)
            tried.append(f"{rows}x{cols}:{solver.status_name(status)} (hinted)")
            if cells is not None:
                check_banana(cells, spec.hand, word_set)
                return _result(FOUND, True, [tuple(layout_rows(cells))], started, None, tried, solver, stats)
    if tuning.counting and counts_say_none(spec, control):
        from cpmodel.models.bananagrams_words import explain

        stats["proof"] = "word counts"
        stats["conflict"] = explain(spec, time_limit=1.0) or []
        return _result(NONE, True, [], started, None, tried, None, stats)
    proven_empty: list[tuple[int, int]] = []
    for rows, cols in candidate_boxes(spec.size):
        if control.stop_reason():
            return _result(UNKNOWN, False, [], started, control.stop_reason(), tried, None, stats)
        inside = next(((r, c) for r, c in proven_empty if rows <= r and cols <= c), None)
        if inside is not None:  # a layout in this box would fit the larger, infeasible one
            tried.append(f"{rows}x{cols}:inside {inside[0]}x{inside[1]}")
            continue
        if tuning.full_lines and full_lines_say_empty(spec, (rows, cols), control):
            tried.append(f"{rows}x{cols}:INFEASIBLE (full lines)")
            proven_empty.append((rows, cols))
            continue
        if tuning.counting and counts_say_none(spec, control, (rows, cols), BOX_COUNTS_SECONDS):
            tried.append(f"{rows}x{cols}:INFEASIBLE (word counts)")
            proven_empty.append((rows, cols))
            continue
        status, cells, solver = _solve_box(spec, rows, cols, encoding, control, log, params, tuning)
        tried.append(f"{rows}x{cols}:{solver.status_name(status)} {solver.wall_time:.1f}s")
        if cells is not None:
            check_banana(cells, spec.hand, word_set)
            return _result(FOUND, True, [tuple(layout_rows(cells))], started, None, tried, solver, stats)
        if status != cp_model.INFEASIBLE:
            return _result(UNKNOWN, False, [], started, control.stop_reason() or "time-limit", tried, None, stats)
        proven_empty.append((rows, cols))
    return _result(NONE, True, [], started, None, tried, None, stats)


def _backtrack_hint(spec: BananaSpec, control: Control) -> tuple[dict | None, float]:
    """The backtracker's layout (rows no more than columns), or None: first
    inside the first roomy box (a compact hint makes a small model: fewer
    cells, shorter words), then anywhere; at most a second and a tenth of
    the time left in all."""
    from heuristics.bananagrams import solve as backtrack

    started = time.perf_counter()
    budget = HINT_SECONDS if control.time_limit is None else min(HINT_SECONDS, 0.1 * (control.time_limit - control.elapsed()))
    for box, share in ((candidate_boxes(spec.size)[0], 0.5), (None, 1.0)):
        left = budget - (time.perf_counter() - started)
        found = backtrack(spec, "free", Control(time_limit=max(0.0, share * left), stop=control.stop), box=box)
        if found.solutions:
            rows = found.solutions[0]
            if len(rows) > len(rows[0]):  # boxes have R ≤ C: transpose
                rows = tuple("".join(line) for line in zip(*rows, strict=True))
            cells = _cells_of(rows)
            return cells, round(time.perf_counter() - started, 4)
    return None, round(time.perf_counter() - started, 4)


def own_words(cells: dict) -> BananaSpec:
    """The layout's hand with only the layout's own words: a layout legal with
    fewer words is legal with all, so this small model confirms a hint as
    well as the whole lexicon's, without expanding an automaton of thousands
    of words (13 s for a 40-tile hand in an 8×10 box)."""
    from cpmodel.core.boards import maximal_runs

    words = sorted({word for word, _, _ in maximal_runs(cells)})
    return BananaSpec("".join(sorted(cells.values())), tuple(words))


def counts_say_none(spec: BananaSpec, control: Control, box: tuple[int, int] | None = None,
                    seconds: float = COUNTS_SECONDS) -> bool:
    """True when the word counts are proven infeasible (for the whole hand, or
    in the box); False when they are feasible or undecided in their budget."""
    from cpmodel.models.bananagrams_words import counts_feasible

    return counts_feasible(spec, box, control, time_limit=seconds) is False


def full_lines_say_empty(spec: BananaSpec, box: tuple[int, int], control: Control) -> bool:
    """True when the box's blank-free rows or columns cannot all be words at once (proven)."""
    from cpmodel.models.bananagrams_words import full_lines_allow

    return full_lines_allow(spec, box, control) is False


def _solve_box(spec, rows, cols, encoding, control, log, params=(), tuning: Tuning = FAST, hint: dict | None = None,
               tight: bool = False):
    model, variables = build_model(spec, rows, cols, encoding, tuning.minimal_automaton, tuning.blank_count, tight)
    if hint is not None:
        add_layout_hint(model, variables, hint)
    solver = cp_model.CpSolver()
    prepare(solver, control, log, workers=2)  # the portfolio helps on these small, hard boxes
    if hint is not None and tuning.light_presolve:  # nothing to prove: presolve little, check the hint
        apply_params(solver, LIGHT_PRESOLVE)
    if tight and tuning.box_search:
        apply_params(solver, BOX_SEARCH)
    apply_params(solver, params)
    status = solve_with_stop(solver, model, control)
    cells = read_layout(solver, variables) if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None
    return status, cells, solver


def compact(spec: BananaSpec, start_layout: tuple[str, ...], control: Control | None = None,
            encoding: str | None = None, log: bool = False, params: tuple[str, ...] = (), table=None,
            tuning: Tuning = FAST) -> SolveResult:
    """Smallest bounding-box area: heuristic first, then CP-SAT box by box.

    1. heuristics.bananagrams.smallest_box_layout: the backtracker inside
       boxes of growing area (each with a small budget) finds a compact layout.
    2. CP-SAT then takes every box of smaller area (R ≤ C, R + C ≤ N + 1),
       smallest first. A feasible box holds a layout whose bounding box has
       that area, since every smaller box was proven infeasible before it.
       When every smaller box is infeasible the area is *proven smallest*;
       a box cut short by the clock leaves the answer unproven. These boxes
       are nearly full, so each is *tight* (the layout touches its four
       sides, or it would fit a smaller box, already proven empty) and, unless
       the caller chose an encoding, uses run tables: 2–4× faster than the
       automaton there, where a line is mostly one or two long runs."""
    from heuristics.bananagrams import boxes_below, smallest_box_layout

    control = _held_back(control or Control())
    started = time.perf_counter()
    words = set(spec.words)
    best = _cells_of(start_layout)
    check_banana(best, spec.hand, words)  # the starting layout must itself be legal
    rows = layout_rows(best)
    heuristic_started = time.perf_counter()
    found, tried = smallest_box_layout(spec, len(rows) * len(rows[0]), control, table, box_seconds=HEURISTIC_BOX_SECONDS,
                                       box_nodes=1000, densest=tuning.heuristic_fill)
    heuristic_seconds = time.perf_counter() - heuristic_started
    if found is not None:
        best = _cells_of(found)
    heuristic_area = _area(best)
    tight_encoding = "table" if tuning.table_when_tight else "automaton"  # unless the caller chose one
    proven, solver, boxes = True, None, []
    for box_rows, box_cols in boxes_below(spec.size, heuristic_area):
        if control.stop_reason():
            proven = False
            break
        if tuning.full_lines and full_lines_say_empty(spec, (box_rows, box_cols), control):
            boxes.append(f"{box_rows}x{box_cols}:INFEASIBLE (full lines)")
            continue
        if tuning.exact_fill and encoding is None and _fill_decides(spec, box_rows, box_cols):
            decided, filled = _fill_box(spec, box_rows, box_cols, control, boxes)
            if filled is not None:
                best = filled
                break
            if not decided:
                proven = False
                break
            continue
        status, cells, solver = _solve_box(spec, box_rows, box_cols, encoding or tight_encoding, control, log, params,
                                           tuning, tight=tuning.tight_boxes)
        boxes.append(f"{box_rows}x{box_cols}:{solver.status_name(status)} {solver.wall_time:.1f}s")
        if cells is not None:
            best = cells
            break
        if status != cp_model.INFEASIBLE:
            proven = False
            break
    check_banana(best, spec.hand, words)
    result = _result(FOUND, proven, [tuple(layout_rows(best))], started,
                     None if proven else control.stop_reason() or "time-limit", boxes, solver)
    ruled_out = [entry.split(":")[0] for entry in boxes if ":INFEASIBLE" in entry]
    result.stats.update(optimum_proven=proven, area=_area(best), heuristic_area=heuristic_area, ruled_out=ruled_out,
                        heuristic_boxes=len(tried), heuristic_seconds=round(heuristic_seconds, 3),
                        perimeter=2 * sum(_shape(best)))
    return result


def _fill_decides(spec: BananaSpec, rows: int, cols: int) -> bool:
    """True for the nearly full boxes the exact fill takes (few ways to place the blanks)."""
    from heuristics.banana_fill import MAX_PLACEMENTS, blank_placements

    return blank_placements(rows, cols, rows * cols - spec.size) <= MAX_PLACEMENTS


def _fill_box(spec: BananaSpec, rows: int, cols: int, control: Control, boxes: list) -> tuple[bool, dict | None]:
    """Decide a nearly full box with heuristics.banana_fill: (decided, layout cells or None)."""
    from heuristics.banana_fill import EMPTY, FOUND, decide_box

    started = time.perf_counter()
    status, rows_found, stats = decide_box(spec, rows, cols, control)
    seconds = time.perf_counter() - started
    name = {FOUND: "FEASIBLE", EMPTY: "INFEASIBLE"}.get(status, "UNKNOWN")
    boxes.append(f"{rows}x{cols}:{name} (fill {seconds:.1f}s, {stats['nodes']:,} nodes)")
    if status != FOUND:
        return status == EMPTY, None
    assert rows_found is not None
    return True, _cells_of(rows_found)


def _held_back(control: Control) -> Control:
    """The caller's control with 5% of its time limit kept back: a CP-SAT box
    stops a little late (its workers, a model built near the deadline), and
    ``--compact --time-limit T`` should answer within T."""
    if control.time_limit is None:
        return control
    return Control(time_limit=0.95 * control.time_limit, stop=control.stop, started=control.started)


def _cells_of(rows) -> dict:
    """Layout rows ('.' empty) as {(row, col): letter}."""
    return {(r, c): ch for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != BLANK}


def _shape(cells: dict) -> tuple[int, int]:
    rows = layout_rows(cells)
    return len(rows), len(rows[0])


def _area(cells: dict) -> int:
    height, width = _shape(cells)
    return height * width


def _result(status, complete, layouts, started, stopped_by, boxes, solver, more=None) -> SolveResult:
    stats = {"boxes": boxes, **(more or {})}
    if solver is not None:
        stats.update(branches=solver.num_branches, conflicts=solver.num_conflicts)
    return SolveResult("cpsat", status, complete, len(layouts), layouts, time.perf_counter() - started, stopped_by, stats=stats)
