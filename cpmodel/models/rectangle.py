r"""m×n word rectangles as a CP-SAT model (TAOCP 7.2.2, exercise 24).

Problem. Given the row words R (length n) and the column words C (length m),
fill an m×n grid of letters so that every row is in R and every column in C.

Variables.
    b[i,j,c] ∈ {0,1}    cell (i,j) holds letter c            (i < m, j < n, c ∈ a..z)
    ℓ[i,j]  ∈ 0..25     the same letter as an integer:  ℓ[i,j] = c  ⇔  b[i,j,c]

Constraints.
    (1) Σ_c b[i,j,c] = 1                      every cell holds exactly one letter
    (2) (ℓ[i,0], …, ℓ[i,n-1]) ∈ R             every row is a word
    (3) (ℓ[0,j], …, ℓ[m-1,j]) ∈ C             every column is a word

(2) and (3) can be stated in three ways (``--encoding``):

    table      AddAllowedAssignments(ℓ[i,·], R): CP-SAT keeps one literal per
               tuple and propagates the table to arc consistency.
    onehot     a Boolean s[i,w] per row i and word w, Σ_w s[i,w] = 1, and
               b[i,j,c] = Σ_{w ∈ R : w_j = c} s[i,w]   (word selection).
    automaton  AddAutomaton(ℓ[i,·], minimal DAWG of R): the words as a regular
               language; the DAWG shares suffixes, so it is ~4× smaller than R.
               When enumerating we state the same automaton ourselves:
               q[0] = start, (q[k], ℓ[k], q[k+1]) ∈ δ_k (the DAWG's arcs from
               layer k), q[len] final. CP-SAT's own expansion of AddAutomaton
               leaves internal literals that the letters do not determine, and
               under enumerate_all_solutions it reported one 4×5 rectangle many
               times (the class of or-tools issues #3670/#4270); our state
               variables are functions of the letters, so each rectangle is
               reported once.

When R or C is empty (no word of a needed length) the model is just the
empty clause: infeasible, so CP-SAT proves ``none`` whatever the options.

In every encoding the letters determine all other variables (ℓ from b, s from
the letters because words are distinct, DAWG states because the DAWG is
deterministic), so enumerating solutions of the model enumerates rectangles
exactly once.

Options.
    pattern     b[i,j,c] = 1 for each fixed letter c at (i,j), and each slot's
                table keeps only the words that agree with its fixed letters
                (a shard that fixes row 1 leaves row 1 one tuple and each
                column the words starting with its letter: small tables are
                how CP-SAT finishes enumerations it cannot finish whole)
    symmetric   ℓ[i,j] = ℓ[j,i]                      (word squares, m = n)
    distinct    id(slot) pairwise different, where id(slot) numbers the word
                in one vocabulary R ∪ C (a table (ℓ[slot], id) per slot)
    best        rank(slot) = its word's index in its own list;
                minimise  W · max_slot rank + Σ_slot rank,  W = (m+n)·|list| + 1
                (Knuth's criterion: largest rank first, then the sum);
                a bound (B, S) from another shard adds  objective < W·B + S

Why CP-SAT is slow here, and what we do about it (measured with
``python benchmarks/rectangle_cpsat.py``; see docs/modelling.md):

* The model is large but easy: 5 tables of 16,703 tuples and 6 of 9,483.
  With default parameters (presolve, 2-worker portfolio) the first 5×6 took
  30.5 s and 233k branches: presolve expands and compresses the tables, and
  the portfolio's LP and LNS workers cannot help a pure feasibility problem.
* Presolve off plus a fixed first-fail search (the cell with the fewest
  letters left, smallest letter first), on one worker, turns it into a
  propagate-and-branch search like Algorithm B: 3.3 s and 1.7k branches,
  almost all of it spent loading and propagating the big tables.
* Enumeration is where CDCL struggles. Each conflict's reason is a set of
  tuple literals, so learned clauses grow huge: counting the 5×6 of
  --top 3000 learned 158M literals over 33.6k conflicts (4.7k per clause)
  and had not finished after 120 s, though it had found all 6 rectangles.
  The backtracker enumerates them in 0.85 s. Turning off clause
  minimisation or inprocessing, row-major, column-major or interleaved cell
  orders, Boolean decisions, explicit DAWG states, and word-index rows
  linked by AddElement did not change that.
* Value order for a first solution (``order="rank"``, measured by
  ``python benchmarks/front_door.py``): a rank variable per slot, in a
  (letters, rank) table, branched on first (the slot with the lowest
  smallest rank, its most common word) makes CP-SAT slower, not more
  familiar: the first rows it fixes to common words force rare words into
  the columns, and each wrong guess costs a long propagation through the
  big tables. Letters in alphabetical order stay the default; the familiar
  rectangle comes from --best (the backtracker's branch and bound, see
  cpmodel/run/portfolio.py).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from cpmodel.core.control import Control, Request, SolutionSink
from cpmodel.core.dawg import ALPHABET, build_dawg
from cpmodel.core.result import SolveResult, status_of
from cpmodel.core.specs import RectangleSpec
from cpmodel.core.validate import check_rectangle, rank_objective
from cpmodel.models.cpsat_run import apply_params, prepare, report_bound, solve_with_stop

ENCODINGS = ("table", "onehot", "automaton")


@dataclass
class RectangleVars:
    """The model's variables, for reading solutions and for teaching."""

    b: list[list[list[cp_model.IntVar]]]  # b[i][j][c]
    letter: list[list[cp_model.IntVar]]  # ℓ[i][j]
    select: dict[tuple[str, int], list] = field(default_factory=dict)  # onehot: ("row", i) → s[i,·]
    word_id: dict[tuple[str, int], cp_model.LinearExprT] = field(default_factory=dict)  # distinct/best
    rank: dict[tuple[str, int], cp_model.IntVar] = field(default_factory=dict)  # best


