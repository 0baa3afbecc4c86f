"""The Python API validates like the CLI (issue 23): every public function, given one bad
argument among good ones, raises cpmodel.InputError with the CLI's words, never another
exception and never a result (hypothesis picks the argument and the bad value)."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cpmodel
from cpmodel.core.control import Request
from cpmodel.core.jobs import Job
from cpmodel.core.specs import rectangle_spec

WORDS = cpmodel.load_lexicon("bit ice ten bat ate tea eat net tin nit at ta")
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- bad values by kind ------------------------------------------------------------------------

NOT_INT = st.one_of(st.floats(allow_nan=True), st.text(max_size=5), st.booleans(), st.binary(max_size=3),
                    st.lists(st.integers(), max_size=2), st.just(2.0), st.just("3"))


def bad_count(least: int = 1, optional: bool = True):
    """Not a whole number >= least (None is fine where ``optional``)."""
    wrong = st.one_of(st.integers(max_value=least - 1), NOT_INT)
    return wrong if optional else st.one_of(wrong, st.none())


BAD_SECONDS = st.one_of(st.floats(max_value=0), st.sampled_from([math.nan, math.inf, -math.inf]),
                        st.integers(max_value=0), st.text(max_size=5), st.booleans(), st.binary(max_size=3))
NOT_TEXT = st.one_of(st.none(), st.integers(), st.binary(max_size=5), st.lists(st.text(max_size=3), max_size=2),
                     st.floats())
NOT_BOOL = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.floats())
NOT_LEXICON = st.one_of(st.text(max_size=8), st.lists(st.text(max_size=3), max_size=3), st.integers(), st.binary())


def bad_choice(choices):
    return st.one_of(st.text(max_size=8).filter(lambda s: s not in choices), st.integers(), st.binary(max_size=3),
                     st.lists(st.sampled_from(sorted(choices)), min_size=1, max_size=1))


BAD_PARAMS = st.one_of(st.text(min_size=1, max_size=20), st.integers(), st.binary(min_size=1),
                       st.lists(st.integers(), min_size=1, max_size=2),
                       st.lists(st.sampled_from(["num_wrkers=1", "num_workers", "=3", "num_workers=x",
                                                 "num_workers=-1", "max_time_in_seconds=abc"]), min_size=1, max_size=2))
UNKNOWN_KEYWORD = st.from_regex(r"[a-z_]{1,12}", fullmatch=True)
BAD_SIZE = st.one_of(NOT_TEXT, st.sampled_from(["0x3", "3x0", "16x2", "3x", "x3", "", "3 by 3", "-3x3", "3x3x3"]),
                     st.text(max_size=6).filter(lambda s: not re.fullmatch(r"\s*\d+\s*[x×X*]\s*\d+\s*", s)))
BAD_RACK = st.one_of(NOT_TEXT, st.text(max_size=6).filter(lambda s: not re.fullmatch(r"[a-zA-Z?]+", s.strip())))
BAD_BOARD = st.one_of(NOT_TEXT, st.sampled_from(["", "ab/c", "a+9bc/defg", "[ab", "a*2*3bc/def", "a+2+3bc/def", "ab*2+3*3/def", "a1cd/efgh"]))
BAD_HAND = st.one_of(NOT_TEXT, st.sampled_from(["", " , ", "ab1", "a-b", "\u212aat"]))

# -- each function: its good arguments, and a bad value per argument ---------------------------

RECT_GOOD = dict(size="2x2", lexicon=WORDS, engine="backtrack")
RECT_BAD = {
    "size": BAD_SIZE, "lexicon": NOT_LEXICON, "engine": bad_choice({"cpsat", "cp", "backtrack", "auto"}),
    "limit": bad_count(), "count": NOT_BOOL, "best": NOT_BOOL, "top": bad_count(), "distinct": NOT_BOOL,
    "symmetric": NOT_BOOL, "time_limit": BAD_SECONDS, "pattern": st.one_of(st.integers(), st.sampled_from(["a/b", "....."])),
    "encoding": bad_choice({"table", "onehot", "automaton"}), "orientation": bad_choice({"auto", "rows", "cols"}),
    "order": bad_choice({"letters", "rank"}), "log": st.one_of(st.integers(), st.text(max_size=3)), "params": BAD_PARAMS,
}
BANANA_GOOD = dict(hand="ate", lexicon=WORDS, engine="backtrack", time_limit=5)
BANANA_BAD = {"hand": BAD_HAND, "lexicon": NOT_LEXICON, "engine": bad_choice({"backtrack", "cpsat", "auto"}),
              "time_limit": BAD_SECONDS, "top": bad_count(), "mode": bad_choice({"free", "crossing"}),
              "encoding": bad_choice({"automaton", "table"}), "params": BAD_PARAMS}
SCAPES_GOOD = dict(board="...", letters="ate", lexicon=WORDS, engine="backtrack")
SCAPES_BAD = {"board": st.one_of(NOT_TEXT, st.sampled_from(["", "###", "a%c"])),
              "letters": st.one_of(NOT_TEXT, st.sampled_from(["", "a1", "a-b", "\u212a"])),
              "lexicon": NOT_LEXICON, "engine": bad_choice({"backtrack", "cpsat", "cp", "auto"}), "limit": bad_count(),
              "count": NOT_BOOL, "best": NOT_BOOL, "min_len": bad_count(optional=False), "top": bad_count(),
              "time_limit": BAD_SECONDS, "params": BAD_PARAMS}
WORDS_GOOD = dict(letters="tien", lexicon=WORDS)
WORDS_BAD = {"letters": BAD_RACK, "lexicon": NOT_LEXICON, "min_len": bad_count(optional=False),
             "max_len": bad_count(), "top": bad_count(), "by": bad_choice({"length", "common"})}
GRID_GOOD = dict(board="abc/def/ghi", lexicon=WORDS)
GRID_BAD = {"board": BAD_BOARD, "lexicon": NOT_LEXICON, "score": bad_choice({"boggle", "scramble"}),
            "min_len": bad_count(optional=False), "max_len": bad_count(), "top": bad_count()}

FUNCTIONS = {
    "solve_rect": (cpmodel.solve_rect, RECT_GOOD, RECT_BAD),
    "solve_banana": (cpmodel.solve_banana, BANANA_GOOD, BANANA_BAD),
    "solve_wordscapes": (cpmodel.solve_wordscapes, SCAPES_GOOD, SCAPES_BAD),
    "find_words": (cpmodel.find_words, WORDS_GOOD, WORDS_BAD),
    "grid_words": (cpmodel.grid_words, GRID_GOOD, GRID_BAD),
}


def refuses(function, kwargs: dict) -> None:
    """InputError, and nothing else: no other exception, no result."""
    try:
        result = function(**kwargs)
    except cpmodel.InputError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    raise AssertionError(f"{function.__name__}({kwargs!r}) returned {result!r} instead of raising InputError")


@pytest.mark.parametrize("name", FUNCTIONS)
def test_good_arguments_answer(name):
    """The fuzz's base case is sound: the good arguments alone give a result."""
    function, good, _ = FUNCTIONS[name]
    assert function(**good) is not None


