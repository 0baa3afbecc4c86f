"""Usability: help, suggestions, word lists, showing what was asked, 80 columns, the knobs."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter

import pytest

from cpmodel.core.lexicon import Lexicon, load_default, load_file
from tests.conftest import ROOT, TINY_WORDS, run_cli, run_json


def _walk(parser: argparse.ArgumentParser, path=()):
    """(command path, parser) for the parser and every subcommand below it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, path + (name,))


def test_every_option_of_every_subcommand_has_help_with_its_default():
    from cpmodel.commands.cli import build_parser

    parser = build_parser()
    checked = 0
    for path, sub in _walk(parser):
        formatter = sub._get_formatter()
        for action in sub._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            name = " ".join(path) + " " + "/".join(action.option_strings or [action.dest])
            assert action.help and action.help.strip(), f"{name} has no help"
            shown = formatter._expand_help(action) if action.help else ""
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
                assert str(action.default) in shown, f"{name}: help does not show its default {action.default!r}"
            checked += 1
    assert checked > 80  # every command was walked


def test_version_and_usage_name():
    proc = run_cli("--version")
    assert proc.returncode == 0 and re.fullmatch(r"cpmodel \d+\.\d+\.\d+\S*\n", proc.stdout)
    script = ("import sys; sys.argv[0] = '/usr/local/bin/cpmodel'; from cpmodel.commands.cli import main; "
              "sys.exit(main(['rect', '--help']))")
    usage = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT).stdout
    assert usage.startswith("usage: cpmodel rect ")
    assert run_cli("rect", "--help").stdout.startswith("usage: python -m cpmodel rect ")


@pytest.mark.parametrize("args, needles", [
    (["rec", "3x3"], ["unknown command 'rec'", "did you mean rect?"]),
    (["rect", "3x3", "--cout"], ["--cout", "did you mean --count?"]),
    (["rect", "3x3", "--solve", "backtrack"], ["--solve", "did you mean --solver?"]),  # no abbreviations
    (["rect", "3x3", "--solver", "cpst"], ["--solver", "did you mean cpsat?"]),
    (["explain", "rectangle", "3x3"], ["unknown command 'rectangle'", "did you mean rect?"]),
    (["rect", "3x3", "--param", "presolve=false"], ["no parameter 'presolve'"]),
    (["rect", "3x3", "--param", "num_workers=many"], ["--param num_workers=many", "bad value"]),
    (["rect", "3x3", "--param", "num_workers=-2"], ["num_workers"]),
    (["rect", "3x3", "--param", "num_workers"], ["key=value"]),
])
def test_mistakes_get_one_line_with_the_help_names(args, needles):
    proc = run_cli(*args)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "argument puzzle" not in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture
def tiny_dict(word_file):
    return word_file(TINY_WORDS)


def test_option_the_engine_ignores_gets_a_warning(tiny_dict):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--solver", "backtrack", "--encoding", "onehot")
    assert proc.returncode == 0
    assert "warning: --encoding applies to --solver cpsat only" in proc.stderr
    quiet = run_cli("rect", "3x3", "--dict", tiny_dict, "--solver", "both", "--encoding", "onehot")
    assert "warning" not in quiet.stderr


# -- word lists --------------------------------------------------------------------


def test_lexicon_from_a_users_list_is_normalised_for_both_engines():
    from cpmodel.core.control import Request
    from cpmodel.core.specs import rectangle_spec

    messy = Lexicon([w.upper() if k % 2 else f" {w.title()} " for k, w in enumerate(TINY_WORDS)] + ["x-ray", ""])
    clean = Lexicon(list(dict.fromkeys(TINY_WORDS)))
    assert messy.words == clean.words and messy.skipped == 1
    from cpmodel.models import rectangle as cp
    from heuristics import rectangle as bt

    every = Request(limit=None)
    spec = rectangle_spec(3, 3, messy)
    assert set(bt.solve(spec, every).solutions) == set(cp.solve(spec, every).solutions) != set()


def test_a_hand_with_spaces_is_parsed_as_on_the_command_line():
    from cpmodel.core.specs import banana_spec, parse_hand

    lexicon = Lexicon("ate eat tea at ta")
    assert banana_spec("t a, e", lexicon) == banana_spec(parse_hand("tae"), lexicon)
    assert banana_spec("t a, e", lexicon).hand == "aet"