def build_model(
    spec: RectangleSpec, encoding: str = "table", best: bool = False, enumerating: bool = False,
    bound: tuple[int, int] | None = None, ranks: bool = False, lean: bool = False,
) -> tuple[cp_model.CpModel, RectangleVars]:
    """The CP-SAT model of ``spec`` and its variables; nothing is solved here.
    ``enumerating`` asks for a model whose every variable the letters determine;
    ``bound`` (with ``best``) keeps only objectives strictly below it; ``ranks``
    (table encoding, no ids) adds r[slot], the slot word's rank, in each table;
    ``lean`` drops the Booleans b for a shard (see :func:`lean_applies`)."""
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}")
    model = cp_model.CpModel()
    m, n = spec.m, spec.n
    filtered = _filtered_words(spec) if spec.row_words and spec.col_words else None
    if lean and filtered and lean_applies(spec, encoding):
        # a shard: ℓ[i,j] alone is the cell, its domain the letters the filtered words leave there
        b: list[list[list[cp_model.IntVar]]] = []
        letter = [[model.new_int_var_from_domain(_cell_domain(filtered, i, j), f"l[{i},{j}]") for j in range(n)]
                  for i in range(m)]
        variables = RectangleVars(b, letter)
    else:
        b = [[[model.new_bool_var(f"b[{i},{j},{c}]") for c in ALPHABET] for j in range(n)] for i in range(m)]
        letter = [[model.new_int_var(0, 25, f"l[{i},{j}]") for j in range(n)] for i in range(m)]
        variables = RectangleVars(b, letter)

        # (1) every cell holds exactly one letter, and ℓ[i,j] = c ⇔ b[i,j,c]
        for i in range(m):
            for j in range(n):
                model.add_exactly_one(b[i][j])
                model.add_map_domain(letter[i][j], b[i][j])

    # a slot length without words: no rectangle exists, and the empty clause says so
    if not spec.row_words or not spec.col_words:
        model.add_bool_or([])
        return model, variables

    # (2), (3) every row and every column is a word
    need_ids = spec.distinct or best
    for kind, index, cells, words in _slots(spec, variables, filtered):
        if need_ids and encoding == "table":
            continue  # the (letters, id) table below states the same constraint
        if ranks and encoding == "table" and words:  # (letters, rank) ∈ {(w, rank of w in its list)}
            rank_of = {w: r for r, w in enumerate(spec.row_words if kind == "row" else spec.col_words)}
            rank = model.new_int_var(0, len(rank_of) - 1, f"r[{kind}{index}]")
            model.add_allowed_assignments(cells + [rank], [(*_codes(w), rank_of[w]) for w in words])
            variables.rank[(kind, index)] = rank
            continue
        _add_word_constraint(model, variables, encoding, kind, index, cells, words, enumerating)

    # word identities, for distinctness and for the rank objective
    if need_ids:
        _add_word_ids(model, spec, variables, encoding, filtered)
    if spec.distinct:
        model.add_all_different(list(variables.word_id.values()))  # no word used twice

    # fixed letters of the pattern
    for i, row in enumerate(spec.pattern or ()):
        for j, c in enumerate(row):
            if c != ".":
                model.add(b[i][j][ALPHABET.index(c)] == 1 if b else letter[i][j] == ALPHABET.index(c))

    # symmetric word square: row i is column i
    if spec.symmetric:
        for i in range(m):
            for j in range(i + 1, n):
                model.add(letter[i][j] == letter[j][i])

    if best:
        _add_rank_objective(model, spec, variables, bound)
    return model, variables


