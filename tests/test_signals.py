"""Stop signals to the whole process group, as ``timeout``, ``docker stop`` and a
terminal's Ctrl-C send them, in every parallel path: local shards (CP-SAT and the
backtracker), ``auto`` races, cross-checks, Bananagrams and ``compare``. Each run
must end promptly with 128 + the signal, one whole document, the answer found so
far, and no process left in its session (no worker, forkserver, resource tracker
or zombie). tests/test_hardening.py signals the main process alone."""

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
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from cpmodel.commands import cli
from cpmodel.core.validate import check_rectangle
from cpmodel.run import engines
from tests.conftest import ROOT, handlers_installed, wait_for_handlers
from tests.test_hardening import (
    _honest,
    _matches,
    _rect_spec,
    _restore_signal_handlers,  # noqa: F401 (an autouse fixture)
)
from tests.test_portfolio import descendants


@dataclass
class Run:
    code: int
    out: str
    err: str
    took: float  # seconds from the signal to the exit
    left: list[int]  # processes still in the run's session after it exited

    def doc(self) -> dict:
        lines = [line for line in self.out.splitlines() if line.strip()]
        assert lines, self.err[-500:]
        return json.loads(lines[-1])


def in_session(sid: int) -> list[int]:
    """Every process of session ``sid``, zombies included (/proc, field 6 of stat)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid:
                pids.append(int(entry.name))
    return pids


def left_in_session(sid: int, seconds: float = 3.0) -> list[int]:
    """The session's processes once they had ``seconds`` to leave (helpers go when the main process does)."""
    deadline = time.monotonic() + seconds
    while in_session(sid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return in_session(sid)


def group_run(args, signum: int, delay: float, ready=None) -> Run:
    """Start ``python -m cpmodel ARGS`` in a session of its own; once its handlers are in
    place (and ``ready(proc)`` says so, if given), wait ``delay`` seconds and signal the group."""
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(os.environ, COLUMNS="120"))
    deadline = time.monotonic() + 60
    while (not (handlers_installed(proc.pid) and (ready is None or ready(proc))) and proc.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.01)
    time.sleep(delay)
    sent = time.monotonic()
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:  # it finished first
        pass
    out, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    return Run(proc.returncode, out, err, took, left_in_session(proc.pid))


def race_started(proc) -> bool:
    return bool(descendants(proc.pid))


def assert_clean(run: Run, signum: int) -> None:
    assert "Traceback" not in run.err, run.err[-800:]
    assert run.code == 128 + signum, (run.code, run.err[-500:])
    assert not run.left, f"left in the session: {run.left}"
    assert run.took < 5, f"exit took {run.took:.1f} s after the signal"


# -- sharded runs: group SIGTERM at six timings ------------------------------------------

SHARDED = {  # neither finishes within the timings below (a minute and ~20 s on 2 cores)
    "cpsat": ("rect", "4x4", "--top", "1000", "--all", "--solver", "cpsat", "--jobs", "2", "--shards", "32", "--json"),
    "backtrack": ("rect", "4x4", "--top", "3000", "--count", "--solver", "backtrack", "--jobs", "2", "--shards", "64",
                  "--json"),
}
TIMINGS = (0.05, 0.3, 0.6, 0.9, 1.3, 1.8)  # seconds after the handlers are in: imports, words, split, shards


@pytest.mark.parametrize("delay", TIMINGS)
@pytest.mark.parametrize("engine", sorted(SHARDED))
def test_group_sigterm_during_a_sharded_run(engine, delay):
    run = group_run(SHARDED[engine], signal.SIGTERM, delay)
    assert_clean(run, signal.SIGTERM)
    assert len(run.out.splitlines()) == 1
    doc = run.doc()
    _honest(doc)
    assert doc["stopped_by"] == "interrupt" and not doc["complete"]
    if "solver" in doc:  # the search had begun (else: the documented before-any-search document)
        assert doc["shards"]["total"] == doc["stats"]["shards"] and doc["where"] == "2 local processes"
        spec = _rect_spec("4x4", 1000)
        for rows in doc.get("solutions", []):
            check_rectangle(spec, tuple(rows))


