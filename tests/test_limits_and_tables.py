"""Every numeric option and the --score-table file: bad values are one-line
errors (exit 2), never a hang, a traceback or a model CP-SAT rejects."""

from __future__ import annotations

import json

import pytest

from cpmodel.commands.cli import build_parser
from cpmodel.core.errors import InputError
from tests.conftest import TINY_WORDS, run_cli

# (command words before the option, the option, the smallest value it takes)
NUMERIC_OPTIONS = [
    (["rect", "3x3"], "--time-limit", None), (["rect", "3x3"], "--limit", 1), (["rect", "3x3"], "--top", 1),
    (["wordscapes", "b.txt", "abc"], "--time-limit", None), (["wordscapes", "b.txt", "abc"], "--limit", 1),
    (["wordscapes", "b.txt", "abc"], "--top", 1), (["wordscapes", "b.txt", "abc"], "--min", 1),
    (["banana", "abc"], "--time-limit", None), (["banana"], "--draw", 1),
    (["grid", "--random"], "--time-limit", None), (["grid", "--random"], "--show", 0),
    (["grid", "--random"], "--min", 1), (["grid", "--random"], "--max", 1),
    (["words", "abc"], "--min", 1), (["words", "abc"], "--max", 1),
    (["compare"], "--time-limit", None),
    (["explain", "rect", "3x3"], "--top", 1), (["explain", "wordscapes", "b.txt", "abc"], "--min", 1),
]
NOT_SECONDS = ["nan", "NaN", "inf", "-inf", "infinity", "0", "-0.0", "-1", "1e-400", "", "abc", "1e999"]
NOT_WHOLE = ["1.5", "nan", "inf", "", "abc", "1e3"]


@pytest.mark.parametrize("before,option,least", NUMERIC_OPTIONS, ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_numeric_options_reject_bad_values_in_argparse(before, option, least):
    parser = build_parser()
    bad = NOT_SECONDS if least is None else NOT_WHOLE + [str(least - 1), str(least - 5)]
    for value in bad:
        with pytest.raises(InputError, match=f"argument {option}: must be"):
            parser.parse_args(before + [f"{option}={value}"])
    good = "0.25" if least is None else str(least)
    args = parser.parse_args(before + [option, good])
    assert getattr(args, option[2:].replace("-", "_")) == (0.25 if least is None else least)


@pytest.mark.parametrize("args", [
    ["rect", "3x3", "--time-limit", "nan"],
    ["grid", "--best", "3x3", "--time-limit", "nan"],
    ["wordscapes", "board.txt", "abc", "--time-limit", "0"],
    ["wordscapes", "board.txt", "abc", "--time-limit", "-1"],
    ["banana", "abc", "--time-limit", "inf"],
    ["rect", "3x3", "--top", "-3"],
    ["grid", "--random", "--show", "-1"],
])
def test_bad_limits_exit_2_with_one_line(args):
    proc = run_cli(*args, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: argument --"), proc.stderr


def test_rect_1x1_best_and_distinct_are_proven_none():
    for mode in ("--best", "--distinct"):
        proc = run_cli("rect", "1x1", mode, "--json")
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["status"] == "none" and doc["complete"] is True and doc["count"] == 0


def test_lone_prefilled_cell_cli(tmp_path):
    board = tmp_path / "board.txt"
    board.write_text("a\n")
    proc = run_cli("wordscapes", str(board), "abc", "--all", "--solver", "both", "--json", "--dict", str(board))
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0 and doc["solutions"] == [["a"]] and doc["agreement"] == "identical solution sets"


# -- --score-table ----------------------------------------------------------------

BAD_TABLES = {
    "binary": b"\x89PNG\r\n\x1a\n\x00\xe0\xff\xfe",
    "not json": b"{length_points: 3}",
    "a list": b"[1, 2]",
    "huge float": b'{"length_points": {"3": 1e400}}',
    "nan": b'{"letter_values": {"a": NaN}}',
    "infinity": b'{"length_bonus": {"5": Infinity}}',
    "too many digits": b'{"length_points": {"3": ' + b"9" * 5000 + b"}}",
    "huge value": b'{"length_points": {"3": 1000000000000000000000}}',
    "huge length": b'{"length_points": {"99999999999999999999": 1}}',
    "fraction": b'{"length_points": {"3": 1.5}}',
    "boolean": b'{"length_points": {"3": true}}',
    "string value": b'{"letter_values": {"a": "3"}}',
    "negative": b'{"length_bonus": {"5": -2}}',
    "zero length": b'{"length_points": {"0": 1}}',
    "length not a number": b'{"length_points": {"three": 1}}',
    "not a tile": b'{"letter_values": {"\xc3\xa9": 3}}',
    "empty letter": b'{"letter_values": {"": 3}}',
    "nested list": b'{"length_points": [[3, 1]]}',
    "deep nesting": b"[" * 100000 + b"]" * 100000,
    "unknown key": b'{"points": {"3": 1}}',
}


@pytest.mark.parametrize("name", sorted(set(BAD_TABLES) - {"binary"}))  # binary: the CLI test below
def test_bad_score_table_is_refused_in_one_line(name):
    from cpmodel.core.scoring import score_table

    text = BAD_TABLES[name].decode("utf-8")
    with pytest.raises(InputError, match="^score table t") as caught:
        score_table("scramble", text, source="score table t")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["binary", "too many digits", "deep nesting", "huge float"])
def test_bad_score_table_cli_exit_2(tmp_path, word_file, name):
    table = tmp_path / "table.json"
    table.write_bytes(BAD_TABLES[name])
    proc = run_cli("grid", "cat/kxs/xxx", "--score", "scramble", "--score-table", str(table), "--dict", word_file(TINY_WORDS))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "score table" in lines[0] and "Traceback" not in proc.stderr, proc.stderr


def test_good_score_table_changes_only_what_it_names():
    from cpmodel.core.scoring import score_table

    table = score_table("scramble", '{"letter_values": {"Q": 8, "qu": 9}, "length_bonus": {"5": 2}, "length_points": {}}')
    assert table.letter_values["q"] == 8 and table.letter_values["qu"] == 9 and table.length_bonus[5] == 2
    assert table.letter_values["a"] == 1  # keys left out keep their defaults