def lean_applies(spec: RectangleSpec, encoding: str) -> bool:
    """Whether a lean model states this spec: a shard (a restricted first line) in an
    encoding that does not need the Booleans b (onehot links its word choices to them).

    A shard's model is built thousands of times per run, and the 26 Booleans
    per cell were most of its cost: 5×6 --top 3000, one first-row word, 22 ms
    of 59 ms CPU (benchmarks/scale.py). With ℓ's domain cut to the filtered
    letters the tables say everything b said: one letter per cell."""
    return encoding != "onehot" and (spec.first_row is not None or spec.first_col is not None)


def _filtered_words(spec: RectangleSpec) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Per row and per column, the words its table holds.

    With a pattern or a restricted first line (a shard), the words are first
    filtered to arc consistency (:func:`consistent_words`): a few first rows
    leave each table a small fraction of the lexicon, which CP-SAT loads and
    propagates far faster."""
    restricted = spec.pattern or spec.first_row is not None or spec.first_col is not None
    return consistent_words(spec) if restricted else ([spec.row_words] * spec.m, [spec.col_words] * spec.n)


def _cell_domain(filtered, i: int, j: int) -> cp_model.Domain:
    """The letters row i's filtered words put in cell (i,j) (all 26 when a slot is empty:
    its empty clause then says infeasible, and CP-SAT rejects an empty domain)."""
    rows, cols = filtered
    if not all(rows) or not all(cols):
        return cp_model.Domain(0, 25)
    return cp_model.Domain.from_values(sorted({ord(c) - 97 for c in {w[j] for w in rows[i]}}))


def _slots(spec: RectangleSpec, variables: RectangleVars, filtered=None):
    """Each row and column: (kind, index, its letter variables, its words)."""
    rows, cols = filtered or _filtered_words(spec)
    for i in range(spec.m):
        yield "row", i, variables.letter[i], rows[i]
    for j in range(spec.n):
        yield "col", j, [variables.letter[i][j] for i in range(spec.m)], cols[j]


def consistent_words(spec: RectangleSpec) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Per row and per column, the words that can still take part in a rectangle.

    Each cell (i,j) keeps the letters D[i,j] that some remaining row word and
    some remaining column word both put there, starting from the pattern; a
    word survives while each of its letters is in its cell's set. Repeated to
    a fixpoint, this is arc consistency on the letter domains, and it never
    removes a word that a rectangle uses. Word sets are bitsets over each
    list (bit k ↔ word k), so a pass is a few hundred big-integer ANDs."""
    m, n = spec.m, spec.n
    pattern = spec.pattern or ("." * n,) * m
    row_bits, col_bits = _letter_bits(spec.row_words), _letter_bits(spec.col_words)
    rows = [_all_bits(spec.row_words)] * m
    cols = [_all_bits(spec.col_words)] * n
    if spec.first_row is not None:
        rows[0] = _bits_of(spec.row_words, spec.first_row)
    if spec.first_col is not None:
        cols[0] = _bits_of(spec.col_words, spec.first_col)
    domains = [[ALPHABET if c == "." else c for c in row] for row in pattern]
    changed = True
    while changed:
        rows = [_restrict(rows[i], row_bits, [domains[i][j] for j in range(n)]) for i in range(m)]
        cols = [_restrict(cols[j], col_bits, [domains[i][j] for i in range(m)]) for j in range(n)]
        changed = False
        for i in range(m):
            for j in range(n):
                letters = "".join(c for c in domains[i][j] if rows[i] & row_bits[j][c] and cols[j] & col_bits[i][c])
                if letters != domains[i][j]:
                    domains[i][j], changed = letters, True
    return [_words_of(spec.row_words, b) for b in rows], [_words_of(spec.col_words, b) for b in cols]


