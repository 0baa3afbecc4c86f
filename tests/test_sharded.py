"""Sharded runs: the same sets, counts and optima as one process; JSON lines; checkpoint and resume; Dask."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from cpmodel.core.boards import parse_crossword
from cpmodel.core.control import Request
from cpmodel.core.jobs import Job
from cpmodel.core.lexicon import Lexicon, load_default
from cpmodel.core.specs import rectangle_spec, wordscapes_spec
from cpmodel.core.validate import rectangle_problems
from cpmodel.run import engines
from cpmodel.run.cuts import split_line
from cpmodel.run.sharded import Progress, _drive
from cpmodel.run.shards import Merger, split, with_bound, worth_sharding
from cpmodel.show.output import Output
from tests.conftest import ROOT, run_cli
from tests.conftest import subprocess_env as _env

RECT_ENGINES = ("backtrack", "cp", "cpsat")


def merged(job: Job, shards: int | None = None):
    """Run every shard in this process and merge: the sharded answer without a pool."""
    parts = split(job, shards)
    merger = Merger(job, len(parts), keep_solutions=True)
    for shard in parts:
        merger.add(shard.id, engines.run(replace(shard.job, request=replace(shard.job.request, bound=merger.bound))))
    return merger.result(0.0, None)


@pytest.fixture(scope="module")
def spec_3x3():
    return rectangle_spec(3, 3, load_default(), top=120)


@pytest.mark.parametrize("engine", RECT_ENGINES)
def test_sharded_set_equals_whole(spec_3x3, engine):
    whole = engines.run(Job("rect", spec_3x3, engine, Request(limit=None)))
    sharded = merged(Job("rect", spec_3x3, engine, Request(limit=None)), shards=7)
    assert sharded.complete and whole.complete
    assert set(sharded.solutions) == set(whole.solutions) and sharded.count == whole.count == len(whole.solutions)


@pytest.mark.parametrize("engine", RECT_ENGINES)
def test_sharded_optimum_equals_whole(spec_3x3, engine):
    whole = engines.run(Job("rect", spec_3x3, engine, Request(limit=None, best=True)))
    sharded = merged(Job("rect", spec_3x3, engine, Request(limit=None, best=True)), shards=5)
    assert sharded.objective == whole.objective and sharded.complete


def test_sharded_count_transposed_shape():
    spec = rectangle_spec(4, 3, load_default(), top=200)  # m > n: the backtracker fills columns
    whole = engines.run(Job("rect", spec, "backtrack", Request(limit=None, count_only=True)))
    for engine in ("backtrack", "cpsat"):
        assert merged(Job("rect", spec, engine, Request(limit=None, count_only=True)), shards=6).count == whole.count


@pytest.mark.parametrize("engine", ["backtrack", "cp", "cpsat"])
def test_wordscapes_sharded_optimum_equals_whole(engine):
    """A shard cuts one slot's candidates; its ranks must be cut alike, or --best
    reads the wrong rank for the split slot's words (it reported (164, 495) for (172, 523))."""
    from cpmodel.core.boards import parse_crossword
    from cpmodel.core.specs import wordscapes_spec

    spec = wordscapes_spec(parse_crossword("....\n.##.\n...."), "retains", load_default().top(3000))
    job = Job("wordscapes", spec, engine, Request(limit=None, best=True))
    whole, sharded = engines.run(job), merged(job, shards=8)
    assert whole.complete and sharded.complete
    assert sharded.objective == whole.objective == spec.fill_objective(sharded.solutions[0])


@pytest.mark.parametrize("engine", ["backtrack", "cp", "cpsat"])
def test_wordscapes_sharded_count(tmp_path, engine):
    board = tmp_path / "ring.txt"
    board.write_text("....\n.##.\n....\n")
    counts = []
    for jobs in ("1", "2"):
        proc = run_cli("wordscapes", str(board), "retains", "--count", "--solver", engine, "--jobs", jobs, "--json")
        assert proc.returncode == 0, proc.stderr
        counts.append(json.loads(proc.stdout)["count"])
    assert counts[0] == counts[1] == 14355


def _nodes(result) -> int:
    return result.stats.get("nodes", 0)


def _run_plan(plan) -> list:
    return [engines.run(shard.job) for shard in plan]


@pytest.mark.parametrize("orientation", ["rows", "cols"])
def test_shards_cut_the_lines_the_backtracker_fills(orientation):
    """The shards' trees are the one job's level-1 subtrees: the same nodes, not more."""
    spec = rectangle_spec(3, 4, load_default(), top=400)
    job = Job("rect", spec, "backtrack", Request(limit=None, count_only=True), options={"orientation": orientation})
    whole = engines.run(job)
    plan = split(job, 16)
    assert split_line(job) == orientation[:-1]
    assert all((s.job.spec.first_row if orientation == "rows" else s.job.spec.first_col) is not None for s in plan)
    parts = _run_plan(plan)
    assert sum(p.count for p in parts) == whole.count > 0
    assert sum(map(_nodes, parts)) == _nodes(whole)


