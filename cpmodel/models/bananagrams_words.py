r"""The word-count relaxation of Bananagrams: which words, how often, never where.

A layout of N ≥ 2 connected tiles has maximal runs (its words) across and
down. Forget the grid and keep only how often each word w of D is used
across (h_w) and down (v_w). Every layout gives counts that satisfy:

    (1) Σ_w h_w·cnt_a(w) ≤ M(a),  Σ_w v_w·cnt_a(w) ≤ M(a)    the across words use
                                   distinct tiles, and so do the down words
    (2) Σ_w (h_w + v_w)·cnt_a(w) ≥ M(a)                      every tile is in a word
                                   (it has a neighbour, since N ≥ 2)
    (3) X ≥ K − 1,  where X = Σ_a (Σ_w (h_w + v_w)·cnt_a(w) − M(a)) counts the
        tiles in two words and K = Σ_w (h_w + v_w) the words: the words and
        their crossings form a connected graph (a path of tiles is a walk of
        words), and a connected graph on K nodes has at least K − 1 edges.

In an R×C box (R ≤ C rows and columns) a layout also has:

    (4) h_w = 0 when |w| > C,  v_w = 0 when |w| > R
    (5) Σ_w h_w ≤ R·⌊(C+1)/3⌋,  Σ_w v_w ≤ C·⌊(R+1)/3⌋        a line of length L
                                   holds at most ⌊(L+1)/3⌋ runs of ≥ 2 letters

So when these counts are infeasible there is no layout (in that box): a
proof of ``none`` that never looks at a cell. It is a relaxation, not the
model: feasible counts do not promise a layout, and then the cell model of
:mod:`cpmodel.models.bananagrams` decides. Hands with few vowels, or a pile
of j, q, x and z, fail here in a fraction of a second, where the cell model
has to rule out every box.

A second argument needs no solver. An R×C box holding N tiles has
B = R·C − N blanks, so at least R − B of its rows hold no blank: each is one
run of C letters, a word of length C (C ≥ 2), and these words use distinct
tiles. So the hand must hold R − B words of length C at once, and likewise
C − B words of length R (``full_lines_allow``). In the nearly full boxes that
``--compact`` rules out (2×11 for 21 tiles: one 11-letter word) this settles
a box in microseconds where the cell model took seconds.

``explain`` names a small set of the hand's requirements (constraint (2) for
one letter, or the connectivity (3)) that already conflict, from CP-SAT's
``sufficient_assumptions_for_infeasibility``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ortools.sat.python import cp_model

from cpmodel.core.control import Control
from cpmodel.core.specs import BananaSpec
from cpmodel.models.cpsat_run import prepare, solve_with_stop


@dataclass
class WordCounts:
    across: dict  # word → h_w
    down: dict  # word → v_w
    covered: dict  # letter → literal "every tile of this letter is in a word" (constraint 2)
    connected: object  # literal "the words form a connected graph" (constraint 3)


def build_counts_model(spec: BananaSpec, box: tuple[int, int] | None = None, explainable: bool = False):
    """The relaxation's model; with ``explainable`` each requirement of (2) and
    (3) is enforced by its own literal, for ``add_assumptions``."""
    model = cp_model.CpModel()
    hand = Counter(spec.hand)
    rows, cols = box if box is not None else (spec.size, spec.size)
    letters = sorted(hand)
    counts = {w: Counter(w) for w in spec.words}
    across = {w: model.new_int_var(0, _most(counts[w], hand), f"h[{w}]") for w in spec.words if len(w) <= cols}
    down = {w: model.new_int_var(0, _most(counts[w], hand), f"v[{w}]") for w in spec.words if len(w) <= rows}
    uses = {}
    for a in letters:  # (1) across words use distinct tiles, and so do down words
        in_across = sum(n * counts[w][a] for w, n in across.items() if counts[w][a])
        in_down = sum(n * counts[w][a] for w, n in down.items() if counts[w][a])
        model.add(in_across <= hand[a])
        model.add(in_down <= hand[a])
        uses[a] = in_across + in_down
    covered = {a: model.new_bool_var(f"covered[{a}]") for a in letters}
    for a in letters:  # (2) every tile is in a word
        requirement = model.add(uses[a] >= hand[a])
        if explainable:
            requirement.only_enforce_if(covered[a])
    words = sum(across.values()) + sum(down.values())
    crossings = sum(uses[a] for a in letters) - spec.size
    connected = model.new_bool_var("connected")
    requirement = model.add(crossings >= words - 1)  # (3)
    if explainable:
        requirement.only_enforce_if(connected)
    if box is not None:  # (5) room for runs in each line
        model.add(sum(across.values()) <= rows * ((cols + 1) // 3))
        model.add(sum(down.values()) <= cols * ((rows + 1) // 3))
    return model, WordCounts(across, down, covered, connected)


def _most(word: Counter, hand: Counter) -> int:
    """How many times the word fits in the hand's tiles (its count in one direction)."""
    return min(hand[a] // k for a, k in word.items())


FULL_LINES_SECONDS = 0.1  # per direction: a refutation takes milliseconds; beyond it, leave the box to the cells


def full_lines_allow(spec: BananaSpec, box: tuple[int, int], control: Control | None = None) -> bool | None:
    """False when the box's blank-free rows or columns cannot all be words at once
    (proven: no layout fills this box); True when they can; None when undecided
    within the budget."""
    rows, cols = box
    blanks = rows * cols - spec.size
    verdicts = [_holds_words(spec, length, lines, control or Control())
                for length, lines in ((cols, rows - blanks), (rows, cols - blanks)) if length >= 2 and lines > 0]
    if False in verdicts:
        return False
    return None if None in verdicts else True


def _holds_words(spec: BananaSpec, length: int, wanted: int, control: Control) -> bool | None:
    """Whether the hand holds ``wanted`` words of ``length`` letters at once (a word may
    repeat): a small packing, y_w ∈ ℕ, Σ y_w = wanted, Σ_w y_w·cnt_a(w) ≤ M(a)."""
    hand = Counter(spec.hand)
    words = [w for w in spec.words if len(w) == length]
    if not words:
        return False
    model = cp_model.CpModel()
    uses = {w: model.new_int_var(0, wanted, f"y[{w}]") for w in words}
    model.add(sum(uses.values()) == wanted)
    for a in hand:
        model.add(sum(n * w.count(a) for w, n in uses.items() if a in w) <= hand[a])
    return feasible(model, control, FULL_LINES_SECONDS)


def feasible(model: cp_model.CpModel, control: Control, seconds: float) -> bool | None:
    """The model's verdict in at most ``seconds`` (and the control's time and stop):
    False proven infeasible, True solved, None undecided."""
    left = seconds if control.time_limit is None else min(seconds, control.time_limit - control.elapsed())
    budget = Control(time_limit=max(left, 0.001), stop=control.stop)
    solver = cp_model.CpSolver()
    prepare(solver, budget, log=False, workers=1)
    status = solve_with_stop(solver, model, budget)
    if status == cp_model.INFEASIBLE:
        return False
    return True if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None


def applies(spec: BananaSpec) -> bool:
    """The relaxation speaks of words: a hand of one tile is a layout with none."""
    return spec.size >= 2


def counts_feasible(spec: BananaSpec, box: tuple[int, int] | None = None, control: Control | None = None,
                    time_limit: float = 10.0) -> bool | None:
    """False: no layout (in the box) exists, proven; True: the counts allow one;
    None: undecided within ``time_limit`` (or the control's stop)."""
    if not applies(spec):
        return True
    model, _ = build_counts_model(spec, box)
    return feasible(model, control or Control(), time_limit)


def explain(spec: BananaSpec, time_limit: float = 10.0) -> list[str] | None:
    """A few requirements of the hand that already conflict, in words; None
    when the relaxation does not rule the hand out."""
    if not applies(spec):
        return None
    model, counts = build_counts_model(spec, explainable=True)
    literals = list(counts.covered.values()) + [counts.connected]
    model.add_assumptions(literals)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1  # the core is extracted by the sequential search
    solver.parameters.max_time_in_seconds = time_limit
    if solver.solve(model) != cp_model.INFEASIBLE:
        return None
    chosen = set(solver.sufficient_assumptions_for_infeasibility())
    named = {lit.index: f"every {a} lies in a word" for a, lit in counts.covered.items()}
    named[counts.connected.index] = "the words are connected"
    return [named[i] for i in sorted(chosen, key=lambda i: named[i])]