_BITS_KEPT = 4
_bits_cache: dict[tuple[str, ...], list[dict[str, int]]] = {}


def _letter_bits(words: tuple[str, ...]) -> list[dict[str, int]]:
    """bits[k][c]: the words with letter c at position k (kept for the next shard)."""
    bits = _bits_cache.get(words)
    if bits is None:
        bits = [{c: 0 for c in ALPHABET} for _ in range(len(words[0]) if words else 0)]
        for index, word in enumerate(words):
            for k, c in enumerate(word):
                bits[k][c] |= 1 << index
        while len(_bits_cache) >= _BITS_KEPT:
            _bits_cache.pop(next(iter(_bits_cache)))
        _bits_cache[words] = bits
    return bits


def _all_bits(words) -> int:
    return (1 << len(words)) - 1


def _bits_of(words: tuple[str, ...], chosen: tuple[str, ...]) -> int:
    wanted = set(chosen)
    return sum(1 << k for k, w in enumerate(words) if w in wanted)


def _restrict(word_set: int, bits: list[dict[str, int]], allowed: list[str]) -> int:
    """The words of word_set whose k-th letter is in allowed[k] for every k."""
    for k, letters in enumerate(allowed):
        if len(letters) < 26:
            union = 0
            for c in letters:
                union |= bits[k][c]
            word_set &= union
    return word_set


def _words_of(words: tuple[str, ...], word_set: int) -> tuple[str, ...]:
    digits = bin(word_set)[:1:-1]  # digits[k] == "1" iff word k is in the set
    return tuple(words[k] for k, d in enumerate(digits) if d == "1")


@functools.lru_cache(maxsize=1 << 17)
def _codes(word: str) -> tuple[int, ...]:
    """'cab' → (2, 0, 1) (the words are a-z, checked when the lexicon is read); kept,
    because a sharded run states the same words in thousands of small tables."""
    return tuple(code - 97 for code in word.encode())


def _add_layered_automaton(model, kind, index, cells, dawg) -> None:
    """The DAWG with explicit states q[0..len]: each q[k+1] = δ(q[k], ℓ[k])."""
    layer_of = dawg.layers()
    states = [model.new_int_var(0, dawg.num_states - 1, f"q[{kind}{index},{k}]") for k in range(len(cells) + 1)]
    model.add(states[0] == dawg.start)
    for k, cell in enumerate(cells):
        arcs = [arc for arc in dawg.transitions if layer_of[arc[0]] == k]
        model.add_allowed_assignments([states[k], cell, states[k + 1]], arcs)
    model.add_allowed_assignments([states[-1]], [[f] for f in dawg.finals])


