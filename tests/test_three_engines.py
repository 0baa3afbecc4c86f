"""The same model on three engines: backtrack, cp (classic CP) and CP-SAT give the
same answers in every mode and option, and match brute force on tiny inputs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from cpmodel.core.boards import parse_crossword
from cpmodel.core.control import Control, Request
from cpmodel.core.jobs import Job
from cpmodel.core.lexicon import Lexicon, load_default
from cpmodel.core.specs import rectangle_spec, wordscapes_spec
from cpmodel.core.validate import rank_objective, rectangle_problems, wordscapes_problems
from cpmodel.run import engines
from tests.conftest import ROOT, brute_force_rectangles, brute_force_wordscapes, run_cli, wait_for_handlers

ENGINES = ("backtrack", "cp", "cpsat")
ALL, COUNT, BEST = Request(limit=None), Request(limit=None, count_only=True), Request(limit=None, best=True)
RECT_OPTIONS = [{}, {"distinct": True}, {"symmetric": True}, {"pattern": ("b..", "...", "...")},
                {"pattern": ("...", ".c.", "..."), "distinct": True}]


def run(puzzle, spec, engine, request):
    return engines.run(Job(puzzle, spec, engine, request))


@pytest.mark.parametrize("options", RECT_OPTIONS, ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("engine", ENGINES)
def test_rect_every_mode_matches_brute_force(tiny_lexicon, engine, options):
    spec = rectangle_spec(3, 3, tiny_lexicon, **options)
    expected = brute_force_rectangles(spec)
    every = run("rect", spec, engine, ALL)
    assert every.complete and set(every.solutions) == expected and every.count == len(expected)
    assert every.status == ("found" if expected else "none")
    assert run("rect", spec, engine, COUNT).count == len(expected)
    two = run("rect", spec, engine, Request(limit=2))
    assert two.count == min(2, len(expected)) and set(two.solutions) <= expected and two.complete
    best = run("rect", spec, engine, BEST)
    optimum = min((rank_objective(spec, rows) for rows in expected), default=None)
    assert best.complete and best.objective == optimum
    if expected:
        assert rank_objective(spec, best.solutions[0]) == optimum and best.solutions[0] in expected


def test_rect_engines_agree_on_a_non_square_list():
    """2×3 over the 150 most common words: a real lexicon, rows and columns of different lengths."""
    spec = rectangle_spec(2, 3, load_default(), top=150)
    expected = brute_force_rectangles(spec)
    assert expected  # the case is not empty
    optimum = min(rank_objective(spec, rows) for rows in expected)
    for engine in ENGINES:
        assert set(run("rect", spec, engine, ALL).solutions) == expected, engine
        assert run("rect", spec, engine, BEST).objective == optimum, engine


def test_cp_best_honours_a_shards_bound(tiny_lexicon):
    """A bound from another shard: only strictly better rectangles count, and none better is a proof."""
    spec = rectangle_spec(3, 3, tiny_lexicon)
    optimum = run("rect", spec, "backtrack", BEST).objective
    for engine in ("cp", "backtrack"):
        same = run("rect", spec, engine, Request(limit=None, best=True, bound=optimum))
        assert same.status == "none" and same.complete and same.objective is None, engine
        looser = run("rect", spec, engine, Request(limit=None, best=True, bound=(optimum[0], optimum[1] + 1)))
        assert looser.objective == optimum, engine


def test_cp_best_probes_below_the_first_rectangle():
    """cp --best finds the 4×4 optimum of --top 2000 (SHOW/HAVE/OVER/WERE, largest rank 65) through
    its probes: the first rectangle has a far larger rank, and the stages say so."""
    spec = rectangle_spec(4, 4, load_default(), top=2000)
    result = run("rect", spec, "cp", BEST)
    assert result.complete and result.objective == (65, 212)
    assert result.solutions == [("show", "have", "over", "were")]
    stages = result.stats["stages"]
    assert stages[0][2] == "found" and stages[-1][2] == "exhausted" and stages[-1][0] == 65


BOARDS = {"ring": "...\n.#.\n...", "cross": "#.#\n...\n#.#", "prefilled": "t..\n.#.\n...",
          "lone": "...\n###\n#.#", "corner": "...\n.##\n.##"}
WHEEL_WORDS = Lexicon("""ten net tea eat ate eta tan ant nat tae neat ante etna anet sate seat east teas eats
set sea tee see ens sen tens nets ease tease setae""".split(), source="tiny")


@pytest.mark.parametrize("board", sorted(BOARDS))
@pytest.mark.parametrize("engine", ENGINES)
def test_wordscapes_every_mode_matches_brute_force(engine, board):
    spec = wordscapes_spec(parse_crossword(BOARDS[board]), "aentst", WHEEL_WORDS)
    expected = brute_force_wordscapes(spec)
    every = run("wordscapes", spec, engine, ALL)
    assert every.complete and set(every.solutions) == expected and every.count == len(expected)
    assert run("wordscapes", spec, engine, COUNT).count == len(expected)
    first = run("wordscapes", spec, engine, Request())
    assert first.count == min(1, len(expected)) and set(first.solutions) <= expected
    best = run("wordscapes", spec, engine, BEST)
    optimum = min((spec.fill_objective(rows) for rows in expected), default=None)
    assert best.complete and best.objective == optimum
    if expected:
        assert wordscapes_problems(spec, best.solutions[0]) == [] and spec.fill_objective(best.solutions[0]) == optimum


def test_wordscapes_cp_best_is_registered_and_agrees_through_the_cli(tmp_path):
    board = tmp_path / "ring.txt"
    board.write_text("....\n.##.\n....\n")
    proc = run_cli("wordscapes", str(board), "retains", "--best", "--solver", "both", "--top", "3000", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc["solvers"]) == set(ENGINES) and doc["agreement"] == "same optimum"
    assert {json.dumps(s["objective"]) for s in doc["solvers"].values()} == {json.dumps(doc["objective"])}


def test_cp_time_limit_is_honest():
    """Stopped by the clock: unknown or a best-so-far, never none, never 'complete'."""
    spec = rectangle_spec(5, 6, load_default(), top=5000)
    for request in (COUNT, BEST):
        result = engines.run(Job("rect", spec, "cp", request), Control(time_limit=0.5))
        assert not result.complete and result.stopped_by == "time-limit" and result.status in ("found", "unknown")
        assert all(rectangle_problems(spec, rows) == [] for rows in result.solutions)


@pytest.mark.parametrize("mode", ["--all", "--best"])
def test_cp_ctrl_c_keeps_what_it_found(mode):
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", "rect", "5x6", "--top", "5000", mode, "--solver", "cp",
                             "--jobs", "1", "--json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_handlers(proc)
    time.sleep(1.5)  # searching: the model is built in well under a second, the search takes minutes
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["complete"] is False and doc["stopped_by"] == "interrupt" and doc["status"] in ("found", "unknown")
    assert doc["count"] == len(doc["solutions"])


@pytest.mark.parametrize("options", RECT_OPTIONS, ids=lambda o: ",".join(o) or "plain")
@pytest.mark.parametrize("engine", ("cp", "cpsat"))
@pytest.mark.parametrize("order", ("rank", "letters"))
def test_first_solution_in_either_value_order_matches_brute_force(tiny_lexicon, engine, order, options):
    """The portfolio asks cp and CP-SAT for a first rectangle with words by rank
    (most common first) or letters in order: either way it is a real one, and
    `none` only when brute force finds none."""
    spec = rectangle_spec(3, 3, tiny_lexicon, **options)
    expected = brute_force_rectangles(spec)
    first = engines.run(Job("rect", spec, engine, Request(limit=1), options={"order": order}))
    assert first.complete and first.status == ("found" if expected else "none")
    assert set(first.solutions) <= expected and first.count == min(1, len(expected))
