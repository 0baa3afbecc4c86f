"""What a person reads: a bounded number of pictures on a terminal, every solution
as a line in a file, the summary saying how many were shown, a closed pipe that
ends a sharded run at once, and one way of writing numbers."""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time

from rich.console import Console

from cpmodel.show.gallery import FIRST, Gallery
from tests.conftest import ROOT, run_cli

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SQUARES_300 = 6774  # 3x3 word squares of the 300 most common three-letter words (--count says so)


def run_on_terminal(*args: str, columns: int = 80, timeout: float = 120) -> tuple[int, str]:
    """The CLI with stdout and stderr on a pseudo-terminal, as a person sees it (escapes removed)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = dict(os.environ, COLUMNS=str(columns), PYTHONPATH=str(ROOT))
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", *args], stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, cwd=ROOT, env=env)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # EIO: every writer is gone
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = proc.wait(timeout=10)
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r", "")
    return code, text


def _boxes(text: str) -> list[str]:
    """The titles of the pictures drawn (╭─ #12 ─╮)."""
    return re.findall(r"╭─+ (.*?) ─+╮", text)


def _squares(n: int) -> list[tuple[str, ...]]:
    return [(f"a{k:04d}", f"b{k:04d}") for k in range(n)]


# -- the gallery itself -------------------------------------------------------------------

def test_a_terminal_gets_the_first_pictures_and_the_last():
    out, err = io.StringIO(), io.StringIO()
    gallery = Gallery(Console(file=out, force_terminal=True, width=80), "rectangle",
                      Console(file=err, force_terminal=True, width=80))
    squares = _squares(1000)
    gallery.add_batch(squares[:7])
    for rows in squares[7:]:
        gallery.add(rows)
    gallery.close()
    text = ANSI.sub("", out.getvalue())
    assert _boxes(text) == [f"#{k}" for k in range(1, FIRST + 1)] + ["#1,000"]
    assert "A 0 9 9 9" in text and "A 0 5 0 0" not in text  # the last one is drawn, the middle is not
    assert "979 more rectangles not drawn" in text
    assert gallery.found == 1000 and gallery.shown == FIRST + 1
    assert "more than 20 rectangles" in ANSI.sub("", err.getvalue()) and "--jsonl" in err.getvalue()


def test_a_file_gets_every_solution_past_the_pictures_as_one_line():
    out = io.StringIO()
    gallery = Gallery(Console(file=out, width=80), "rectangle")
    squares = _squares(100)
    gallery.add_batch(squares)
    gallery.close()
    text = out.getvalue()
    assert len(_boxes(text)) == FIRST
    lines = [line for line in text.splitlines() if "/" in line]
    assert lines == ["/".join(rows) for rows in squares[FIRST:]]
    assert gallery.shown == gallery.found == 100


def test_few_solutions_are_all_drawn_and_nothing_is_said():
    out, err = io.StringIO(), io.StringIO()
    gallery = Gallery(Console(file=out, force_terminal=True), "rectangle", Console(file=err))
    gallery.add_batch(_squares(FIRST))
    gallery.close()
    assert len(_boxes(ANSI.sub("", out.getvalue()))) == FIRST and not err.getvalue()
    assert gallery.shown == FIRST


# -- the command line ---------------------------------------------------------------------

ALL_SQUARES = ("rect", "3x3", "--top", "300", "--all")


def test_a_terminal_shows_21_of_many_in_every_path():
    """Unsharded engine, sharded run, and the auto race each draw the first 20 and the last."""
    for extra in (("--solver", "backtrack", "--jobs", "1"), ("--solver", "backtrack", "--jobs", "2", "--shards", "8"),
                  ("--jobs", "1")):
        code, text = run_on_terminal(*ALL_SQUARES, *extra)
        assert code == 0, text[-800:]
        titles = _boxes(text)
        assert titles[:FIRST] == [f"#{k}" for k in range(1, FIRST + 1)] and titles[FIRST:] == [f"#{SQUARES_300:,}"], extra
        assert f"{SQUARES_300:,} rectangles · {FIRST + 1} shown" in text.replace("\n· ", " · "), text[-600:]
        assert "more than 20 rectangles" in text and f"{SQUARES_300 - FIRST - 1:,} more rectangles not drawn" in text


def test_a_pipe_gets_every_solution_as_a_line_and_a_plain_summary():
    proc = run_cli(*ALL_SQUARES, "--solver", "backtrack", "--jobs", "2", "--shards", "8")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if re.fullmatch(r"[a-z]{3}/[a-z]{3}/[a-z]{3}", line)]
    assert len(_boxes(proc.stdout)) == FIRST and len(lines) == SQUARES_300 - FIRST
    assert len(set(lines)) == len(lines)
    assert f"{SQUARES_300:,} rectangles · search complete" in proc.stdout and "shown" not in proc.stdout