def _add_word_constraint(model, variables, encoding, kind, index, cells, words, enumerating=False) -> None:
    """The slot's letters spell a word of ``words``, in the chosen encoding."""
    if not words:  # no word fits (the pattern or the shard's first line): the empty clause, infeasible
        model.add_bool_or([])
        variables.select[(kind, index)] = []
        return
    if encoding == "table":
        model.add_allowed_assignments(cells, [_codes(w) for w in words])
    elif encoding == "automaton" and not enumerating:
        dawg = build_dawg(words)
        model.add_automaton(cells, dawg.start, list(dawg.finals), list(dawg.transitions))
    elif encoding == "automaton":
        _add_layered_automaton(model, kind, index, cells, build_dawg(words))
    else:  # onehot: choose one word; each cell's letter Booleans follow from it
        select = [model.new_bool_var(f"s[{kind}{index},{w}]") for w in words]
        model.add_exactly_one(select)
        variables.select[(kind, index)] = select
        b_cells = _b_cells(variables, kind, index, len(cells))
        for position, b_cell in enumerate(b_cells):
            by_letter: dict[int, list] = {}
            for word, s in zip(words, select, strict=True):
                by_letter.setdefault(ALPHABET.index(word[position]), []).append(s)
            for c, literal in enumerate(b_cell):
                model.add(literal == sum(by_letter.get(c, [])))


def _b_cells(variables, kind, index, length):
    if kind == "row":
        return [variables.b[index][j] for j in range(length)]
    return [variables.b[i][index] for i in range(length)]


def _add_word_ids(model, spec, variables, encoding, filtered=None) -> None:
    """id(slot) = the slot word's number in the shared vocabulary R ∪ C."""
    vocabulary = list(dict.fromkeys(spec.row_words + spec.col_words))
    number = {w: k for k, w in enumerate(vocabulary)}
    for kind, index, cells, words in _slots(spec, variables, filtered):
        if encoding == "onehot":
            select = variables.select[(kind, index)]
            variables.word_id[(kind, index)] = sum(number[w] * s for w, s in zip(words, select, strict=True))
        else:
            word_id = model.new_int_var(0, len(vocabulary) - 1, f"id[{kind}{index}]")
            model.add_allowed_assignments(cells + [word_id], [(*_codes(w), number[w]) for w in words])
            variables.word_id[(kind, index)] = word_id


def _add_rank_objective(model, spec, variables, bound=None) -> None:
    """minimise W · (largest rank) + (sum of ranks), below ``bound`` if given."""
    vocabulary = list(dict.fromkeys(spec.row_words + spec.col_words))
    row_rank = {w: r for r, w in enumerate(spec.row_words)}
    col_rank = {w: r for r, w in enumerate(spec.col_words)}
    longest = max(len(spec.row_words), len(spec.col_words))
    ranks = []
    for (kind, index), word_id in variables.word_id.items():
        own = row_rank if kind == "row" else col_rank
        rank = model.new_int_var(0, longest, f"rank[{kind}{index}]")
        model.add_element(word_id, [own.get(w, longest) for w in vocabulary], rank)
        variables.rank[(kind, index)] = rank
        ranks.append(rank)
    largest = model.new_int_var(0, longest, "largest_rank")
    model.add_max_equality(largest, ranks)
    weight = len(ranks) * longest + 1
    objective = weight * largest + sum(ranks)
    if bound is not None:  # another shard already has (B, S): only better rectangles count
        model.add(objective < weight * bound[0] + bound[1])
    model.minimize(objective)


# -- solving ------------------------------------------------------------------


def search_parameters(solver: cp_model.CpSolver, request: Request, control: Control, log: bool) -> None:
    """The parameters that matter here, each for a measured reason."""
    if request.best:
        prepare(solver, control, log, workers=2)  # optimisation profits from the portfolio (LNS, bounds)
        return
    # feasibility and enumeration: a single worker with a fixed first-fail search,
    # no presolve (table presolve costs more than the whole search, see docstring)
    prepare(solver, control, log, workers=1)
    params = solver.parameters
    params.cp_model_presolve = False
    params.search_branching = cp_model.FIXED_SEARCH
    params.enumerate_all_solutions = request.limit != 1


