"""Read a built CP-SAT model back: how many constraints of each kind it holds."""

from __future__ import annotations

from collections import Counter

from ortools.sat.python import cp_model

_KINDS = (
    "table", "automaton", "exactly_one", "at_most_one", "bool_or", "bool_and", "linear",
    "all_diff", "element", "lin_max", "circuit", "routes", "inverse",
)


def constraint_counts(model: cp_model.CpModel) -> Counter:
    """Constraint kind → count, read from the model's proto."""
    counts: Counter = Counter()
    for constraint in model.proto.constraints:
        kind = next((k for k in _KINDS if getattr(constraint, f"has_{k}")()), "other")
        counts[kind] += 1
    return counts