def test_a_cross_check_draws_a_bounded_number_and_compares_the_sets():
    code, text = run_on_terminal(*ALL_SQUARES, "--solver", "backtrack,cp")
    assert code == 0, text[-800:]
    assert len(_boxes(text)) <= 2 * (FIRST + 1)
    assert "identical solution sets" in text and f"{SQUARES_300:,}" in text


def test_a_signal_with_many_found_keeps_the_pictures_bounded():
    """SIGTERM after the first solutions: exit 143 soon, and the summary says how many of those found were shown."""
    import fcntl
    import pty
    import signal
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", "rect", "4x4", "--top", "1500", "--all", "--solver",
                             "backtrack", "--jobs", "1"], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            cwd=ROOT, env=dict(os.environ, COLUMNS="100", PYTHONPATH=str(ROOT)))
    os.close(slave)
    seen, sent = b"", None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 1 << 16)
            except OSError:
                break
            if not data:
                break
            seen += data
        if sent is None and b"more than 20 rectangles" in seen:
            time.sleep(1.0)
            proc.send_signal(signal.SIGTERM)
            sent = time.monotonic()
        if proc.poll() is not None and not ready:
            break
    os.close(master)
    assert proc.wait(timeout=10) == 143
    took = time.monotonic() - sent
    text = ANSI.sub("", seen.decode("utf-8", "replace")).replace("\r", "").replace("\n· ", " · ")
    assert took < 5, f"{took:.1f} s from the signal to the exit"
    found, shown = re.search(r"([\d,]+) rectangles · (\d+) shown · stopped by interrupt", text).groups()
    assert int(found.replace(",", "")) > FIRST + 1 and int(shown) == FIRST + 1
    assert len(_boxes(text)) == FIRST + 1


