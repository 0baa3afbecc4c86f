"""The fill-order study kernel (heuristics/rectangle_orders.py) is an exact search.

Every order, with and without lookahead, must find exactly the rectangles of
the reference backtracker (and of brute force on tiny lists); the static
order without lookahead is Algorithm B itself, node for node.
"""

from __future__ import annotations

import pytest

from cpmodel.core.control import Request
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import rectangle_spec
from cpmodel.core.validate import rectangle_problems
from heuristics import rectangle as backtrack
from heuristics.rectangle_orders import ORDERS, search
from tests.conftest import brute_force_rectangles

VARIANTS = [(order, lookahead) for order in ORDERS for lookahead in (False, True)]


@pytest.fixture(scope="module")
def default_lexicon():
    return load_default()


@pytest.mark.parametrize("size", [(2, 3), (3, 3), (3, 2)])
@pytest.mark.parametrize("order,lookahead", VARIANTS)
def test_every_variant_matches_brute_force(tiny_lexicon, size, order, lookahead):
    spec = rectangle_spec(*size, tiny_lexicon)
    result = search(spec, order, lookahead, keep_solutions=True)
    assert result.complete
    assert sorted(result.solutions) == sorted(brute_force_rectangles(spec))
    assert result.count == len(result.solutions)


@pytest.mark.parametrize("size,top", [((3, 4), 300), ((4, 4), 300), ((4, 5), 500), ((5, 3), 400)])
@pytest.mark.parametrize("orientation", ["rows", "cols"])
def test_variants_agree_with_the_reference(default_lexicon, size, top, orientation):
    spec = rectangle_spec(*size, default_lexicon, top=top)
    reference = backtrack.solve(spec, Request(limit=None), orientation=orientation, kernel="python")
    for order, lookahead in VARIANTS:
        result = search(spec, order, lookahead, orientation=orientation, keep_solutions=True)
        label = (size, order, lookahead)
        assert sorted(result.solutions) == sorted(reference.solutions), label
        assert all(rectangle_problems(spec, rows) == [] for rows in result.solutions), label
        if (order, lookahead) == ("static", False):  # Algorithm B: the same nodes per level
            assert result.profile == reference.stats["profile"][: len(result.profile)], label
            assert not any(reference.stats["profile"][len(result.profile):])


def test_a_spent_budget_is_reported_incomplete(default_lexicon):
    spec = rectangle_spec(5, 5, default_lexicon, top=3000)
    result = search(spec, "static", False, seconds=0.0)
    assert not result.complete