@pytest.mark.parametrize("name", FUNCTIONS)
@FUZZ
@given(data=st.data())
def test_one_bad_argument_raises_input_error(name, data):
    function, good, bad = FUNCTIONS[name]
    argument = data.draw(st.sampled_from(sorted(bad)), label="argument")
    value = data.draw(bad[argument], label="value")
    refuses(function, {**good, argument: value})


@pytest.mark.parametrize("name", ["solve_rect", "solve_banana", "solve_wordscapes", "find_words", "grid_words"])
@FUZZ
@given(keyword=UNKNOWN_KEYWORD, value=st.integers())
def test_unknown_keywords_raise_input_error(name, keyword, value):
    function, good, bad = FUNCTIONS[name]
    if keyword in bad or keyword in good:
        return
    try:
        function(**good, **{keyword: value})
    except cpmodel.InputError:
        return
    except TypeError as exc:  # a function without **options: Python's own refusal of the keyword
        assert "unexpected keyword argument" in str(exc) and name in ("find_words", "grid_words")
        return
    raise AssertionError(f"{name} accepted {keyword}={value!r}")


@FUZZ
@given(puzzle=bad_choice({"rect", "wordscapes", "banana"}))
def test_engine_names_refuses_unknown_puzzles(puzzle):
    refuses(cpmodel.engine_names, {"puzzle": puzzle})