# -- auto races: group SIGTERM at ten timings, each with the answer ----------------------

RACE = ("rect", "5x6", "--json")  # familiar words: a rectangle within ~0.3 s, the proof in ~3 s


@pytest.mark.parametrize("delay", [0.5 + 0.15 * k for k in range(10)])
def test_group_sigterm_on_a_race_keeps_its_answer(delay):
    run = group_run(RACE, signal.SIGTERM, delay, ready=race_started)
    assert run.code in (0, 143), (run.code, run.err[-500:])  # 0: the proof came first
    assert "Traceback" not in run.err and not run.left, (run.err[-500:], run.left)
    assert len(run.out.splitlines()) == 1
    doc = run.doc()
    assert doc["status"] == "found" and doc["answered_by"] == "backtrack", doc
    assert doc["complete"] or doc["stopped_by"] == "interrupt"
    check_rectangle(_rect_spec("5x6", None), tuple(doc["solutions"][0]))
    assert run.took < 3


# -- the end of a sharded run: counted and printed exactly once --------------------------

class ReplayPool:
    """Shard results computed once, handed back in order, in this process; ``at`` sends
    the signal at one moment of the run: a submit, a merge's printing, or the close."""

    workers, where = 2, "this process"
    cache: ClassVar[dict] = {}  # shard results, computed once for every test

    def __init__(self, signum: int, at: tuple[str, int]):
        self.signum, self.at, self.seen = signum, at, {"submit": 0, "close": 0}

    def _tick(self, event: str) -> None:
        self.seen[event] = self.seen.get(event, 0) + 1
        if (event, self.seen[event]) == self.at:
            os.kill(os.getpid(), self.signum)

    def submit(self, job):
        self._tick("submit")
        key = (repr(job.spec), job.request.count_only)
        if key not in self.cache:
            self.cache[key] = engines.run(job)
        future = Future()
        future.set_result(self.cache[key])
        return future

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self._tick("close")


def _moments(shards: int) -> list[tuple[str, int]]:
    """Before, at and after the last merge: late submits, each of the last printing batches, the close."""
    return ([("submit", shards - k) for k in range(3)] + [("print", shards - k) for k in range(4)]
            + [("close", 1)])


SHARD_END = [(signum, output, at) for signum in (signal.SIGINT, signal.SIGTERM) for output in ("json", "jsonl")
             for at in _moments(16)] + [(signal.SIGTERM, "json", ("print", 1)), (signal.SIGINT, "jsonl", ("print", 1))]


