"""--solver auto (cpmodel.run.portfolio): the race's answer is the single engine's,
a heuristic's unknown is never none, no child outlives the command, and the
--solver parsing; the familiar-words default of rect."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cpmodel.core.control import Control, Request
from cpmodel.core.jobs import Job
from cpmodel.core.lexicon import Lexicon
from cpmodel.core.result import FOUND, NONE, UNKNOWN
from cpmodel.core.specs import BananaSpec, rectangle_spec
from cpmodel.core.validate import check_rectangle
from cpmodel.run import engines
from cpmodel.run.portfolio import HEAD_START, Entrant, SharedIncumbent, gather, portfolio_plan, race
from tests.conftest import ROOT, brute_force_rectangles, run_cli, wait_for_handlers

ALL, COUNT, BEST = Request(limit=None), Request(limit=None, count_only=True), Request(limit=None, best=True)
PLANS = [[Entrant("backtrack"), Entrant("cp")], [Entrant("cp"), Entrant("cpsat")], [Entrant("backtrack", 2)],
         [Entrant("backtrack", 3), Entrant("cp")]]


@pytest.fixture
def spec_3x3(default_lexicon_top):
    return rectangle_spec(3, 3, default_lexicon_top(60))


@pytest.fixture
def default_lexicon_top():
    from cpmodel.core.lexicon import load_default

    return load_default().top


@pytest.mark.parametrize("plan", PLANS, ids=lambda plan: "+".join(map(str, plan)))
def test_race_equals_single_engine(spec_3x3, plan):
    """Sets, counts and optima of the race are the backtracker's alone (and the brute force's)."""
    expected = brute_force_rectangles(spec_3x3)
    assert expected  # the case has rectangles
    everything = race(Job("rect", spec_3x3, "auto", ALL), plan, Control())
    assert set(everything.solutions) == expected and everything.count == len(expected) and everything.complete
    assert race(Job("rect", spec_3x3, "auto", COUNT), plan, Control()).count == len(expected)
    single = engines.run(Job("rect", spec_3x3, "backtrack", BEST))
    best = race(Job("rect", spec_3x3, "auto", BEST), plan, Control())
    assert best.objective == single.objective and best.complete and best.status == FOUND
    check_rectangle(spec_3x3, best.solutions[0])
    first = race(Job("rect", spec_3x3, "auto", Request(limit=2)), plan, Control())
    assert first.count == 2 and set(first.solutions) <= expected


@pytest.mark.parametrize("plan", PLANS[:3], ids=lambda plan: "+".join(map(str, plan)))
def test_race_proves_none(plan):
    lexicon = Lexicon("abc xyz".split())  # no 3x3 rectangle
    spec = rectangle_spec(3, 3, lexicon)
    for request in (Request(limit=1), ALL, BEST):
        result = race(Job("rect", spec, "auto", request), plan, Control())
        assert result.status == NONE and result.complete, request


def test_portfolio_says_who_answered(spec_3x3):
    result = race(Job("rect", spec_3x3, "auto", Request(limit=1)), [Entrant("backtrack"), Entrant("cp")], Control())
    info = result.stats["portfolio"]
    assert info["answered"] == result.solver in ("backtrack", "cp") and info["conclusive"] is True
    assert info["engines"] == ["backtrack", "cp"] and set(info["others"]) == {"backtrack", "cp"} - {result.solver}


def test_gather_waits_for_every_engine(spec_3x3):
    results = gather(Job("rect", spec_3x3, "auto", ALL), ["backtrack", "cp", "cpsat"], Control())
    assert [r.solver for r in results] == ["backtrack", "cp", "cpsat"]
    assert len({frozenset(r.solutions) for r in results}) == 1


def test_wordscapes_race_equals_single_engine():
    from cpmodel.core.boards import parse_crossword
    from cpmodel.core.specs import wordscapes_spec
    from tests.conftest import brute_force_wordscapes

    lexicon = Lexicon("rest site sir eat tea ate set are arts east sea tie".split())
    spec = wordscapes_spec(parse_crossword("....\n.##.\n....\n"), "retains", lexicon)
    expected = brute_force_wordscapes(spec)
    plan = portfolio_plan("wordscapes", cores=2)
    assert set(race(Job("wordscapes", spec, "auto", ALL), plan, Control()).solutions) == expected
    single = engines.run(Job("wordscapes", spec, "backtrack", BEST))
    assert race(Job("wordscapes", spec, "auto", BEST), portfolio_plan("wordscapes", True, 2), Control()).objective == single.objective


def test_heuristic_unknown_is_never_none():
    """The Bananagrams backtracker runs dry on an impossible hand: alone it says unknown,
    beside CP-SAT the race waits for CP-SAT's proof."""
    spec = BananaSpec("qqq", ("at", "ta", "cat"))
    alone = race(Job("banana", spec, "auto"), [Entrant("backtrack")], Control())
    assert alone.status == UNKNOWN and not alone.stats["portfolio"]["conclusive"]
    both = race(Job("banana", spec, "auto", time_limit=30), portfolio_plan("banana", cores=1), Control(time_limit=30))
    assert both.status == NONE and both.solver == "cpsat" and both.complete


