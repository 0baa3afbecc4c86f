"""3. Adding side constraints to an existing model.

    python examples/03_side_constraints.py [TOP]     (default TOP = 1500)

Exact models shine when the question changes. Starting from the 4×4 word
square model we add, each in a line or two:
  (a) a given word on the diagonal,
  (b) a forbidden letter anywhere,
  (c) an objective: the most common words (Knuth's criterion).
"""

import sys

from ortools.sat.python import cp_model

from cpmodel.core.dawg import ALPHABET
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import rectangle_spec
from cpmodel.core.validate import rectangle_problems
from cpmodel.models import rectangle

top = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
spec = rectangle_spec(4, 4, load_default(), top=top)


def show(title, model, variables):
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = 60
    status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        print(f"{title}: {solver.status_name(status)}")
        return
    rows = tuple("".join(ALPHABET[solver.value(v)] for v in row) for row in variables.letter)
    assert rectangle_problems(spec, rows) == []
    print(f"{title}: {' / '.join(rows)} ({solver.status_name(status)})")


# (a) the diagonal spells a given word: ℓ[i,i] = word[i]
model, v = rectangle.build_model(spec)
for i, c in enumerate("sort"):
    model.add(v.letter[i][i] == ALPHABET.index(c))
show("diagonal 'sort'", model, v)

# (b) no 'e' anywhere: b[i,j,e] = 0 for every cell
model, v = rectangle.build_model(spec)
for row in v.b:
    for cell in row:
        model.add(cell[ALPHABET.index("e")] == 0)
show("without the letter e", model, v)

# (c) the most common words: minimise W·(largest rank) + (sum of ranks)
model, v = rectangle.build_model(spec, best=True)
show("most common words", model, v)