@FUZZ
@given(words=st.one_of(st.binary(min_size=1), st.integers(), st.lists(st.one_of(st.integers(), st.binary()),
                                                                        min_size=1, max_size=3)),
       top=st.one_of(st.none(), st.integers(min_value=1, max_value=3)))
def test_load_lexicon_refuses_what_is_not_words(words, top):
    refuses(cpmodel.load_lexicon, {"words": words, "top": top})


@FUZZ
@given(path=st.one_of(st.integers(), st.binary(), st.just(""), st.sampled_from(["/dev/zero", "/nonexistent/x", "/tmp"])))
def test_load_lexicon_refuses_bad_paths(path):
    refuses(cpmodel.load_lexicon, {"path": path})


def test_load_lexicon_top_is_checked():
    refuses(cpmodel.load_lexicon, {"words": "bit", "top": 0})
    refuses(cpmodel.load_lexicon, {"words": "bit", "path": "x"})


JOB_SPEC = rectangle_spec(2, 2, WORDS)


@FUZZ
@given(field=st.sampled_from(["job", "puzzle", "spec", "engine", "request", "time_limit", "options", "on_solution"]),
       data=st.data())
def test_run_refuses_a_bad_job(field, data):
    job = Job("rect", JOB_SPEC, "backtrack", Request(limit=1))
    on_solution = None
    if field == "job":
        job = data.draw(st.one_of(st.none(), st.text(max_size=3), st.integers()))
    elif field == "puzzle":
        job = Job(data.draw(bad_choice({"rect", "wordscapes", "banana"})), JOB_SPEC, "backtrack")
    elif field == "spec":
        job = Job("rect", data.draw(st.one_of(st.none(), st.text(max_size=3), st.integers())), "backtrack")
    elif field == "engine":
        job = Job("rect", JOB_SPEC, data.draw(bad_choice({"cpsat", "cp", "backtrack", "auto"})))
    elif field == "request":
        limit = data.draw(st.one_of(st.integers(max_value=0), st.floats()))
        job = Job("rect", JOB_SPEC, "backtrack", data.draw(st.one_of(st.just(Request(limit=limit)), st.text(max_size=2))))
    elif field == "time_limit":
        job = Job("rect", JOB_SPEC, "backtrack", Request(limit=1), data.draw(BAD_SECONDS))
    elif field == "options":
        job = Job("rect", JOB_SPEC, "backtrack", Request(limit=1), None,
                  data.draw(st.one_of(st.just({"orientation": "diag"}), st.just({"bogus": 1}), st.just({"params": "x"}),
                                      st.text(max_size=2), st.integers())))
    else:
        on_solution = data.draw(st.one_of(st.integers(), st.text(min_size=1, max_size=2)))
    refuses(cpmodel.run, {"job": job, "on_solution": on_solution})


