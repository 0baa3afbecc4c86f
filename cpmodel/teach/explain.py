"""``python -m cpmodel explain <puzzle> ...``: a model's anatomy, unsolved.

Builds the CP-SAT model exactly as a solve would, then reports what it
holds: variables and constraints by kind (counted from the model's proto),
the lexicon and the number of words per slot, and each constraint family
with the function (file:line, found by ``inspect``) that adds it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path

from cpmodel.teach.modelinfo import constraint_counts

_ROOT = Path(__file__).resolve().parents[2]  # the repository: pointers read cpmodel/models/rectangle.py:NN


@dataclass
class Family:
    name: str
    math: str
    where: object  # the function that adds it
    marker: str = ""  # text of the line that adds it (its one-line comment)

    def location(self) -> str:
        path = Path(inspect.getsourcefile(self.where)).resolve()
        lines, line = inspect.getsourcelines(self.where)
        if self.marker:
            line += next((k for k, text in enumerate(lines) if self.marker in text), 0)
        try:
            path = path.relative_to(_ROOT)
        except ValueError:
            pass
        return f"{path}:{line} ({self.where.__name__})"


@dataclass
class Explanation:
    title: str
    model: object
    slots: list[tuple[str, int]]  # (slot description, number of allowed words)
    lexicon: str
    families: list[Family]

    def counts(self) -> dict:
        proto = self.model.proto
        booleans = sum(1 for v in proto.variables if list(v.domain) == [0, 1])
        return {"variables": len(proto.variables), "booleans": booleans,
                "integers": len(proto.variables) - booleans, "constraints": dict(constraint_counts(self.model))}


def explain_rect(spec, encoding: str, lexicon_name: str) -> Explanation:
    from cpmodel.models import rectangle as r

    model, _ = r.build_model(spec, encoding)
    slots = [(f"row {i + 1} ({spec.n} letters)", len(spec.row_words)) for i in range(spec.m)]
    slots += [(f"column {j + 1} ({spec.m} letters)", len(spec.col_words)) for j in range(spec.n)]
    word_rule = {
        "table": "(ℓ[i,0..n-1]) ∈ R: one AddAllowedAssignments per row and column",
        "onehot": "s[i,w] selectors, Σ_w s = 1, b[i,j,c] = Σ_{w_j=c} s[i,w]",
        "automaton": "AddAutomaton over the minimal DAWG of the words",
    }[encoding]
    families = [
        Family("one letter per cell", "Σ_c b[i,j,c] = 1 and ℓ[i,j] = c ⇔ b[i,j,c]", r.build_model, "# (1)"),
        Family(f"rows and columns are words ({encoding})", word_rule, r._add_word_constraint, f'encoding == "{encoding}"'),
    ]
    if spec.distinct:
        families.append(Family("no word twice", "AllDifferent(id(slot))", r.build_model, "no word used twice"))
    if spec.pattern:
        families.append(Family("fixed letters", "b[i,j,c] = 1", r.build_model, "# fixed letters"))
    if spec.symmetric:
        families.append(Family("symmetric square", "ℓ[i,j] = ℓ[j,i]", r.build_model, "# symmetric"))
    return Explanation(f"rect {spec.size}, encoding {encoding}", model, slots, lexicon_name, families)


def explain_banana(spec, rows: int, cols: int, encoding: str, lexicon_name: str) -> Explanation:
    from cpmodel.models import bananagrams as b

    model, _ = b.build_model(spec, rows, cols, encoding)
    families = [
        Family("one symbol per cell", "Σ_a x[r,c,a] = 1 over letters and blank", b.build_model, "one symbol per cell"),
        Family("every tile once", "Σ_{r,c} x[r,c,a] = M(a)", b.build_model, "# (1)"),
        Family(f"runs are words ({encoding})", "rows/columns in the run language (automaton) or enforced run tables",
               b.build_model, "# (2)"),
        Family("connected", "flow: Σ_in f − Σ_out f = occ − N·root, f ≤ (N−1)·occ", b._add_flow, "inflow - outflow"),
        Family("translation symmetry", "a tile in row 0 and in column 0", b.build_model, "# (4)"),
    ]
    slots = [(f"{len(spec.hand)} tiles in a {rows}x{cols} box", len(spec.words))]
    return Explanation(f"banana {spec.hand}, box {rows}x{cols}, encoding {encoding}", model, slots, lexicon_name, families)


def explain_wordscapes(spec, lexicon_name: str) -> Explanation:
    from cpmodel.models import wordscapes as w

    model, _ = w.build_model(spec)
    slots = [(f"slot at {slot[0]} ({len(slot)} cells, {'across' if slot[0][0] == slot[-1][0] else 'down'})", len(words))
             for slot, words in zip(spec.slots, spec.candidates, strict=True)]
    families = [
        Family("slots spell candidate words", "(ℓ[p_1..p_k], w[s]) ∈ {(word, number)}", w.build_model, "# (1)"),
        Family("no word twice", "AllDifferent(w[s])", w.build_model, "# (2)"),
        Family("pre-filled letters", "ℓ[p] = letter", w.build_model, "# pre-filled"),
    ]
    return Explanation(f"wordscapes, wheel {spec.wheel}", model, slots, lexicon_name, families)