@pytest.mark.parametrize("solver, status, complete, answers", [
    ("backtrack", UNKNOWN, True, False),  # a heuristic that ran dry proves nothing, even if it says complete
    ("backtrack", NONE, True, False),  # ... nor can it say none
    ("backtrack", FOUND, True, True),  # a layout it found is an answer
    ("cpsat", NONE, True, True),  # an exact engine's finished search is a proof
    ("cpsat", UNKNOWN, False, False),  # stopped: no answer
])
def test_only_an_exact_proof_or_a_found_answer_ends_a_race(solver, status, complete, answers):
    """The rule that keeps a heuristic from ever deciding a race (the mutation sample's
    'any complete result wins' survived: no heuristic today says complete without an answer)."""
    from cpmodel.core.result import SolveResult
    from cpmodel.run.portfolio import conclusive

    job = Job("banana", BananaSpec("qqq", ("at",)), "auto")
    assert conclusive(job, SolveResult(solver, status, complete=complete, count=0, seconds=0.0)) is answers


def test_plan_fits_the_cores():
    assert portfolio_plan("rect", cores=2) == [Entrant("backtrack"), Entrant("cp", delay=HEAD_START)]
    assert portfolio_plan("rect", cores=1) == [Entrant("backtrack")]
    assert portfolio_plan("rect", best=True, cores=2) == [Entrant("backtrack", 2)]
    assert [e.engine for e in portfolio_plan("banana", cores=1)] == ["backtrack", "cpsat"]  # the prover always runs
    # every Wordscapes engine answers --best (cp by branch and bound), so four cores race all three
    assert [e.engine for e in portfolio_plan("wordscapes", best=True, cores=4)] == ["backtrack", "cp", "cpsat"]


def test_a_favourite_that_gives_up_starts_the_others_at_once():
    """The backtracker runs dry on qqq at once; CP-SAT, given a head start of a minute
    to wait, starts when it does and proves none long before that minute."""
    spec = BananaSpec("qqq", ("at", "ta", "cat"))
    plan = portfolio_plan("banana", cores=2, head_start=60.0)
    started = time.monotonic()
    result = race(Job("banana", spec, "auto", time_limit=120), plan, Control(time_limit=120))
    assert result.status == NONE and result.solver == "cpsat" and time.monotonic() - started < 60


def test_shared_incumbent_keeps_the_best():
    import multiprocessing

    incumbent = SharedIncumbent(multiprocessing.get_context("fork"))
    assert incumbent.get() is None
    assert incumbent.offer((10, 50)) and not incumbent.offer((10, 60)) and incumbent.offer((9, 90))
    assert incumbent.get() == (9, 90)