def test_counted_list_is_ranked_by_its_counts_not_its_line_order(tmp_path):
    path = tmp_path / "counts.tsv"
    path.write_text("bat\t3\ntab 500\nstab\t12\nBAT 2\nbats  40\ncab 12\nx-ray 9\n")
    lexicon = load_file(path)
    assert lexicon.words == ("tab", "bats", "stab", "cab", "bat")  # counts 500, 40, 12, 12 (line order), 3+2
    assert lexicon.skipped == 1
    proc = run_cli("lexicon", "--dict", str(path), "--length", "3")
    assert proc.stdout.split() == ["tab", "cab", "bat"]
    doc, _ = run_json("words", "stabc", "--dict", str(path), "--sort", "common")
    assert [w["word"] for w in doc["words"]] == ["tab", "bats", "stab", "cab", "bat"]


def test_plain_list_keeps_line_order(word_file):
    assert load_file(word_file(["zebra", "apple", "Mango"])).words == ("zebra", "apple", "mango")


def test_words_top_follows_wordfreq_order():
    """--top N keeps each length's N most frequent words (by wordfreq, computed
    here independently of cpmodel.core.lexicon) and --sort common lists them in that order."""
    from importlib import resources

    from wordfreq import get_frequency_dict

    frequency = get_frequency_dict("en", wordlist="best")
    words = {w.strip().lower() for w in resources.files("kjxqz").joinpath("words.txt").read_text().splitlines()}
    words = {w for w in words if re.fullmatch(r"[a-z]+", w)}
    top, rack = 400, Counter("retains")
    expected = []
    for length in range(3, 8):
        ranked = sorted((w for w in words if len(w) == length), key=lambda w: (-frequency.get(w, 0.0), w))[:top]
        expected += [w for w in ranked if not Counter(w) - rack]
    expected.sort(key=lambda w: -frequency.get(w, 0.0))
    doc, _ = run_json("words", "retains", "--top", str(top), "--sort", "common")
    got = [w["word"] for w in doc["words"]]
    assert sorted(got) == sorted(expected) and len(got) > 10
    assert [frequency.get(w, 0.0) for w in got] == sorted((frequency.get(w, 0.0) for w in got), reverse=True)


def test_lexicon_command_writes_one_length_most_common_first():
    proc = run_cli("lexicon", "--length", "6", "--top", "50")
    assert proc.returncode == 0 and proc.stdout.split() == load_default().of_length(6, 50)


def test_top_keeps_only_common_words_for_banana_and_grid(word_file):
    path = word_file(["ba", "ab", "abc", "fed", "be"])
    banana, _ = run_json("banana", "ab", "--dict", path, "--top", "1")
    assert banana["grid"] in (["ba"], ["b", "a"])  # "ab" is cut: only the most common 2-letter word is left
    full, _ = run_json("grid", "abc/def/ghi", "--dict", path)
    cut, _ = run_json("grid", "abc/def/ghi", "--dict", path, "--top", "1")
    assert {w["word"] for w in full["words"]} == {"abc", "fed"} and [w["word"] for w in cut["words"]] == ["abc"]


# -- showing what was asked ----------------------------------------------------------


def test_banana_draw_shows_the_hand_and_qqq_points_to_cpsat():
    proc = run_cli("banana", "--draw", "7", "--seed", "3")
    from cpmodel.core.specs import draw_hand

    assert f"drew 7 tiles (seed 3): {draw_hand(7, 3).upper()}" in proc.stdout
    stuck = run_cli("banana", "qqq", "--solver", "backtrack")
    assert stuck.returncode == 0 and "unknown" in stuck.stdout and "--solver cpsat can" in stuck.stdout
    proven = run_cli("banana", "qqq")  # auto: CP-SAT proves what the backtracker cannot
    assert proven.returncode == 0 and "none: no layout exists" in proven.stdout and "answered by cpsat" in proven.stdout


def test_both_solvers_each_show_their_answer(tiny_dict):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--solver", "both", env_extra={"COLUMNS": "80"})
    assert "backtrack #1" in proc.stdout and "cpsat #1" in proc.stdout
    _fits(proc.stdout)


WORDSCAPES_WORDS = "rest site tie res sir eat tea ate set sit its tis".split()


def _fill_objective(rows, slots, rank):
    words = ["".join(rows[r][c] for r, c in slot) for slot in slots]
    values = [rank[w] for w in words]
    return max(values), sum(values)


