"""1. A 3×3 word rectangle on a ten-word lexicon, built step by step.

    python examples/01_word_square_3x3.py

The model is written out here by hand, one constraint family at a time, so
you can see every piece; the last step checks it against the project's own
model (cpmodel/models/rectangle.py) and the backtracker.
"""

from ortools.sat.python import cp_model

from cpmodel.core.control import Request
from cpmodel.core.lexicon import Lexicon
from cpmodel.core.specs import rectangle_spec
from cpmodel.models import rectangle
from heuristics import rectangle as backtrack

WORDS = ["bit", "ice", "ten", "bat", "ate", "tea", "eat", "net", "tin", "act"]
ALPHABET = "abcdefghijklmnopqrstuvwxyz"

model = cp_model.CpModel()

# Step 1: a letter variable per cell, 0..25 (a..z)
letter = [[model.new_int_var(0, 25, f"l[{i},{j}]") for j in range(3)] for i in range(3)]

# Step 2: every row is a word: the row's letters are one of the allowed tuples
tuples = [[ALPHABET.index(c) for c in w] for w in WORDS]
for i in range(3):
    model.add_allowed_assignments(letter[i], tuples)

# Step 3: every column is a word
for j in range(3):
    model.add_allowed_assignments([letter[i][j] for i in range(3)], tuples)

print(f"model: {len(model.proto.variables)} variables, {len(model.proto.constraints)} table constraints")


# Step 4: enumerate every solution with a callback (one line per rectangle)
class Printer(cp_model.CpSolverSolutionCallback):
    def __init__(self):
        super().__init__()
        self.found = set()

    def on_solution_callback(self):
        rows = tuple("".join(ALPHABET[self.value(v)] for v in row) for row in letter)
        self.found.add(rows)
        print(" ".join(rows))


solver = cp_model.CpSolver()
solver.parameters.enumerate_all_solutions = True  # all solutions, not just one
solver.parameters.num_workers = 1  # enumeration runs on a single worker
printer = Printer()
status = solver.solve(model, printer)
print(f"{len(printer.found)} rectangles, status {solver.status_name(status)} (OPTIMAL: every solution was enumerated)")

# Step 5: the project's model and the backtracker find the same set
spec = rectangle_spec(3, 3, Lexicon(WORDS, source="example"))
assert set(rectangle.solve(spec, Request(limit=None)).solutions) == printer.found
assert set(backtrack.solve(spec, Request(limit=None)).solutions) == printer.found
print("the hand-built model, cpmodel's model and the backtracker agree")