@pytest.mark.parametrize("signum,output,at", SHARD_END, ids=lambda v: getattr(v, "name", str(v)))
def test_a_signal_at_the_last_shard_counts_what_is_printed(monkeypatch, capsys, signum, output, at):
    """34 moments around the last merge (cheap: the shards are replayed in this process):
    the summary's count equals the lines printed, and a signal after the last merge leaves
    the complete answer (only the exit code says a signal came)."""
    from cpmodel.run import executors
    from cpmodel.show import output as output_module

    pool = ReplayPool(signum, at)
    monkeypatch.setattr(executors, "open_pool", lambda jobs, scheduler: pool)
    original = output_module.Output.solutions

    def printing(self, rows_list):  # the signal lands while a batch is being printed
        pool._tick("print")
        original(self, rows_list)

    monkeypatch.setattr(output_module.Output, "solutions", printing)
    mode = "--all" if output == "jsonl" else "--count"
    code = cli.main(["rect", "3x3", "--top", "150", mode, "--solver", "backtrack", "--shards", "16", f"--{output}"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    doc, printed = lines[-1], lines[:-1]
    full = _full_count()
    if output == "jsonl":
        assert doc["count"] == len(printed) == len({tuple(line["rows"]) for line in printed})
    else:
        assert len(lines) == 1
    assert code == 128 + signum
    assert doc["complete"] == (doc["count"] == full) == (doc["stopped_by"] is None), doc
    if at[0] == "close" or at == ("print", 16):  # after the last merge: the whole answer stands
        assert doc["complete"] and doc["shards"]["done"] == 16


@functools.lru_cache
def _full_count() -> int:
    from cpmodel.core.control import Request
    from cpmodel.core.jobs import Job

    return engines.run(Job("rect", _rect_spec("3x3", 150), "backtrack", Request(limit=None, count_only=True))).count


@pytest.mark.parametrize("signum,lines", [(signal.SIGTERM, 6400), (signal.SIGINT, 6450), (signal.SIGTERM, 6500),
                                          (signal.SIGINT, 6540)])
def test_a_group_signal_as_the_last_shards_finish(signum, lines):
    """The real thing: the signal goes out once ``lines`` of the 6,549 solutions were
    printed, as the last shards come in. Lines printed and the summary's count agree."""
    args = ("rect", "4x4", "--top", "800", "--all", "--solver", "backtrack", "--shards", "64", "--jsonl")
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)
    reader.start()
    while len(out) < lines and proc.poll() is None:
        time.sleep(0.002)
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:
        pass
    err = proc.stderr.read()
    proc.wait(timeout=30)
    reader.join(timeout=30)
    assert proc.returncode in (0, 128 + signum) and "Traceback" not in err, (proc.returncode, err[-500:])
    assert not left_in_session(proc.pid)
    docs = [json.loads(line) for line in out if line.strip()]
    doc = docs[-1]
    assert doc["count"] == len(docs) - 1 >= lines
    assert doc["complete"] == (doc["count"] == 6549) == (doc["stopped_by"] is None)


# -- SIGHUP and SIGQUIT; cross-checks, Bananagrams, compare ------------------------------

@pytest.mark.parametrize("signum,args", [
    (signal.SIGHUP, SHARDED["backtrack"]),
    (signal.SIGQUIT, RACE),
    (signal.SIGHUP, ("rect", "4x4", "--top", "1200", "--all", "--solver", "backtrack,cp", "--json")),
])
def test_sighup_and_sigquit_end_with_a_document(signum, args):
    run = group_run(args, signum, 0.4, ready=race_started if args == RACE else None)
    assert run.code in ((0, 128 + signum) if args == RACE else (128 + signum,)), (run.code, run.err[-500:])
    assert not run.left and "Traceback" not in run.err
    assert len(run.out.splitlines()) == 1
    _honest(run.doc())


def test_a_group_signal_during_banana_names_the_signal():
    """Two vowels: the word counts allow the hand, and neither engine settles it in
    0.3 s; the document says the signal stopped it (``interrupt``), not ``gave-up``."""
    run = group_run(("banana", "cdddhhlmnnqrrrsttuuww", "--json"), signal.SIGTERM, 0.3, ready=race_started)
    assert_clean(run, signal.SIGTERM)
    doc = run.doc()
    _matches(doc, "`banana`")
    assert doc["status"] == "unknown" and doc["stopped_by"] == "interrupt", doc


def test_compare_stops_within_a_second_and_keeps_its_finished_rows():
    """The signal goes out as the second case begins (its progress line on stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", "compare", "--quick", "--json"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    for line in proc.stderr:
        if line.startswith("banana"):  # the case takes 0.15 s: the signal lands in it
            break
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == 143 and took < 1.5, (proc.returncode, took, err[-300:])
    doc = json.loads(out)
    assert doc["complete"] is False and doc["stopped_by"] == "interrupt"
    assert [row["case"] for row in doc["rows"]] == ["3x3 --top 100 --all"]
    assert doc["rows"][0]["agreement"] == "identical sets"
    assert not left_in_session(proc.pid)


def test_a_signal_just_before_the_document_only_changes_the_exit_code(monkeypatch, capsys):
    """A signal that lands after a cross-check finished, as its document is built, is
    held: the document is the complete answer, and the exit code says a signal came."""
    from cpmodel.commands import common

    original = common.solve_document

    def signalled(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        return original(*args, **kwargs)

    monkeypatch.setattr(common, "solve_document", signalled)
    code = cli.main(["rect", "3x3", "--top", "60", "--all", "--solver", "backtrack,cp", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 143 and doc["complete"] and doc["agreement"] == "identical solution sets"


SWALLOWED = """
import signal, sys, time
from cpmodel.run import interrupts
interrupts.install()

class Dropped:
    def __del__(self):  # the handler runs in here, where Python swallows what it raises
        signal.raise_signal(signal.SIG%s)
        for _ in range(3):
            pass

try:
    Dropped()
    ends = time.monotonic() + 10
    while time.monotonic() < ends:
        time.sleep(0.01)
    print("went on")
except KeyboardInterrupt:
    print("stopped")
sys.exit(interrupts.exit_code())
"""


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_a_signal_that_lands_where_python_swallows_it_still_stops_the_run(name):
    """A group SIGTERM at 0.05 s once landed in the import system's weakref callback: the
    exception was printed as "Exception ignored" and the run went on to its end (38 s)."""
    proc = subprocess.run([sys.executable, "-c", SWALLOWED % name], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.stdout.strip() == "stopped" and proc.stderr == ""
    assert proc.returncode == 128 + getattr(signal, f"SIG{name}")


def test_a_signal_while_numba_loads_stops_at_once_and_leaves_the_load_alone(monkeypatch):
    """A SIGTERM raised inside numba's loading of its cached code crashed the process
    (SIGSEGV); holding the signals instead made a stop wait for a whole compile (8 s
    on a first run; the web app killed such jobs). The kernels load in a thread:
    the signal lands in the wait, the load is never interrupted, and the process
    knows it must not wait for it at exit."""
    import argparse

    from rich.console import Console

    from cpmodel.commands import grid as grid_command
    from cpmodel.core.scoring import score_table
    from cpmodel.run import interrupts
    from heuristics import grid_search

    loaded = []

    def slow_warm_up_with_a_signal(spec):
        os.kill(os.getpid(), signal.SIGTERM)  # arrives mid-load
        time.sleep(2.0)
        loaded.append(spec)

    monkeypatch.setattr(grid_search, "warm_up", slow_warm_up_with_a_signal)
    monkeypatch.setattr(interrupts, "left_running", False)
    saved = {sig: signal.getsignal(sig) for sig in interrupts.STOP_SIGNALS}
    began = time.monotonic()
    try:
        interrupts.install()
        args = argparse.Namespace(jobs=1, seed=1, time_limit=5.0, min=3, max=None)
        search = grid_command.best_board(args, (2, 2), ["tea", "eat", "ate"], score_table("boggle"),
                                         Console(stderr=True, quiet=True))
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        sys.unraisablehook = sys.__unraisablehook__
    assert time.monotonic() - began < 1.0, "the stop waited for the load"
    assert search["board"] is None and search["stopped_by"] == "interrupt" and interrupts.received == signal.SIGTERM
    assert interrupts.left_running and not loaded
    for thread in threading.enumerate():
        if thread.name == "cpmodel-load":
            thread.join()
    assert loaded, "the load was interrupted instead of left to finish"


def test_a_first_run_stops_promptly_while_numba_compiles(word_file, tmp_path):
    """On a fresh install numba has no cached code and compiles the kernels (about
    8 s for grid --best): a SIGTERM then ends the run within a second or two,
    honestly unknown, and the process does not wait for the compiler."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cold")}  # a cache nothing has filled
    words = word_file(["tea", "eat", "ate", "teas", "seat", "east", "sat", "set", "net", "ten", "tens", "nest"])
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", "grid", "--best", "3x3", "--dict", words, "--json",
                             "--time-limit", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)
    wait_for_handlers(proc)
    time.sleep(2.0)  # imported; compiling (the whole compile takes several seconds more)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == 143, err[-800:]
    assert took < 2.0, f"the stop waited {took:.1f} s for numba"
    doc = json.loads(out.splitlines()[-1])
    assert doc["status"] == "unknown" and doc.get("board") is None and doc["stopped_by"] == "interrupt"