def test_backtracker_adopts_an_outside_bound(spec_3x3):
    """A bound from another process cuts the search: nothing worse is reported, and
    an optimum better than the outside bound is still found."""
    import multiprocessing

    single = engines.run(Job("rect", spec_3x3, "backtrack", BEST))
    incumbent = SharedIncumbent(multiprocessing.get_context("fork"))
    incumbent.offer(single.objective)
    control = Control(incumbent=incumbent)
    result = engines.run(Job("rect", spec_3x3, "backtrack", BEST), control)
    assert result.count == 0 and result.complete  # nobody beats the optimum
    worse = SharedIncumbent(multiprocessing.get_context("fork"))
    worse.offer((single.objective[0] + 1, 0))
    assert engines.run(Job("rect", spec_3x3, "backtrack", BEST), Control(incumbent=worse)).objective == single.objective


def test_improve_for_stops_after_the_first_solution():
    control = Control(improve_for=0.05)
    assert control.stop_reason() is None
    control.solutions = 1
    assert control.stop_reason() is None  # the clock starts now
    time.sleep(0.08)
    assert control.stop_reason() == "time-limit"


# -- the command line ---------------------------------------------------------------


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, read from /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    live = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(pid)
    return live


def start_race(*args: str) -> tuple[subprocess.Popen, set[int]]:
    """A CLI race that runs for a while, and its children once both started."""
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    children: set[int] = set()
    deadline = time.monotonic() + 60
    while len(children) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        children = descendants(proc.pid)
    assert len(children) >= 2, "the race never started its children"
    return proc, children


def wait_gone(pids: set[int], seconds: float = 10.0) -> set[int]:
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive(pids)


# 5x7 --best with the backtracker in 2 stripes: two children, a first rectangle within a second,
# and more than 12 s of work (5x6 took only 1.5-3 s: on a quiet machine the race could end
# before the signal, which made the Ctrl-C test flaky)
LONG_RACE = ("rect", "5x7", "--best", "--jobs", "2", "--json")


def test_ctrl_c_stops_the_race_keeps_the_best_and_leaves_no_child():
    proc, children = start_race(*LONG_RACE)
    wait_for_handlers(proc)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["solver"] == "auto" and doc["stopped_by"] == "interrupt" and doc["complete"] is False
    assert doc["status"] in (FOUND, UNKNOWN)  # never none
    assert not wait_gone(children)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_no_child_outlives_a_killed_command(how):
    proc, children = start_race(*LONG_RACE)
    proc.send_signal(how)
    proc.communicate(timeout=60)
    assert not wait_gone(children), f"children left after {how.name}"


def test_json_says_which_engine_answered(tiny_dict):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--limit", "1", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["solver"] == "auto" and doc["status"] == FOUND
    assert doc["answered_by"] in ("backtrack", "cp", "cpsat") and doc["portfolio"]["answered"] == doc["answered_by"]
    assert doc["portfolio"]["conclusive"] is True


def test_familiar_default_is_the_proven_optimum(tiny_dict, tiny_lexicon):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--json")
    doc = json.loads(proc.stdout)
    single = engines.run(Job("rect", rectangle_spec(3, 3, tiny_lexicon), "backtrack", BEST))
    assert doc["mode"] == "familiar" and doc["proven"] is True and doc["status"] == FOUND
    assert (doc["objective"]["max_rank"], doc["objective"]["sum_rank"]) == single.objective
    text = run_cli("rect", "3x3", "--dict", tiny_dict)
    assert text.returncode == 0 and "proven most familiar" in text.stdout and "answered by backtrack" in text.stdout


def test_a_list_of_engines_is_a_cross_check(tiny_dict):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--all", "--solver", "backtrack,cp,cpsat", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and set(doc["solvers"]) == {"backtrack", "cp", "cpsat"}
    assert doc["agreement"] == "identical solution sets"


