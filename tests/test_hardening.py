"""Every README promise under hostile use: signals at generated moments, text
that looks like markup, narrow terminals, closed pipes, odd files, and JSON
documents that match docs/json.md."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cpmodel.commands import cli
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import rectangle_spec
from cpmodel.core.validate import check_rectangle
from tests.conftest import ROOT, run_cli, wait_for_handlers

DOCS = (ROOT / "docs" / "json.md").read_text()


@pytest.fixture(autouse=True)
def _restore_signal_handlers():
    """cli.main() run in this process takes over SIGINT and SIGTERM; give them back."""
    from cpmodel.run import interrupts

    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)
    interrupts.received = None
    sys.unraisablehook = sys.__unraisablehook__


# -- signals ----------------------------------------------------------------------------

# Runs that last well beyond the signal, each with a different engine and output.
LONG_RUNS = {
    "cpsat-json": ("rect", "5x6", "--top", "5000", "--all", "--solver", "cpsat", "--jobs", "1", "--json"),
    "backtrack-jsonl": ("rect", "4x4", "--top", "1500", "--all", "--solver", "backtrack", "--jobs", "1", "--jsonl"),
    "cp-count": ("rect", "5x6", "--top", "5000", "--count", "--solver", "cp", "--jobs", "1", "--json"),
    "sharded-json": ("rect", "4x4", "--top", "1500", "--all", "--solver", "backtrack", "--jobs", "2", "--json"),
    "both-json": ("rect", "4x4", "--top", "1200", "--all", "--solver", "both", "--json"),
    "banana-cpsat": ("banana", "--draw", "80", "--seed", "3", "--solver", "cpsat", "--json"),
}


def _signalled_run(args, signum: int, delay: float) -> tuple[subprocess.CompletedProcess, float]:
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, COLUMNS="120"))
    wait_for_handlers(proc)
    time.sleep(delay)
    sent = time.monotonic()
    proc.send_signal(signum)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # it did not stop: the test fails, and leaves no process behind
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), time.monotonic() - sent


_SPECS: dict = {}


def _rect_spec(size: str, top: int):
    key = (size, top)
    if key not in _SPECS:
        m, n = map(int, size.split("x"))
        lexicon = load_default()
        _SPECS[key] = rectangle_spec(m, n, lexicon, lexicon, top)
    return _SPECS[key]


def _honest(doc: dict) -> None:
    assert doc["status"] in ("found", "none", "unknown")
    if not doc["complete"]:
        assert doc["status"] != "none", doc  # a cut search never proves none
    if doc["status"] == "none":
        assert doc["complete"] and doc["count"] == 0
    if doc.get("stopped_by") == "limit":
        assert doc["complete"], doc  # it found what was asked


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.generate))  # each example is a process run: no shrinking
@given(run=st.sampled_from(sorted(LONG_RUNS)), signum=st.sampled_from([signal.SIGINT, signal.SIGTERM]),
       delay=st.floats(min_value=0.0, max_value=2.5))
def test_a_signal_at_any_moment_gives_one_honest_document(run, signum, delay):
    args = LONG_RUNS[run]
    proc, took = _signalled_run(args, signum, delay)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 128 + signum), (proc.returncode, proc.stderr[-500:])
    assert took < 8, f"exit took {took:.1f} s after the signal"
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if "--jsonl" in args:
        docs = [json.loads(line) for line in lines]
        doc, solutions = docs[-1], [d["rows"] for d in docs[:-1]]
        assert doc["count"] == len(solutions)
    else:
        assert len(lines) == 1, proc.stdout[:300]
        doc = json.loads(lines[0])
        solutions = doc.get("solutions", [])
    _honest(doc)
    if proc.returncode == 128 + signum:
        assert doc["stopped_by"] == "interrupt" or doc["complete"], doc
    if args[0] == "rect":
        size, top = args[1], int(args[args.index("--top") + 1])
        spec = _rect_spec(size, top)
        for rows in solutions:
            check_rectangle(spec, tuple(rows))  # partial results are still real rectangles
    if args[0] == "banana" and "solvers" in doc:  # a banana document names its engines in solvers
        _matches(doc, "`banana`")
    elif "solver" not in doc and "solvers" not in doc:  # stopped before the search began
        _matches(doc, "Interrupted before any search")
    elif "both" in args:
        assert {"solvers", "agreement"} <= doc.keys()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_a_big_document_waits_on_a_full_pipe(signum):
    """The search ends in half a second, but nobody reads its 156 KB document: the write
    blocks on the full pipe, and the signal lands inside it. Python's buffered writer used
    to return early and drop all but 64 KB; the document must arrive whole, and once."""
    args = ("rect", "3x3", "--top", "300", "--all", "--solver", "backtrack", "--json")
    proc, _ = _signalled_run(args, signum, 3.0)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1 and len(proc.stdout) > 150_000, proc.stdout[-300:]  # a pipe holds 64 KB
    doc = json.loads(lines[0])
    assert doc["complete"] and doc["count"] == len(doc["solutions"]) == 6774
    assert proc.returncode == 128 + signum  # the signal came while the document was being written


def test_a_signal_while_streamed_solutions_print_loses_none():
    """Ctrl-C landing between taking a streamed solution off the queue and printing it
    lost that line while the summary still counted it (the signal harness saw 5,966
    lines and a count of 5,967). Every queued solution is printed before it counts."""
    import io

    from rich.console import Console

    from cpmodel.core.control import Control
    from cpmodel.core.result import SolveResult
    from cpmodel.run import interrupts
    from cpmodel.run.supervise import Supervisor

    interrupts.install()
    control, printed = Control(), []

    def printer(rows) -> None:
        if not printed:
            os.kill(os.getpid(), signal.SIGINT)  # the signal lands inside the printing of row 0
        printed.append(rows)

    supervisor = Supervisor(control, "test", Console(file=io.StringIO()), printer, engine="backtrack")

    def task() -> SolveResult:
        for k in range(50):
            supervisor.stream((f"row{k}",))
        control.stop.wait(5)  # the main thread prints, is interrupted, and asks us to stop
        return SolveResult("backtrack", "found", complete=False, count=50, stopped_by="interrupt")

    result = supervisor.run(task)
    assert supervisor.interrupted and result.count == 50
    assert printed == [(f"row{k}",) for k in range(50)]


def test_an_abandoned_compaction_keeps_the_layout_it_started_from():
    """--compact improves on a layout it was given. On a fresh install its first
    box waited for numba to compile the exact fill, which no stop interrupts;
    abandoned at the time limit, it reported "no layout found" beside the layout
    printed just above. An abandoned run keeps what it started from: found, unproven."""
    import io
    import threading

    from rich.console import Console

    from cpmodel.core.control import Control
    from cpmodel.core.result import SolveResult
    from cpmodel.run.supervise import Supervisor

    start, release = ("at", "t."), threading.Event()
    supervisor = Supervisor(Control(time_limit=0.2), "compacting", Console(file=io.StringIO()), engine="cpsat",
                            start=start)

    def deaf_task() -> SolveResult:  # a compile: it does not look at the stop
        release.wait(10)
        return SolveResult("cpsat", "found", complete=True, count=1)

    result = supervisor.run(deaf_task)
    release.set()
    assert result.status == "found" and result.solutions == [start]
    assert not result.complete and result.stopped_by == "time-limit" and "abandoned" in result.stats


def test_cpsat_stops_while_it_builds_a_big_model():
    """The case that used to hang: Ctrl-C while CP-SAT loads its tables."""
    proc, took = _signalled_run(LONG_RUNS["cpsat-json"], signal.SIGINT, 0.3)
    assert proc.returncode == 130 and took < 5, (took, proc.stderr[-300:])
    assert json.loads(proc.stdout)["stopped_by"] == "interrupt"


def test_time_limit_holds_while_a_model_is_built():
    """Building CP-SAT's model for the whole bag takes longer than the limit:
    the engine is left behind one grace second after it, not waited for."""
    proc = run_cli("banana", "--draw", "144", "--seed", "1", "--solver", "cpsat", "--time-limit", "2", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["status"] in ("found", "unknown")
    _honest(doc)
    assert doc["solvers"][0]["seconds"] < 2 + 2.5, doc["solvers"][0]


def test_a_command_run_in_process_leaves_later_calls_their_whole_limit(tmp_path, capsys):
    """cli.main() marks when the command began (its --time-limit counts from there) and
    unmarks it on return: a search called later in the same process (a test, a notebook)
    once found its limit already spent and ended with nothing."""
    from cpmodel.core import clock

    words = tmp_path / "words.txt"
    words.write_text("at\nto\nta\not\n")
    code = cli.main(["rect", "2x2", "--dict", str(words), "--solver", "backtrack"], began=time.monotonic() - 100)
    capsys.readouterr()
    assert code == 0 and clock.left(1.0) == 1.0


# -- text that looks like markup, control characters, odd files ----------------------

_NASTY = st.lists(st.sampled_from(list("[]/\\x:qu.ab5×\n\t ") + ["[/x]", "[bold]", ":cat:", "\x1b[31m"]),
                  min_size=1, max_size=8).map("".join)


def _in_process(argv: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=_NASTY, where=st.sampled_from(["size", "pattern", "rack", "hand", "board", "dict", "top"]))
def test_any_user_text_gives_an_answer_or_one_error_line(text, where, capsys):
    argv = {"size": ["rect", text, "--top", "30", "--solver", "backtrack", "--time-limit", "2"],
            "pattern": ["rect", "2x2", "--pattern", text, "--top", "30", "--solver", "backtrack"],
            "rack": ["words", text, "--top", "200"],
            "hand": ["banana", text, "--top", "300", "--time-limit", "2"],
            "board": ["grid", text, "--top", "200", "--show", "1"],
            "dict": ["rect", "2x2", "--dict", f"/nonexistent/{text}"],
            "top": ["rect", "2x2", "--top", text]}[where]
    code, out, err = _in_process(argv, capsys)
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), err
        assert "Traceback" not in err


def test_brackets_stay_visible(capsys, monkeypatch):
    code, out, err = _in_process(["rect", "[/x]"], capsys)
    assert code == 2 and "[/x]" in err
    code, out, err = _in_process(["grid", "[qu]aaevftmeimsckou", "--top", "500", "--show", "0"], capsys)
    assert code == 0 and "[qu]aae/vftm/eims/ckou" in out  # the board's title, not eaten as markup
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as on a machine without the plot extra
    code, out, err = _in_process(["compare", "--plot", "x.png"], capsys)
    assert code == 2 and "pip install -e '.[plot]'" in err


def test_a_newline_in_a_path_is_one_line(capsys):
    code, out, err = _in_process(["rect", "3x3", "--dict", "two\nlines.txt"], capsys)
    assert code == 2 and err.count("\n") == 1 and "two\\nlines.txt" in err


def test_a_byte_order_mark_does_not_hide_the_first_word(tmp_path, capsys):
    words = tmp_path / "bom.txt"
    words.write_bytes("\ufeffbit\nice\nten\n".encode("utf-8"))
    code, out, err = _in_process(["rect", "3x3", "--dict", str(words), "--solver", "backtrack", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["solutions"] == [["bit", "ice", "ten"]] and "skipped" not in err


# -- exit codes ---------------------------------------------------------------------------

def test_a_closed_stdout_exits_quietly_with_141():
    reader = subprocess.Popen(["head", "-c", "20"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    proc = subprocess.run([sys.executable, "-m", "cpmodel", "rect", "3x3", "--top", "400", "--all", "--jsonl",
                           "--solver", "backtrack", "--jobs", "1"], cwd=ROOT, stdout=reader.stdin, stderr=subprocess.PIPE,
                          text=True, timeout=120)
    reader.stdin.close()
    reader.wait()
    assert proc.returncode == 141 and "Traceback" not in proc.stderr and "rror" not in proc.stderr, proc.stderr


def test_an_internal_error_is_one_line_and_70(monkeypatch, capsys):
    from cpmodel.commands import words

    def broken(args, stdout, stderr):
        raise RuntimeError("something impossible")

    monkeypatch.setattr(words, "run", broken)
    code, out, err = _in_process(["words", "abc"], capsys)
    assert code == 70 and err.strip().count("\n") == 0 and "internal error: RuntimeError: something impossible" in err


# -- narrow terminals and files: the picture is the validated grid ------------------------

@pytest.fixture(scope="module")
def full_bag_layout() -> list[str]:
    proc = run_cli("banana", "--draw", "144", "--seed", "1", "--json")
    return json.loads(proc.stdout)["grid"]


@pytest.mark.parametrize("columns", [40, 80, 200])
def test_a_wide_layout_is_never_broken(columns, full_bag_layout):
    proc = run_cli("banana", "--draw", "144", "--seed", "1", env_extra={"COLUMNS": str(columns)})
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    for row in full_bag_layout:  # every row printed whole: no word of the grid is broken
        letters = row.replace(".", " ").upper()
        spaced = " ".join(letters)
        assert any(letters.rstrip() in line or spaced.rstrip() in line for line in lines), (columns, row)


# -- JSON documents match docs/json.md -----------------------------------------------------

def _documented(section: str) -> tuple[set[str], set[str]]:
    """The ``keys:`` and ``optional:`` lists of one section of docs/json.md."""
    body = DOCS.split(f"## {section}", 1)[1] if f"## {section}" in DOCS else DOCS.split(f"### {section}", 1)[1]
    keys = re.search(r"^keys: (.*)$", body, re.M).group(1)
    optional = re.search(r"^optional: (.*)$", body.split("\n#", 1)[0], re.M)
    split = lambda text: {k.strip() for k in text.split(",")}
    return split(keys), split(optional.group(1)) if optional else set()


def _matches(doc: dict, section: str) -> None:
    required, optional = _documented(section)
    assert required <= doc.keys(), required - doc.keys()
    assert doc.keys() <= required | optional, doc.keys() - required - optional


@pytest.mark.parametrize("args", [
    ("rect", "3x3", "--top", "100", "--solver", "backtrack"),
    ("rect", "3x3", "--top", "100", "--solver", "cpsat", "--count"),
    ("rect", "3x3", "--top", "100", "--solver", "cp", "--limit", "3"),
    ("rect", "3x3", "--top", "60", "--best", "--solver", "backtrack"),
    ("rect", "3x3", "--top", "60", "--all", "--solver", "both"),
    ("rect", "3x3", "--top", "60", "--all", "--solver", "backtrack", "--jobs", "2"),
])
def test_solve_documents_match_the_docs(args):
    proc = run_cli(*args, "--json")
    doc = json.loads(proc.stdout)
    _matches(doc, "Solving")
    for engine_doc in doc.get("solvers", {}).values():
        assert engine_doc.keys() <= set.union(*_documented("Solving"))


def test_jsonl_summary_matches_the_docs():
    proc = run_cli("rect", "3x3", "--top", "60", "--all", "--solver", "backtrack", "--jsonl")
    *solutions, summary = [json.loads(line) for line in proc.stdout.splitlines()]
    assert all(d.keys() == {"rows"} for d in solutions) and summary["count"] == len(solutions)
    _matches(summary, "Solving")


def test_other_documents_match_the_docs(tmp_path):
    board = tmp_path / "ring.txt"
    board.write_text("....\n.##.\n....\n")
    layout = tmp_path / "layout.txt"
    layout.write_text("cat\n...\nsat\n")
    cases = [
        (("wordscapes", str(board), "retains", "--top", "3000"), "Solving"),
        (("banana", "aacstt", "--solver", "both"), "`banana`"),
        (("banana", "aacstt", "--check", str(layout)), "`banana --check`"),
        (("banana", "q", "--peel", str(_valid_layout(tmp_path))), "`banana --peel`"),
        (("words", "retains", "--top", "500"), "`words`"),
        (("grid", "abc/def/ghi"), "`grid`"),
        (("explain", "rect", "3x3", "--top", "50"), "`explain`"),
    ]
    for args, section in cases:
        proc = run_cli(*args, "--json")
        assert proc.returncode in (0, 3), proc.stderr
        _matches(json.loads(proc.stdout), section)


def _valid_layout(tmp_path) -> Path:
    path = tmp_path / "valid.txt"
    path.write_text("cats\n")
    return path


def test_banana_both_says_none_when_cpsat_proves_it():
    proc = run_cli("banana", "qqq", "--solver", "both", "--json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["status"] == "none"
    assert {s["solver"]: s["status"] for s in doc["solvers"]} == {"backtrack": "unknown", "cpsat": "none"}


def test_a_kernels_stop_flag_is_raised_when_the_stop_comes_and_says_why():
    """Compiled searches poll one byte; FlagWatch raises it within a poll of the cause."""
    import threading
    import time

    import numpy as np

    from heuristics.stop_flag import POLL_SECONDS, FlagWatch

    flag, stop = np.zeros(1, np.int8), threading.Event()
    with FlagWatch(flag, lambda: "interrupt" if stop.is_set() else None) as watch:
        time.sleep(3 * POLL_SECONDS)
        assert flag[0] == 0 and watch.why is None
        stop.set()
        waited = time.monotonic()
        while not flag[0] and time.monotonic() - waited < 2:
            time.sleep(0.01)
    assert flag[0] == 1 and watch.why == "interrupt"
    assert time.monotonic() - waited < 20 * POLL_SECONDS
