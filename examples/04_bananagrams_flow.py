"""4. A Bananagrams hand: the multiset constraint, the connectivity flow, and
why enumeration duplicates solutions when a flow is not pinned down.

    python examples/04_bananagrams_flow.py

cpmodel/models/bananagrams.py pins the flow's root to the first tile of row 0. Here
we build the same model, enumerate all solutions in a 2×2 box, and compare
the number of *reported* solutions with the number of distinct *layouts*:
with a cycle in the layout, many flows witness the same connectivity, and
CP-SAT reports each flow as a new solution.
"""

from ortools.sat.python import cp_model

from cpmodel.core.lexicon import Lexicon
from cpmodel.core.specs import banana_spec
from cpmodel.models import bananagrams

WORDS = ["ab", "cd", "ac", "bd"]  # only the 2x2 block ab/cd (or its transpose) works
spec = banana_spec("abcd", Lexicon(WORDS, source="example"))
model, v = bananagrams.build_model(spec, 2, 2)
print(f"hand {spec.hand}: {len(model.proto.variables)} variables, multiset + automaton rows/columns + flow")


class Collector(cp_model.CpSolverSolutionCallback):
    def __init__(self):
        super().__init__()
        self.reported, self.layouts = 0, set()

    def on_solution_callback(self):
        self.reported += 1
        self.layouts.add(tuple("".join(v.alphabet[self.value(x)] for x in row) for row in v.letter))


solver = cp_model.CpSolver()
solver.parameters.enumerate_all_solutions = True
solver.parameters.num_workers = 1
collector = Collector()
solver.solve(model, collector)
print(f"reported solutions: {collector.reported}, distinct layouts: {len(collector.layouts)}")
for layout in sorted(collector.layouts):
    print("  " + " / ".join(layout))
print("every extra report is the same layout with another flow on its cycle;")
print("so the flow model is solved for one layout, never enumerated (see the module docstring).")