@pytest.mark.parametrize("args,needle", [
    (["rect", "3x3", "--solver", "cpst"], "unknown engine 'cpst' for rect; did you mean cpsat?"),
    (["rect", "3x3", "--solver", "auto,cp"], "auto cannot be part of a list"),
    (["rect", "3x3", "--solver", "cp,cp"], "cp named twice"),
    (["rect", "3x3", "--solver", "backtrack,"], "unknown engine ''"),
    (["banana", "abc", "--solver", "cp"], "unknown engine 'cp' for banana"),
    (["wordscapes", "BOARD", "abc", "--solver", "cpsat,bt"], "unknown engine 'bt' for wordscapes"),
])
def test_bad_solver_is_one_line_exit_2(tmp_path, args, needle):
    board = tmp_path / "board.txt"
    board.write_text("...\n")
    proc = run_cli(*[str(board) if a == "BOARD" else a for a in args])
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and needle in lines[0], proc.stderr


@pytest.fixture
def tiny_dict(tmp_path, tiny_lexicon):
    path = tmp_path / "tiny.txt"
    path.write_text("\n".join(tiny_lexicon.words) + "\n")
    return str(path)


def test_banana_auto_proves_none_with_cpsat(tmp_path):
    words = tmp_path / "w.txt"
    words.write_text("at\nta\ncat\n")
    proc = run_cli("banana", "qqq", "--dict", str(words), "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["status"] == NONE and doc["answered_by"] == "cpsat"
    assert doc["portfolio"]["others"]["backtrack"].startswith("unknown")


def test_jsonl_through_auto_streams_then_summarises(tiny_dict, tiny_lexicon):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--all", "--jobs", "1", "--jsonl")
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    *rows, summary = lines
    expected = brute_force_rectangles(rectangle_spec(3, 3, tiny_lexicon))
    assert proc.returncode == 0 and {tuple(r["rows"]) for r in rows} == expected
    assert summary["count"] == len(expected) and summary["answered_by"] == "backtrack" and "solutions" not in summary


def test_wordscapes_auto_says_who_answered(tmp_path):
    board = tmp_path / "ring.txt"
    board.write_text("....\n.##.\n....\n")
    words = tmp_path / "w.txt"
    words.write_text("\n".join("rest site sir eat tea ate set are arts east sea tie".split()) + "\n")
    doc = json.loads(run_cli("wordscapes", str(board), "retains", "--dict", str(words), "--best", "--json").stdout)
    assert doc["solver"] == "auto" and doc["answered_by"] in ("backtrack", "cpsat") and doc["complete"]


def test_grid_best_keeps_its_board_when_the_engines_are_slow_to_stop(monkeypatch):
    """grid --best's race gives its processes their own grace and reaps them; the
    progress supervisor waits for it. Engines that stream a board and then ignore
    the stop for longer than the supervisor's grace once ended in "no board found"."""
    import argparse

    from rich.console import Console

    from cpmodel.commands import grid as grid_command
    from cpmodel.core.scoring import score_table
    from cpmodel.run import portfolio
    from heuristics import grid_search

    def slow_to_stop(spec, seed, control, on_better=None, **_):
        board = grid_search.random_boards(__import__("numpy").random.default_rng(seed), 1, spec.rows * spec.cols)[0]
        on_better(grid_search.board_rows(spec, board))
        time.sleep(4.0)  # deaf to the stop, as a long compiled call is
        return grid_search.Climb(board, 0)

    monkeypatch.setattr(grid_search, "hill_climb", slow_to_stop)
    monkeypatch.setattr(grid_search, "anneal_restarts", slow_to_stop)
    monkeypatch.setattr(portfolio, "GRACE", 2.0)  # the race waits longer than the supervisor's 1 s
    args = argparse.Namespace(jobs=2, seed=5, time_limit=0.5, min=3, max=None, target=None)
    search = grid_command.best_board(args, (2, 2), ["tea", "eat", "ate", "seat"], score_table("boggle"),
                                     Console(stderr=True, quiet=True))
    assert search["board"] is not None and search["stopped_by"] == "time-limit", search
