"""A checkpoint is data to verify, never to trust (issue 23): foreign files are refused
untouched, edits and damage are caught with their line number, a second run is locked out,
a torn last line is dropped and its shard re-run."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys

import pytest

from cpmodel.run.checkpoint import record_sum
from tests.conftest import ROOT, run_cli

# 3x3 from the 60 most common words of each length: 28 rectangles, ~170 shards, a second per run
ARGS = ("rect", "3x3", "--top", "60", "--all", "--json", "--jobs", "1", "--solver", "backtrack")
COUNT = 28


def run(path, *extra: str) -> subprocess.CompletedProcess:
    return run_cli(*ARGS, *extra, "--checkpoint", str(path), timeout=60)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A finished checkpoint's lines (header first) and the run's answer."""
    path = tmp_path_factory.mktemp("ck") / "run.ckpt"
    proc = run(path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["count"] == COUNT and doc["complete"]
    return path.read_text().splitlines(), doc


def write(path, lines: list[str], newline: bool = True) -> bytes:
    data = ("\n".join(lines) + ("\n" if newline else "")).encode()
    path.write_bytes(data)
    return data


def one_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("error:") == 1
    assert all(n in proc.stderr for n in needles), proc.stderr


def key_of(lines: list[str]) -> str:
    return json.loads(lines[0])["key"]


def resign(key: str, record: dict) -> str:
    """A record as a careful forger would write it: with a fresh checksum."""
    record = {k: v for k, v in record.items() if k != "sum"}
    return json.dumps({**record, "sum": record_sum(key, record)}, separators=(",", ":"))


def solved_record(lines: list[str]) -> tuple[int, dict]:
    index = next(i for i, line in enumerate(lines) if i and json.loads(line)["count"] > 0)
    return index, json.loads(lines[index])


@pytest.mark.parametrize("text, newline", [("first note\nsecond note\nlast note", False),
                                           ("a line without an end", False),
                                           ("notes\n", True), ('{"checkpoint": 2}', False)])
def test_a_foreign_file_is_refused_untouched(tmp_path, text, newline):
    path = tmp_path / "notes.txt"
    before = write(path, [text], newline)
    one_error(run(path), "not a cpmodel checkpoint")
    assert path.read_bytes() == before


def test_another_plan_is_refused_untouched(tmp_path, recorded):
    lines, _ = recorded
    path = tmp_path / "ck"
    before = write(path, lines[:5] + [lines[5][:20]], newline=False)  # torn too: not cut either
    one_error(run(path, "--shards", "50"), "another puzzle, spec, mode or --shards")
    assert path.read_bytes() == before


def test_an_added_row_is_refused(tmp_path, recorded):
    lines, _ = recorded
    _, record = solved_record(lines)
    fake = {**record, "shard": json.loads(lines[1])["shard"], "solutions": [["zzz", "zzz", "zzz"]], "count": 1}
    path = tmp_path / "ck"
    write(path, lines[:1] + [json.dumps(fake)])  # the old checksum: edited
    one_error(run(path), "line 2", "checksum")
    write(path, lines[:1] + [resign(key_of(lines), fake)])  # a valid checksum: the validator still says no
    one_error(run(path), "line 2", "'zzz' is not an allowed word")


def test_a_raised_count_is_refused(tmp_path, recorded):
    lines, _ = recorded
    index, record = solved_record(lines)
    raised = {**record, "count": record["count"] + 1000}
    path = tmp_path / "ck"
    write(path, lines[:index] + [json.dumps(raised)] + lines[index + 1:])
    one_error(run(path), f"line {index + 1}", "checksum")
    write(path, lines[:index] + [resign(key_of(lines), raised)] + lines[index + 1:])
    one_error(run(path), f"line {index + 1}", "count differs from its solutions")


def test_a_solution_moved_to_another_shard_is_refused(tmp_path, recorded):
    """Valid rectangle, wrong shard: it would be counted twice."""
    lines, _ = recorded
    _, record = solved_record(lines)
    other = next(json.loads(line) for line in lines[1:] if json.loads(line)["count"] == 0)
    moved = {**other, "count": record["count"], "solutions": record["solutions"]}
    path = tmp_path / "ck"
    write(path, lines[:1] + [resign(key_of(lines), moved)])
    one_error(run(path), "line 2", "not among the words this job allows there")


@pytest.mark.parametrize("shard", [9999, -1, "3", 1.0, True])
def test_a_shard_outside_the_plan_is_refused(tmp_path, recorded, shard):
    lines, _ = recorded
    record = {**json.loads(lines[1]), "shard": shard}
    path = tmp_path / "ck"
    write(path, lines + [resign(key_of(lines), record)])
    one_error(run(path), f"line {len(lines) + 1}", "not in the plan")


def test_a_shard_recorded_twice_is_refused(tmp_path, recorded):
    lines, _ = recorded
    path = tmp_path / "ck"
    write(path, lines + [lines[1]])
    one_error(run(path), f"line {len(lines) + 1}", "recorded twice")


@pytest.mark.parametrize("damage", ["garbage", "", '{"checkpoint":2,"key":"x","shards":1}', "[1, 2]", "NaN",
                                    '{"shard": 0}'])
def test_damage_inside_is_an_error_with_its_line(tmp_path, recorded, damage):
    lines, _ = recorded
    path = tmp_path / "ck"
    before = write(path, lines[:3] + [damage] + lines[3:])
    one_error(run(path), "line 4")
    assert path.read_bytes() == before


def test_a_torn_last_line_is_dropped_and_its_shard_rerun(tmp_path, recorded):
    lines, doc = recorded
    path = tmp_path / "ck"
    kept = lines[:-3]
    write(path, kept + [lines[-3][:25]], newline=False)
    proc = run(path)
    assert proc.returncode == 0, proc.stderr
    resumed = json.loads(proc.stdout)
    assert resumed["count"] == COUNT and resumed["complete"] and resumed["shards"]["resumed"] == len(kept) - 1
    assert sorted(resumed["solutions"]) == sorted(doc["solutions"])
    after = path.read_text()
    assert after.endswith("\n") and after.count("\n") == len(lines)  # the torn line replaced, nothing lost


def test_a_torn_header_alone_is_rewritten(tmp_path, recorded):
    lines, _ = recorded
    path = tmp_path / "ck"
    write(path, [lines[0][:-3]], newline=False)
    proc = run(path)
    assert proc.returncode == 0 and json.loads(proc.stdout)["count"] == COUNT, proc.stderr


def test_an_old_format_is_refused_untouched(tmp_path, recorded):
    lines, _ = recorded
    path = tmp_path / "ck"
    old = json.dumps({"checkpoint": 1, "key": key_of(lines), "shards": len(lines) - 1})
    before = write(path, [old])
    one_error(run(path), "format 1")
    assert path.read_bytes() == before


@pytest.mark.parametrize("name", ["/dev/null", "", " ", "/dev/zero", "/dev/full", "/tmp"])
def test_special_paths_are_refused(name):
    one_error(run_cli(*ARGS, "--checkpoint", name, timeout=30))


def test_a_second_run_on_a_locked_file_is_refused(tmp_path, recorded):
    lines, _ = recorded
    path = tmp_path / "ck"
    before = write(path, lines[:4])
    with open(path, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        one_error(run(path), "in use by another run")
    assert path.read_bytes() == before
    assert run(path).returncode == 0  # once the lock is gone, the run resumes


def test_three_runs_at_once_leave_one_consistent_file(tmp_path):
    path = tmp_path / "new.ckpt"
    cmd = [sys.executable, "-m", "cpmodel", *ARGS, "--checkpoint", str(path)]
    procs = [subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outcomes = [(p.wait(timeout=60), *p.communicate()) for p in procs]
    assert any(code == 0 for code, _, _ in outcomes)
    for code, out, err in outcomes:
        assert code == 0 and json.loads(out)["count"] == COUNT or code == 2 and "in use by another run" in err
    text = path.read_text()
    assert text.count('"checkpoint"') == 1
    again = run(path)
    assert again.returncode == 0 and json.loads(again.stdout)["count"] == COUNT, again.stderr


@pytest.mark.parametrize("puzzle", ["rect", "wordscapes"])
@pytest.mark.parametrize("mode", ["--all", "--count", "--best"])
def test_every_mode_resumes_through_the_verifier(tmp_path, puzzle, mode):
    """What a run records, the verifier accepts: the resumed answer is the first one."""
    if puzzle == "rect":
        args = ["rect", "3x3", "--top", "80"]
    else:
        board, words = tmp_path / "board.txt", tmp_path / "words.txt"
        board.write_text("...\n.#.\n...")
        words.write_text("ten net tea eat ate eta tan ant nat tae neat ante etna anet sate seat east teas eats "
                         "set sea tee see ens sen tens nets ease tease setae".replace(" ", "\n"))
        args = ["wordscapes", str(board), "aentst", "--dict", str(words)]
    args += [mode, "--json", "--jobs", "1", "--solver", "backtrack", "--checkpoint", str(tmp_path / "ck")]
    first, again = run_cli(*args, timeout=60), run_cli(*args, timeout=60)
    assert first.returncode == again.returncode == 0, (first.stderr, again.stderr)
    one, two = json.loads(first.stdout), json.loads(again.stdout)
    assert two["shards"]["resumed"] == two["shards"]["total"] and one["count"] == two["count"] > 0
    assert sorted(one.get("solutions", [])) == sorted(two.get("solutions", [])) and one.get("objective") == two.get("objective")