def test_shards_ask_the_backtracker_for_its_orientation(monkeypatch):
    """A new fill rule in the backtracker moves the cut with it (no second copy of the rule)."""
    import heuristics.rectangle

    spec = rectangle_spec(3, 4, load_default(), top=400)  # today's rule fills the 4-letter rows
    job = Job("rect", spec, "backtrack", Request(limit=None, count_only=True))
    assert split_line(job) == "row"
    monkeypatch.setattr(heuristics.rectangle, "choose_orientation", lambda spec: "cols")
    assert split_line(job) == "col"
    plan = split(job, 8)
    assert all(s.job.spec.first_col is not None and s.job.option("orientation") == "cols" for s in plan)
    whole = engines.run(job)
    assert whole.stats["orientation"] == "cols"
    parts = _run_plan(plan)
    assert sum(p.count for p in parts) == whole.count and sum(map(_nodes, parts)) == _nodes(whole)


@pytest.mark.parametrize("engine", RECT_ENGINES)
def test_pair_shards_partition_the_solutions(spec_3x3, engine):
    job = Job("rect", spec_3x3, engine, Request(limit=None))
    whole = engines.run(job)
    plan = split(job, 400)  # more shards than first-line words: pairs
    assert len(plan) > 120 and any(s.job.spec.pattern for s in plan)
    merged_result = merged(job, 400)
    assert set(merged_result.solutions) == set(whole.solutions) and merged_result.count == whole.count


def test_pair_shards_add_only_the_first_level():
    """Pairs split each first word's subtree by the second line's first letter:
    below level 0 the nodes are the one job's, node for node."""
    spec = rectangle_spec(4, 4, load_default(), top=300)
    job = Job("rect", spec, "backtrack", Request(limit=None, count_only=True))
    whole = engines.run(job)
    parts = _run_plan(split(job, 900))
    assert sum(p.count for p in parts) == whole.count
    below = [sum(p.stats["profile"][k] for p in parts) for k in range(1, 4)]
    assert below == whole.stats["profile"][1:]


def test_small_searches_stay_in_one_process():
    small = Job("rect", rectangle_spec(3, 3, load_default(), top=120), "backtrack", Request(limit=None, count_only=True))
    big = Job("rect", rectangle_spec(5, 6, load_default(), top=5000), "backtrack", Request(limit=None, count_only=True))
    assert not worth_sharding(small) and worth_sharding(big)
    proc = run_cli("rect", "3x3", "--top", "120", "--count", "--jobs", "2", "--solver", "backtrack", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["count"] == engines.run(small).count
    assert "shards" not in json.loads(proc.stdout)


# -- --best: the bound travels with every shard submitted after it improved ------------


class SerialPool:
    """A pool that runs each shard at once, in this process, and records the bound it came with."""

    workers, where = 1, "this process"

    def __init__(self):
        self.bounds = []

    def submit(self, job):
        self.bounds.append(job.request.bound)
        future = Future()
        future.set_result(engines.run(job))
        return future

    def stop(self):
        pass


def _best_through_drive(job, shards):
    plan = split(job, shards)
    pool, merger = SerialPool(), Merger(job, len(plan), keep_solutions=True)
    quiet = Console(file=open(os.devnull, "w"))
    _drive(pool, plan, job, merger, None, Output("json", quiet, "x", False), Progress(quiet, "test", len(plan)))
    return plan, pool.bounds, merger.result(0.0, None)


def _work(result) -> int:
    return result.stats.get("nodes") or result.stats.get("branches", 0)


WORDSCAPES_WORDS = Lexicon("""ten net tea eat ate eta tan ant nat tae neat ante etna anet sate seat east teas eats
set sea tee see ens sen tens nets ease tease setae sat tat""".split(), source="tiny")


def _best_jobs():
    rect = rectangle_spec(4, 4, load_default(), top=300)
    board = wordscapes_spec(parse_crossword("....\n.#.#\n....\n.#.#"), "aenstte", WORDSCAPES_WORDS)
    return [Job("rect", rect, engine, Request(limit=None, best=True)) for engine in RECT_ENGINES] + [
        Job("wordscapes", board, engine, Request(limit=None, best=True)) for engine in ("backtrack", "cpsat")]


@pytest.mark.parametrize("job", _best_jobs(), ids=lambda j: f"{j.puzzle}-{j.engine}")
def test_best_shares_its_bound_as_it_improves(job):
    whole = engines.run(job)
    plan, bounds, result = _best_through_drive(job, 12)
    assert result.complete and result.objective == whole.objective is not None
    carried = [b for b in bounds if b is not None]
    assert len(carried) >= len(bounds) - 3  # every shard after the first improvement carries it
    assert carried == sorted(carried, reverse=True) and carried[-1] >= result.objective
    # the bound cuts: the same shards without it do more work, and each shard with it
    # reports only strictly better answers
    alone = [engines.run(shard.job) for shard in plan]
    assert min(r.objective for r in alone if r.objective) == whole.objective
    assert sum(map(_work, alone)) > result.stats.get("nodes", result.stats.get("branches", 0))
    for shard in plan:
        beaten = engines.run(with_bound(shard.job, whole.objective, None))
        assert beaten.objective is None and beaten.complete


def test_jsonl_lines_are_valid_rectangles(spec_3x3):
    proc = run_cli("rect", "3x3", "--top", "120", "--all", "--jsonl", "--jobs", "2", "--shards", "8", "--solver", "backtrack")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    *solutions, summary = lines
    assert all(set(doc) == {"rows"} and not rectangle_problems(spec_3x3, doc["rows"]) for doc in solutions)
    assert summary["status"] == "found" and summary["complete"] and summary["count"] == len(solutions)
    whole = engines.run(Job("rect", spec_3x3, "backtrack", Request(limit=None)))
    assert {tuple(d["rows"]) for d in solutions} == set(whole.solutions)
    assert "shards" in proc.stderr and "ETA" in proc.stderr  # the progress line


def test_checkpoint_refuses_another_mode(tmp_path):
    path = str(tmp_path / "ck.jsonl")
    assert run_cli("rect", "3x3", "--top", "60", "--count", "--jobs", "2", "--checkpoint", path).returncode == 0
    proc = run_cli("rect", "3x3", "--top", "60", "--all", "--jobs", "2", "--checkpoint", path)
    assert proc.returncode == 2 and "another puzzle, spec, mode" in proc.stderr and "Traceback" not in proc.stderr


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "cpmodel", *args]