def test_a_closed_pipe_stops_a_sharded_run_at_once():
    """`| head -1` on a sharded run: the reader leaves after the first line, the shards stop, 141, no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", "rect", "4x4", "--top", "3000", "--all", "--solver",
                             "backtrack", "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.readline()
    left = time.monotonic()
    proc.stdout.close()
    code = proc.wait(timeout=60)
    took = time.monotonic() - left
    err = proc.stderr.read().decode()
    assert code == 141 and "Traceback" not in err and "rror" not in err, err[-600:]
    assert took < 4, f"{took:.1f} s from the closed pipe to the exit"  # it waited for the shards in flight: ~8 s


def test_an_empty_pattern_is_bad_input():
    for option in (("--pattern=",), ("--pattern", "")):
        proc = run_cli("rect", "3x3", "--top", "100", *option)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "pattern" in proc.stderr and "Traceback" not in proc.stderr


# -- --estimate and 80 columns --------------------------------------------------------------

UNIT_AFTER_BREAK = re.compile(r"[\d,.]+\s*\n\s*(?:·\s*)?(s|ms|nodes|branches|tiles|peels|words|shards|rectangles)\b")


def _no_mid_phrase_wrap(text: str) -> None:
    assert not UNIT_AFTER_BREAK.search(text), UNIT_AFTER_BREAK.search(text).group(0)
    assert all(len(line) <= 80 for line in text.splitlines()), max(text.splitlines(), key=len)


def test_estimate_speaks_plainly_and_names_one_shard_count():
    proc = run_cli("rect", "3x3", "--top", "300", "--count", "--solver", "backtrack", "--estimate",
                   env_extra={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "1 worker finishes in an hour" in out and "1 workers" not in out
    assert "the run would cut 64 shards" in out and "sampled shards" not in out
    assert "292 of 292 words" in out  # every first-line word ran whole: its node count is exact
    assert "the node estimates agree" in out
    _no_mid_phrase_wrap(out)


def test_the_two_node_estimates_agree_on_a_small_search_and_say_so_when_not():
    from cpmodel.core.control import Request
    from cpmodel.core.jobs import Job
    from cpmodel.core.lexicon import load_default
    from cpmodel.core.specs import rectangle_spec
    from cpmodel.run.cuts import first_line_words
    from cpmodel.run.estimate import nodes_agreement, plan
    from cpmodel.show.render import estimate_table

    lexicon = load_default()
    job = Job("rect", rectangle_spec(3, 3, lexicon, lexicon, 300), "backtrack", Request(limit=None, count_only=True))
    doc = plan(job, first_line_words(job), probes=2000, budget=30.0)
    assert doc["sampled_shards"]["nodes"] == 10088  # every word run whole: the exact node count of --count
    assert doc["nodes_agreement"]["within_error"] and 0.9 < doc["nodes_agreement"]["ratio"] < 1.1
    apart = nodes_agreement({"nodes": 155.0, "nodes_stderr": 5.0}, {"nodes": 100.0, "nodes_stderr": 5.0})
    assert apart == {"ratio": 1.55, "within_error": False}
    doc.update(nodes_agreement=apart, shards=64)
    out = io.StringIO()
    Console(file=out, width=80).print(estimate_table(doc, "backtrack", 292))
    assert "differ 1.55×, beyond their errors" in out.getvalue()
    _no_mid_phrase_wrap(out.getvalue())


def test_summaries_and_tables_break_between_phrases_at_80_columns():
    for args in (("rect", "3x3", "--top", "300", "--all", "--solver", "backtrack,cp"),
                 ("banana", "--game", "--seed", "3", "--top", "3000"),
                 ("words", "retains")):
        proc = run_cli(*args, env_extra={"COLUMNS": "80"})
        assert proc.returncode == 0, proc.stderr
        _no_mid_phrase_wrap(proc.stdout)


def test_numbers_are_written_with_thousands_separators():
    proc = run_cli("rect", "3x3", "--top", "300", "--count", "--solver", "backtrack,cp")
    assert proc.returncode == 0, proc.stderr
    assert "6,774 rectangles" in proc.stdout and "6774" not in proc.stdout
    assert "shown" not in proc.stdout  # a count draws nothing, and says nothing about it
    proc = run_cli("rect", "3x3", "--top", "300", "--count", "--jobs", "1")  # auto's race
    assert proc.returncode == 0 and "6,774 rectangles · search complete" in proc.stdout and "shown" not in proc.stdout


def test_the_estimate_document_matches_the_docs():
    import json

    text = (ROOT / "docs" / "json.md").read_text()
    docs = re.split(r"^## .*`--estimate`.*$", text, maxsplit=1, flags=re.M)[1].split("\n## ", 1)[0]
    keys = lambda name: {k.strip() for k in re.search(rf"^{name}: (.*)$", docs, re.M).group(1).split(",")}
    proc = run_cli("rect", "3x3", "--top", "300", "--count", "--solver", "backtrack", "--estimate", "--json")
    doc = json.loads(proc.stdout)
    assert keys("keys") <= doc.keys() <= keys("keys") | keys("optional")
    estimate = doc["estimate"]
    for key in ("first_line_words", "shards", "engine", "sampled_shards", "knuth", "nodes_agreement", "cpu_hours",
                "workers_for_one_hour"):
        assert key in estimate and f"`{key}`" in docs, key
    assert estimate["nodes_agreement"]["within_error"] is True


def test_a_cross_check_with_an_engine_that_never_ran_is_not_complete():
    """Ctrl-C or a spent --time-limit after the first engine of a cross-check: that engine's
    finished search does not make the document complete, and the engines are not said to agree."""
    from cpmodel.core.control import Request
    from cpmodel.core.result import FOUND, SolveResult
    from cpmodel.show.documents import solve_document

    first = SolveResult("backtrack", FOUND, complete=True, count=1, seconds=0.1, solutions=[("at", "to")])
    doc = solve_document({}, Request(limit=None), [first], "identical solution sets", engines=["backtrack", "cp"])
    assert doc["complete"] is False and doc["agreement"].startswith("undecided") and doc["status"] == FOUND
    both = solve_document({}, Request(limit=None), [first, first], "identical solution sets", engines=["backtrack", "cp"])
    assert both["complete"] is True and both["agreement"] == "identical solution sets"