@pytest.mark.parametrize("call, message", [
    (lambda: cpmodel.solve_rect("2x2", WORDS, limit=-1), "limit must be at least 1, got -1"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, limit=1.5), "limit must be a whole number, got 1.5"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, limit=0, engine="cpsat"), "limit must be at least 1, got 0"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, time_limit=math.nan), "time_limit must be a finite number of seconds above 0"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, params="num_workers: 1"), "params must be a list"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, params=["num_wrkers=1"]), "CP-SAT has no parameter 'num_wrkers'"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, orientation="diag"), "orientation must be one of auto, rows, cols"),
    (lambda: cpmodel.solve_banana("ate", WORDS, mode="bogus"), "mode must be one of free, crossing"),
    (lambda: cpmodel.grid_words("abc/def", WORDS, score="bogus"), "score must be one of boggle, scramble"),
    (lambda: cpmodel.find_words("tien", WORDS, by="bogus"), "by must be one of length, common"),
    (lambda: cpmodel.find_words("ti-en", WORDS), "LETTERS must be letters a-z or '?' for a blank"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, top=-1), "top must be at least 1, got -1"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, bogus=1), "unknown option bogus=1 for rect"),
    (lambda: cpmodel.engine_names("bogus"), "puzzle must be one of rect, wordscapes, banana"),
    (lambda: cpmodel.load_lexicon(b"bit"), "a word list is a str of words or a list of str, got bytes"),
    (lambda: cpmodel.solve_rect(None), "size must be a str, got NoneType"),
    (lambda: cpmodel.grid_words("a*2*3bc/def", WORDS), "a tile takes one * multiplier"),
    (lambda: cpmodel.grid_words("a+2+2bc/def", WORDS), "a tile takes one + multiplier"),
    (lambda: cpmodel.grid_words("[\u212a]bc/def", WORDS), "must hold letters only"),
    (lambda: cpmodel.find_words("\u212aat", WORDS), "LETTERS must be letters a-z"),
    (lambda: cpmodel.solve_banana("\u212aat", WORDS), "the hand may hold only letters"),
    (lambda: cpmodel.solve_wordscapes("...", "\u212aat", WORDS), "LETTERS must be letters a-z only"),
    (lambda: cpmodel.solve_rect("2x2", WORDS, pattern="\u212a..."), "pattern may hold only letters"),
])
def test_the_issue_cases(call, message):
    """Each case the issue found, with the message the CLI gives for the same mistake."""
    with pytest.raises(cpmodel.InputError, match=re.escape(message)):
        call()


def test_the_cli_says_the_same(tmp_path):
    """The API's message bodies are the CLI's (one check, two callers)."""
    from tests.conftest import run_cli

    for args, body in [(("rect", "2x2", "--limit", "0"), "must be at least 1, got 0"),
                       (("rect", "2x2", "--time-limit", "nan"), "must be a finite number of seconds above 0, got nan"),
                       (("words", "ti-en"), "LETTERS must be letters a-z or '?' for a blank, got 'ti-en'"),
                       (("rect", "2x2", "--solver", "cpsat", "--param", "num_wrkers=1"), "CP-SAT has no parameter 'num_wrkers'")]:
        proc = run_cli(*args, timeout=60)
        assert proc.returncode == 2 and body in proc.stderr, proc.stderr


def test_the_kelvin_sign_is_not_read_as_k(tmp_path):
    """str.lower() turns K (U+212A) into an ASCII k: a word list and a score table must not."""
    from cpmodel.core.scoring import score_table

    assert cpmodel.load_lexicon(["\u212aat", "cat"]).words == ("cat",)
    words = tmp_path / "words.txt"
    words.write_text("\u212aat 5\ncat 3\nbat 2\n")
    assert cpmodel.load_lexicon(path=str(words)).words == ("cat", "bat")
    with pytest.raises(cpmodel.InputError, match="letter_values keys"):
        score_table("scramble", '{"letter_values": {"\u212a": 3}}')


@FUZZ
@given(top=bad_count())
def test_lexicon_top_refuses_bad_cuts(top):
    refuses(WORDS.top, {"n": top})


def test_a_checkpoint_in_a_missing_directory_is_one_line(tmp_path):
    from tests.conftest import run_cli

    proc = run_cli("rect", "3x3", "--top", "20", "--count", "--checkpoint", str(tmp_path / "no" / "ck"))
    assert proc.returncode == 2 and "its directory does not exist" in proc.stderr


@pytest.mark.parametrize("call", [
    lambda: __import__("cpmodel.core.specs", fromlist=["x"]).parse_size("\u0663x\u0663"),  # Arabic-Indic 3
    lambda: __import__("cpmodel.core.checks", fromlist=["x"]).whole_text("\u0663", 1),
    lambda: __import__("cpmodel.core.checks", fromlist=["x"]).seconds_text("\u0661.\u0665"),
    lambda: __import__("cpmodel.commands.auto", fromlist=["x"]).choose_engines("backtrac\u212a", "rect"),
])
def test_only_ascii_digits_and_letters_are_read(call):
    """int(), float(), \\d and str.lower() accept look-alikes the CLI must not."""
    with pytest.raises(cpmodel.InputError):
        call()