def test_wordscapes_best_is_the_brute_force_optimum_in_both_engines(tmp_path):
    import cpmodel
    from cpmodel.core.boards import parse_crossword

    board = "....\n.##.\n....\n"
    lexicon = cpmodel.load_lexicon(WORDSCAPES_WORDS)
    every = cpmodel.solve_wordscapes(board, "retains", lexicon, engine="backtrack", limit=None)
    slots = list(parse_crossword(board).slots())
    rank = {w: lexicon.of_length(len(w)).index(w) for w in lexicon.words}
    optimum = min(_fill_objective(rows, slots, rank) for rows in every.solutions)
    for engine in ("backtrack", "cpsat"):
        best = cpmodel.solve_wordscapes(board, "retains", lexicon, engine=engine, best=True)
        assert best.complete and best.objective == optimum == _fill_objective(best.solutions[0], slots, rank)
    path = tmp_path / "ring.txt"
    path.write_text(board)
    words = tmp_path / "w.txt"
    words.write_text("\n".join(WORDSCAPES_WORDS))
    proc = run_cli("wordscapes", str(path), "retains", "--dict", str(words), "--best", "--solver", "both")
    assert proc.returncode == 0 and "same optimum" in proc.stdout and "across:" in proc.stdout


# -- the modeller's knobs -------------------------------------------------------------


def test_param_reaches_cpsat(tiny_dict):
    proc = run_cli("rect", "3x3", "--dict", tiny_dict, "--solver", "cpsat", "--log", "--param", "random_seed=4321",
                   "--param", "cp_model_presolve=true")
    assert proc.returncode == 0 and "random_seed: 4321" in proc.stderr


def test_explain_export_writes_the_model_as_proto_text(tmp_path, tiny_dict):
    from ortools.sat.python import cp_model

    out = tmp_path / "model.pbtxt"
    doc, _ = run_json("explain", "rect", "3x3", "--dict", tiny_dict, "--export", str(out))
    model = cp_model.CpModel()
    assert model.proto.parse_text_format(out.read_text())
    assert len(model.proto.variables) == doc["variables"] > 0


def test_benchmarks_have_a_quick_mode():
    for name in ("rectangle", "rectangle_cpsat", "banana", "words", "grid"):
        source = (ROOT / "benchmarks" / f"{name}.py").read_text()
        assert '"--quick"' in source and "if args.quick:" in source, name


# -- 80 columns -------------------------------------------------------------------------


def _fits(text: str, width: int = 80) -> None:
    for line in text.splitlines():
        assert len(line) <= width, f"{len(line)} columns: {line!r}"
    assert "…" not in text, "a cell was cut"


def test_compare_fits_80_columns_piped():
    proc = run_cli("compare", "--quick", "--time-limit", "20", env_extra={"COLUMNS": "80"}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    _fits(proc.stdout)
    assert "undecided" not in proc.stdout  # the quick cases are small enough for every engine to settle
    for case in ("3x3 --top 100 --all", "7 tiles, seed 0", "cross board, stone --count"):
        assert case in proc.stdout.replace("\n", " ") or all(part in proc.stdout for part in case.split())


def test_explain_fits_80_columns_with_whole_code_pointers(tiny_dict):
    proc = run_cli("explain", "rect", "3x3", "--dict", tiny_dict, "--distinct", env_extra={"COLUMNS": "80"})
    assert proc.returncode == 0
    _fits(proc.stdout)
    pointers = re.findall(r"added by (cpmodel/models/\w+\.py:\d+ \(\w+\))", proc.stdout)
    assert len(pointers) == 3


def test_numbers_never_wrap_away_from_their_units():
    from rich.console import Console

    from cpmodel.core.result import SolveResult
    from cpmodel.show.render import summary

    result = SolveResult("backtrack", "unknown", False, 0, seconds=15.61, stopped_by="time-limit",
                         stats={"nodes": 123456789})
    for width in range(30, 90):
        console = Console(width=width, record=True, color_system=None)
        console.print(summary(result, "rectangle"))
        text = console.export_text()
        _fits(text, width)
        assert "15.61 s" in text and "123,456,789 nodes" in text, text


def test_a_cut_run_gives_a_ratio_bound():
    from cpmodel.core.result import SolveResult
    from cpmodel.show.render import speed_ratio

    fast = SolveResult("backtrack", "found", True, 1, seconds=1.0)
    slow_cut = SolveResult("cpsat", "unknown", False, 0, seconds=15.4, stopped_by="time-limit")
    slow_done = SolveResult("cpsat", "found", True, 1, seconds=15.4)
    assert speed_ratio(slow_cut, fast) == "> 15×"
    assert speed_ratio(slow_done, fast) == "15.4×"
    assert speed_ratio(fast, slow_cut) == "?"
