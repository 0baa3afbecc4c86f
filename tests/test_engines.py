"""The engine registry and jobs: one interface, plain picklable data."""

from __future__ import annotations

import pickle

import pytest

from cpmodel.core.control import Request
from cpmodel.core.jobs import Job
from cpmodel.core.specs import rectangle_spec
from cpmodel.run import engines
from tests.conftest import brute_force_rectangles


def test_a_job_pickles_and_runs_the_same_after(tiny_lexicon):
    spec = rectangle_spec(3, 3, tiny_lexicon)
    job = Job("rect", spec, "backtrack", Request(limit=None), options={"orientation": "rows"})
    copy = pickle.loads(pickle.dumps(job))
    assert copy == job
    assert set(engines.run(copy).solutions) == set(engines.run(job).solutions)


@pytest.mark.parametrize("engine", engines.engines_for("rect"))
def test_every_rect_engine_enumerates_the_brute_force_set(tiny_lexicon, engine):
    spec = rectangle_spec(3, 3, tiny_lexicon)
    result = engines.run(Job("rect", spec, engine, Request(limit=None)))
    assert result.complete and set(result.solutions) == brute_force_rectangles(spec)


def test_streaming_callback_sees_every_solution(tiny_lexicon):
    spec = rectangle_spec(3, 3, tiny_lexicon)
    seen = []
    result = engines.run(Job("rect", spec, "backtrack", Request(limit=None)), on_solution=seen.append)
    assert seen == result.solutions and seen


def test_unknown_engine_is_refused(tiny_lexicon):
    with pytest.raises(ValueError, match="no engine"):
        engines.run(Job("rect", rectangle_spec(3, 3, tiny_lexicon), "nonesuch"))


def test_only_exact_engines_may_prove_none():
    assert engines.is_exact("rect", "backtrack") and engines.is_exact("banana", "cpsat")
    assert not engines.is_exact("banana", "backtrack")


@pytest.mark.parametrize("options", [{}, {"distinct": True}, {"symmetric": True}, {"pattern": ("b..", "...", "...")}])
def test_cp_agrees_with_the_backtracker_on_sets_and_optima(tiny_lexicon, options):
    spec = rectangle_spec(3, 3, tiny_lexicon, **options)
    cp = engines.run(Job("rect", spec, "cp", Request(limit=None)))
    assert cp.complete and set(cp.solutions) == brute_force_rectangles(spec)
    best = [engines.run(Job("rect", spec, e, Request(limit=None, best=True))) for e in ("cp", "backtrack")]
    assert best[0].complete and best[0].objective == best[1].objective