class _Collector(cp_model.CpSolverSolutionCallback):
    """Reads each solution's rows, validates them, and stops at the limit.

    Under ``best`` an intermediate solution's objective may overstate its
    letters' value: CP-SAT may relax largest = max(ranks) to largest ≥ ranks
    when minimising, so the next "improving" solution can be the same
    rectangle with a smaller ``largest`` (seen in ~10% of repeated solves of
    a 3×3 --symmetric --encoding onehot). So the collector judges each
    solution by its letters (rank_objective) and keeps the best rectangle."""

    def __init__(self, spec, variables, request, control) -> None:
        super().__init__()
        self.spec, self.variables, self.request, self.control = spec, variables, request, control
        self.sink = SolutionSink(request, control)
        self.seen: set[tuple[str, ...]] = set()
        self.reached_limit = False
        self.best: tuple[int, int] | None = None

    def on_solution_callback(self) -> None:
        rows = tuple(
            "".join(ALPHABET[self.value(v)] for v in row_letters) for row_letters in self.variables.letter
        )
        check_rectangle(self.spec, rows)
        if self.request.best:
            self._improve(rows)
            return
        if rows in self.seen:
            raise AssertionError(f"CP-SAT reported {rows} twice: the model has an undetermined variable")
        self.seen.add(rows)
        if self.sink.record(rows):
            self.reached_limit = True
            self.stop_search()

    def _improve(self, rows: tuple[str, ...]) -> None:
        """--best: a rectangle whose letters rank better replaces the kept one."""
        value = rank_objective(self.spec, rows)
        if self.best is not None and value >= self.best:
            return  # the same rectangle again (or no better): nothing new
        self.best = value
        self.control.objective, self.control.bound = self.objective_value, self.best_objective_bound
        self.sink.solutions.clear()
        self.sink.count = 0
        self.sink.record(rows)


def solve(
    spec: RectangleSpec,
    request: Request = Request(),
    control: Control | None = None,
    encoding: str = "table",
    log: bool = False,
    params: tuple[str, ...] = (),
    order: str = "letters",
) -> SolveResult:
    """Build and solve; the status says honestly whether the search finished.
    ``params`` are SatParameters text lines (``--param``), applied last.
    ``order="rank"`` branches on the slots' word ranks first, most common word
    first (measured slower, see the module docstring); the default branches on letters."""
    control = control or Control()
    started = time.perf_counter()
    enumerating = not request.best and request.limit != 1
    by_rank = order == "rank" and not request.best and not spec.distinct
    model, variables = build_model(spec, encoding, best=request.best, enumerating=enumerating, bound=request.bound,
                                   ranks=by_rank, lean=True)
    if by_rank and variables.rank:
        model.add_decision_strategy(list(variables.rank.values()), cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)
    letters = [v for row in variables.letter for v in row]
    # first-fail: the cell with the fewest letters left, ties in row-major order
    model.add_decision_strategy(letters, cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MIN_VALUE)
    solver = cp_model.CpSolver()
    search_parameters(solver, request, control, log)
    apply_params(solver, params)
    if request.best:
        report_bound(solver, control)
    collector = _Collector(spec, variables, request, control)
    status = solve_with_stop(solver, model, control, collector)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")

    exhausted = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and not collector.reached_limit
    if request.best:
        complete = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    else:
        complete = exhausted or collector.reached_limit
    stopped_by = None
    if collector.reached_limit:
        stopped_by = "limit"
    elif not complete:
        stopped_by = control.stop_reason() or "time-limit"
    return SolveResult(
        solver="cpsat",
        status=status_of(collector.sink.count, exhausted or (request.best and complete)),
        complete=complete,
        count=collector.sink.count,
        solutions=collector.sink.solutions,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        objective=collector.best,
        stats={
            "encoding": encoding,
            "branches": solver.num_branches,
            "conflicts": solver.num_conflicts,
            "cp_status": solver.status_name(status),
        },
    )
