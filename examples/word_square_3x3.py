"""A 3×3 word rectangle on a ten-word lexicon, both ways.

    python examples/word_square_3x3.py

Builds the CP-SAT model (without solving) to show its size, then enumerates
every solution with CP-SAT and with the Algorithm B backtracker, and checks
that the two sets agree. Each solution has passed the validator already.
"""

from cpmodel import rectangle as cpsat
from cpmodel.control import Request
from cpmodel.lexicon import Lexicon
from cpmodel.modelinfo import constraint_counts
from cpmodel.specs import rectangle_spec
from heuristics import rectangle as backtrack

WORDS = ["bit", "ice", "ten", "bat", "ate", "tea", "eat", "net", "tin", "act"]

if __name__ == "__main__":
    spec = rectangle_spec(3, 3, Lexicon(WORDS, source="example"))

    # 1. the model: one Boolean per (cell, letter), one table per row and column
    model, variables = cpsat.build_model(spec, encoding="table")
    counts = constraint_counts(model)
    print(f"model: {len(model.proto.variables)} variables;", ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())))

    # 2. every solution, by CP-SAT and by the backtracker
    every = Request(limit=None)
    by_cpsat = cpsat.solve(spec, every)
    by_backtrack = backtrack.solve(spec, every)
    for rows in by_cpsat.solutions:
        print(" ".join(rows))
    print(f"cpsat: {by_cpsat.count} ({by_cpsat.status}), backtrack: {by_backtrack.count} ({by_backtrack.status})")
    assert set(by_cpsat.solutions) == set(by_backtrack.solutions), "the two solvers disagree"
    print("the two solution sets agree")