def test_resume_after_kill_9_gives_the_identical_set(tmp_path):
    path = tmp_path / "ck.jsonl"
    args = ("rect", "4x4", "--top", "500", "--all", "--jsonl", "--jobs", "2", "--solver", "cpsat", "--checkpoint", str(path))
    first = subprocess.Popen(_cli(*args), cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not path.exists() or path.read_text().count("\n") < 20):
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait()
    recorded = path.read_text().count("\n") - 1
    assert recorded >= 19
    resumed = subprocess.run(_cli(*args), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    *lines, summary = [json.loads(line) for line in resumed.stdout.splitlines()]
    assert summary["complete"] and summary["shards"]["resumed"] >= recorded
    whole = run_cli("rect", "4x4", "--top", "500", "--all", "--json", "--jobs", "1", "--solver", "backtrack")
    expected = {tuple(r) for r in json.loads(whole.stdout)["solutions"]}
    assert {tuple(d["rows"]) for d in lines} == expected and summary["count"] == len(expected) == len(lines)


# -- Dask: a real scheduler and two workers on localhost -------------------------------


@functools.cache
def _local_4x4() -> frozenset:
    proc = run_cli("rect", "4x4", "--top", "1000", "--all", "--jsonl", "--jobs", "2", "--solver", "backtrack")
    return frozenset(tuple(json.loads(line)["rows"]) for line in proc.stdout.splitlines()[:-1])


def test_dask_enumerates_like_the_local_pool(dask_cluster):
    address, _ = dask_cluster
    proc = run_cli("rect", "4x4", "--top", "1000", "--all", "--jsonl", "--solver", "backtrack", "--scheduler", address)
    assert proc.returncode == 0, proc.stderr
    *lines, summary = [json.loads(line) for line in proc.stdout.splitlines()]
    assert summary["count"] == 16464 and summary["complete"]
    assert {tuple(d["rows"]) for d in lines} == _local_4x4()


def test_dask_survives_a_lost_worker(dask_cluster):
    """300 shards of three or four words, and a worker killed as soon as the first shard has
    streamed its rectangles: Dask re-runs the lost worker's shards, and the set stays exact."""
    address, workers = dask_cluster
    args = ("rect", "4x4", "--top", "1000", "--all", "--jsonl", "--solver", "backtrack", "--shards", "300",
            "--scheduler", address)
    run = subprocess.Popen(_cli(*args), cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = run.stdout.readline()
        assert first and run.poll() is None, "the run ended before a worker could be killed"
        workers[0].kill()
        # read on through the same buffered reader: communicate(timeout=...) reads the raw pipe and
        # would drop what readline() already buffered; the watchdog stands in for its timeout
        watchdog = threading.Timer(300, run.kill)
        watchdog.start()
        try:
            rest = run.stdout.read()
            run.wait()
        finally:
            watchdog.cancel()
    finally:
        if run.poll() is None:  # a failed test leaves no client behind either
            run.kill()
            run.wait()
    assert run.returncode == 0
    *lines, summary = [json.loads(line) for line in (first + rest).splitlines()]
    shards = summary["shards"]
    assert summary["count"] == 16464 and summary["complete"] and shards["done"] == shards["total"] > 250
    assert {tuple(d["rows"]) for d in lines} == _local_4x4()


def test_default_plan_follows_local_workers_but_not_a_fixed_plan():
    """A local run gets 32 backtracker shards per worker (at least 64); a checkpointed or
    cluster run (workers None) the fixed 256, so that a resume elsewhere finds the same
    plan; CP-SAT keeps one word per shard whatever the workers."""
    spec = rectangle_spec(4, 4, load_default(), top=1000)
    job = Job("rect", spec, "backtrack", Request(limit=None, count_only=True))
    assert len(split(job, workers=2)) == 64 and len(split(job, workers=4)) == 128
    assert len(split(job, workers=None)) == len(split(job)) == 256
    cpsat = job.with_engine("cpsat")
    assert len(split(cpsat, workers=2)) == len(split(cpsat)) > 256
    for workers in (2, None):  # every plan covers the same rectangles
        assert merged_count(job, split(job, workers=workers)) == 16464


def merged_count(job: Job, parts) -> int:
    merger = Merger(job, len(parts), keep_solutions=False)
    for shard in parts:
        merger.add(shard.id, engines.run(shard.job))
    return merger.result(0.0, None).count


def test_checkpointed_run_keeps_the_fixed_plan(tmp_path):
    """With --checkpoint the plan does not depend on --jobs: a resume with other --jobs matches."""
    args = ("rect", "4x4", "--top", "1000", "--count", "--solver", "backtrack", "--json", "--checkpoint",
            str(tmp_path / "run.ckpt"))
    first = json.loads(run_cli(*args, "--jobs", "2").stdout)
    again = json.loads(run_cli(*args, "--jobs", "1").stdout)
    assert first["shards"]["total"] == again["shards"]["total"] == again["shards"]["resumed"] == 256
    assert first["count"] == again["count"] == 16464


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (/proc, fields 14 and 15 of stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _busy(pids: list[int], seconds: float = 1.0) -> float:
    """The CPU share the processes used together over ``seconds`` (1.0: one core flat out)."""
    before = sum(_cpu_seconds(pid) for pid in pids)
    time.sleep(seconds)
    return (sum(_cpu_seconds(pid) for pid in pids) - before) / seconds


def test_a_stopped_dask_run_stops_its_running_shards(dask_cluster):
    """Ctrl-C or SIGTERM to a --scheduler run: Dask cannot interrupt a task, so a shard
    already running went on for minutes on its worker after the client had left. The
    run's stop is a Dask Event the shards poll: the workers go idle within seconds."""
    address, workers = dask_cluster
    run = subprocess.Popen(_cli("rect", "5x6", "--count", "--solver", "backtrack", "--top", "10000", "--shards", "2",
                                "--scheduler", address, "--json"),
                           cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 30
        while _busy([w.pid for w in workers], 0.5) < 0.9 and time.monotonic() < deadline:
            pass  # until the shards run (each minutes long; a busy machine may show one core's worth)
        assert time.monotonic() < deadline, "the shards never started"
        run.send_signal(signal.SIGTERM)
        out, _ = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 143
    doc = json.loads(out.splitlines()[-1])
    assert doc["status"] in ("found", "unknown") and not doc["complete"]
    time.sleep(2.0)  # a shard polls the stop every half second
    assert _busy([w.pid for w in workers]) < 0.2, "a shard ran on after its run was stopped"


def test_a_dask_shard_reads_its_stop_from_any_thread(dask_cluster):
    """The engines poll the stop from their own threads (a watcher, CP-SAT's callbacks). There
    Event's lazy get_client() finds no worker: on a fresh worker the poll failed, read as a stop,
    and a proof came back "not optimal" now and then under load."""
    from distributed import Client, Event

    def poll_from_another_thread(name: str) -> bool:
        from cpmodel.run.flags import DaskStop

        stop, seen = DaskStop(name), []
        thread = threading.Thread(target=lambda: seen.append(stop.is_set()))
        thread.start()
        thread.join()
        return seen[0]

    address, _ = dask_cluster
    with Client(address, timeout=30) as client:
        assert client.submit(poll_from_another_thread, "cpmodel-test-stop", pure=False).result(timeout=60) is False
        Event("cpmodel-test-stop", client=client).set()
        assert client.submit(poll_from_another_thread, "cpmodel-test-stop", pure=False).result(timeout=60) is True
