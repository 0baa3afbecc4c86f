"""The command line through a subprocess: exit codes, one-line errors, JSON keys."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, TINY_WORDS, run_cli, run_json, wait_for_handlers

KEYS = {"status", "count", "complete", "solutions", "seconds"}


@pytest.fixture
def tiny_dict(word_file):
    return word_file(TINY_WORDS)


@pytest.mark.parametrize("solver", ["backtrack", "cpsat"])
def test_json_document_first_solution(tiny_dict, solver):
    doc, proc = run_json("rect", "3x3", "--dict", tiny_dict, "--solver", solver)
    assert proc.returncode == 0
    assert KEYS <= doc.keys()
    assert doc["status"] == "found" and doc["count"] == 1 and doc["complete"] is True
    rows = doc["solutions"][0]
    assert len(rows) == 3 and all(w in TINY_WORDS for w in rows)
    assert all("".join(r[j] for r in rows) in TINY_WORDS for j in range(3))


def test_count_omits_solutions_and_both_agree(tiny_dict):
    doc, proc = run_json("rect", "3x3", "--dict", tiny_dict, "--count", "--solver", "both")
    assert proc.returncode == 0
    assert "solutions" not in doc and {"status", "count", "complete", "seconds"} <= doc.keys()
    assert doc["solvers"]["backtrack"]["count"] == doc["solvers"]["cpsat"]["count"] == doc["count"] >= 1
    assert doc["agreement"] == "same count"


def test_both_all_reports_identical_sets(tiny_dict):
    doc, _ = run_json("rect", "3x3", "--dict", tiny_dict, "--all", "--solver", "both")
    assert doc["agreement"] == "identical solution sets"
    bt, cp = doc["solvers"]["backtrack"]["solutions"], doc["solvers"]["cpsat"]["solutions"]
    assert sorted(map(tuple, bt)) == sorted(map(tuple, cp)) and len(bt) == doc["count"]


def test_none_is_proven_and_exit_zero(word_file):
    path = word_file(["abc", "def", "ghi", "adg"])
    for solver in ("backtrack", "cpsat"):
        doc, proc = run_json("rect", "3x3", "--dict", path, "--solver", solver)
        assert proc.returncode == 0
        assert doc["status"] == "none" and doc["complete"] is True and doc["solutions"] == []


def test_time_limit_reports_unknown():
    doc, proc = run_json("rect", "5x6", "--solver", "backtrack", "--all", "--time-limit", "0.5",
                         "--pattern", "....../....../....../....../zzzzzz")
    assert doc["status"] == "unknown" and doc["complete"] is False and doc["stopped_by"] == "time-limit"


def test_unicode_size_sign_and_text_output(tiny_dict):
    proc = run_cli("rect", "3×3", "--dict", tiny_dict, "--solver", "backtrack", "--limit", "1")
    assert proc.returncode == 0
    assert "1 rectangle" in proc.stdout and "stopped as requested" in proc.stdout


def test_skipped_lines_are_counted_in_one_warning(word_file):
    path = word_file(TINY_WORDS + ["don't", "two words", "ÉCOLE", "", "BIT\r"])
    proc = run_cli("rect", "3x3", "--dict", path, "--solver", "backtrack", "--json")
    assert proc.returncode == 0
    assert "skipped 3 lines" in proc.stderr
    assert json.loads(proc.stdout)["status"] == "found"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["5x0"], "between 1 and 15"),
        (["axb"], "size must look like"),
        (["5x"], "size must look like"),
        (["0x3"], "between 1 and 15"),
        (["16x3"], "between 1 and 15"),
        (["5x6", "--top", "0"], "--top: must be at least 1"),
        (["5x6", "--dict", "/no/such/file.txt"], "not found"),
        (["3x3", "--pattern", "ab./..."], "pattern must be 3 rows of 3"),
        (["3x3", "--pattern", "a1./.../..."], "only letters"),
        (["4x5", "--symmetric"], "square"),
        (["3x3", "--limit", "0"], "--limit: must be at least 1"),
        (["3x3", "--encoding", "sat"], "invalid choice"),
        (["3x3", "--all", "--count"], "not allowed with"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle):
    proc = run_cli("rect", *args)
    assert proc.returncode == 2, proc
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0], proc.stderr


def test_empty_and_unreadable_dictionaries(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    for path, needle in [(empty, "holds no a-z words"), (tmp_path, "is a directory")]:
        proc = run_cli("rect", "3x3", "--dict", str(path))
        assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr


def test_ctrl_c_keeps_solutions_and_exits_130():
    proc = subprocess.Popen(
        [sys.executable, "-m", "cpmodel", "rect", "5x6", "--solver", "backtrack", "--all", "--json"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    wait_for_handlers(proc)
    time.sleep(1.5)  # searching: the whole 5x6 enumeration takes minutes
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["complete"] is False and doc["stopped_by"] == "interrupt"
    assert doc["status"] in ("found", "unknown") and doc["count"] == len(doc["solutions"])


def test_heuristics_never_import_ortools():
    code = "import sys, heuristics.rectangle; sys.exit('ortools' in ' '.join(sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_log_goes_to_stderr_and_json_stays_clean(tiny_dict):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--solver", "cpsat", "--log", "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["status"] == "found"
    assert "CP-SAT" in proc.stderr


def test_words_json(word_file):
    path = word_file(["tea", "eat", "ate", "teas", "seat", "tease", "zoo"])
    doc, proc = run_json("words", "teas", "--dict", path)
    assert proc.returncode == 0 and doc["status"] == "found"
    assert [w["word"] for w in doc["words"]] == ["seat", "teas", "ate", "eat", "tea"]
    doc, _ = run_json("words", "te?s", "--dict", path)
    blanks = {w["word"]: w["blanks"] for w in doc["words"]}
    assert blanks["seat"] == [2] and blanks["teas"] == [2]


def test_grid_json_keys_and_scores(word_file):
    path = word_file(["cat", "act", "tack", "cats"])
    doc, proc = run_json("grid", "cat/kxs/xxx", "--dict", path)
    assert proc.returncode == 0
    assert {"words", "total"} <= doc.keys()
    by_word = {w["word"]: w for w in doc["words"]}
    assert set(by_word) == {"cat", "tack", "cats"}  # "act" needs c next to t
    assert by_word["tack"]["path"] == [[0, 2], [0, 1], [0, 0], [1, 0]]
    assert doc["total"] == sum(w["score"] for w in doc["words"]) == 3


def test_grid_board_lists_words_without_loading_the_compiled_kernel(word_file):
    """One board is walked in Python over the sorted list: numba's import and its
    cached code cost a second, longer than the whole command may take."""
    path = word_file(["cat", "act", "tack", "cats"])
    code = ("import json, sys\nfrom cpmodel.commands.cli import main\n"
            f"assert main(['grid', 'cat/kxs/xxx', '--dict', {path!r}, '--json']) == 0\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'numpy', 'ortools'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    document, loaded = proc.stdout.strip().splitlines()
    assert json.loads(document)["total"] == 3 and json.loads(loaded) == [], proc.stderr


@pytest.mark.parametrize("args,needle", [
    (["words", "ab1"], "letters a-z or '?'"),
    (["words", "abc", "--min", "0"], "--min: must be at least 1"),
    (["grid", "abc"], "needs 16 tiles"),
    (["grid", "abc/de"], "same number of tiles"),
    (["grid", "a+7bcdefghijklmnop"], "unknown multiplier"),
    (["grid", "[qabcdefghijklmnop"], "unbalanced '['"),
    (["grid"], "exactly one of"),
    (["grid", "--best", "4x4", "--time-limit", "0"], "--time-limit: must be a finite number of seconds above 0"),
])
def test_finder_bad_input_is_one_line_exit_2(args, needle):
    proc = run_cli(*args)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and needle in lines[0] and "Traceback" not in proc.stderr, proc.stderr


def test_grid_best_is_seeded_and_says_it_is_not_proven(word_file):
    path = word_file(["tea", "eat", "ate", "teas", "seat", "east", "sat", "set", "net", "ten", "tens", "nest"])
    doc, proc = run_json("grid", "--best", "3x3", "--seed", "2", "--time-limit", "4", "--dict", path)
    assert proc.returncode == 0 and doc["optimal"] is False and doc["stopped_by"] == "time-limit"
    assert doc["total"] > 0 and doc["evaluations"] > 0
