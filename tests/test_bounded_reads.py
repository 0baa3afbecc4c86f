"""Bounded reads of every outside file (issue 23): what is not a regular file is refused
at once (exit 2, one line), a file above its cap is refused before it is read, and a
signal while a big file is read and parsed ends the run like anywhere else."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from cpmodel.core.errors import InputError
from cpmodel.core.files import MAX_DICTIONARY, MAX_SMALL, read_bytes, read_text
from tests.conftest import ROOT, wait_for_handlers

# Every option or argument that names a file, with the rest of a command that reads it.
FILE_OPTIONS = {
    "rect --dict": ["rect", "3x3", "--dict", "{}"],
    "rect --row-dict": ["rect", "3x3", "--row-dict", "{}"],
    "rect --col-dict": ["rect", "3x3", "--col-dict", "{}"],
    "rect --checkpoint": ["rect", "3x3", "--top", "20", "--count", "--checkpoint", "{}"],
    "words --dict": ["words", "abc", "--dict", "{}"],
    "wordscapes BOARD": ["wordscapes", "{}", "abc"],
    "wordscapes --dict": ["wordscapes", "{}", "abc", "--dict", "{}"],
    "banana --dict": ["banana", "abc", "--dict", "{}"],
    "banana --check": ["banana", "abc", "--check", "{}"],
    "banana --peel": ["banana", "abc", "--peel", "{}"],
    "grid --dict": ["grid", "abcdefghijklmnop", "--dict", "{}"],
    "grid --score-table": ["grid", "abcdefghijklmnop", "--score-table", "{}"],
    "grid --score-file": ["grid", "--score-file", "{}"],
    "grid --prove --checkpoint": ["grid", "--best", "2x2", "--prove", "--checkpoint", "{}"],
    "lexicon --dict": ["lexicon", "--dict", "{}"],
    "compare --dict": ["compare", "--quick", "--dict", "{}"],
    "explain rect --dict": ["explain", "rect", "3x3", "--dict", "{}"],
    "explain banana --dict": ["explain", "banana", "abc", "--dict", "{}"],
    "explain wordscapes BOARD": ["explain", "wordscapes", "{}", "abc"],
}


def cli(args: list[str], path: str, timeout: float = 20) -> tuple[subprocess.CompletedProcess, float]:
    """The finished command and the CPU seconds it used: unlike wall time, the same on a loaded
    machine, and what reading a file without end would spend."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "cpmodel", *(a.replace("{}", path) for a in args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=dict(os.environ, COLUMNS="120"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return proc, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def refused(proc: subprocess.CompletedProcess, needle: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def startup() -> float:
    """CPU seconds the CLI takes to refuse a bad size: Python's start and the imports
    (0.4 s on this machine), the baseline of "at once"."""
    proc, seconds = cli(["rect", "0x0"], "")
    assert proc.returncode == 2
    return seconds


@pytest.mark.parametrize("option", FILE_OPTIONS)
def test_dev_zero_is_refused_at_once(option, startup):
    """Before: /dev/zero was read without end (24 GB, then the OOM killer)."""
    proc, seconds = cli(FILE_OPTIONS[option], "/dev/zero")
    refused(proc, "/dev/zero is a character device, not a regular file")
    assert seconds < startup + 1.0  # ~0.5 s of CPU in all


@pytest.mark.parametrize("option", ["rect --dict", "wordscapes BOARD", "grid --score-table", "rect --checkpoint"])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path, option):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc, _ = cli(FILE_OPTIONS[option], str(fifo), timeout=20)
    refused(proc, "is a FIFO, not a regular file")


@pytest.mark.parametrize("option", ["rect --dict", "banana --check", "grid --score-table"])
def test_a_directory_is_refused(tmp_path, option):
    refused(cli(FILE_OPTIONS[option], str(tmp_path))[0], "is a directory")


@pytest.mark.parametrize("option, cap", [("lexicon --dict", MAX_DICTIONARY), ("wordscapes BOARD", MAX_SMALL),
                                         ("grid --score-table", MAX_SMALL), ("banana --check", MAX_SMALL)])
def test_a_file_above_its_cap_is_refused_before_reading(tmp_path, option, cap):
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(cap + 1)  # sparse: no disk used
    proc, seconds = cli(FILE_OPTIONS[option], str(big))
    refused(proc, f"is larger than {cap >> 20:,} MiB")
    assert seconds < 10.0  # never the ~20 CPU seconds a 256 MiB read and parse would take


def test_reader_refuses_growth_past_the_cap(tmp_path, monkeypatch):
    """The cap holds while reading too (a file that grows after fstat)."""
    from cpmodel.core import files

    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    real_fstat = os.fstat
    monkeypatch.setattr(files.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))
    with pytest.raises(InputError, match="larger than"):
        read_bytes(path, "f", 50)


@pytest.mark.parametrize("name", ["", b"bytes", 3, None])
def test_reader_refuses_what_is_not_a_file_name(name):
    with pytest.raises(InputError):
        read_text(name, "dictionary file")


def test_not_utf8_is_one_line(tmp_path):
    board = tmp_path / "board"
    board.write_bytes(b"..\xff\n..")
    refused(cli(FILE_OPTIONS["wordscapes BOARD"], str(board))[0], "not UTF-8 text")


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_a_big_dictionary_loads_exits_quietly(tmp_path, sig, code):
    words = tmp_path / "words.txt"
    # 24 MB with capitals, parsed line by line: several seconds (a plain a-z list is read in one pass, too fast)
    words.write_bytes(b"Abc\nbcd\ncde\n" * 2_000_000)
    proc = subprocess.Popen([sys.executable, "-m", "cpmodel", "lexicon", "--dict", str(words), "--length", "9"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_handlers(proc)  # a fixed sleep was not enough on a loaded machine: the imports can take a second
    time.sleep(0.5)  # into the load, which takes seconds
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == code, err
    assert "Traceback" not in err and out == ""


def test_a_fifo_in_place_of_the_cache_is_not_read(tmp_path, monkeypatch):
    """The ranked-word cache is read like any outside file: a FIFO there is skipped and replaced."""
    from cpmodel.core import lexicon

    monkeypatch.setenv("CPMODEL_CACHE_DIR", str(tmp_path))
    first = lexicon.load_default()
    cache = next(tmp_path.glob("ranked-*.txt"))
    cache.unlink()
    os.mkfifo(cache)
    again = lexicon.load_default()  # before: blocked forever on the FIFO
    assert again.words == first.words and cache.is_file()


def test_a_stream_without_newlines_on_stdin_is_refused():
    """``--score-file -`` streams stdin; /dev/zero there was one endless line gathered in memory."""
    with open("/dev/zero", "rb") as zeros:
        proc = subprocess.run([sys.executable, "-m", "cpmodel", "grid", "--score-file", "-"], stdin=zeros, cwd=ROOT,
                              capture_output=True, text=True, timeout=30)
    refused(proc, "board file line 1 is longer than 65,536 characters")


def test_a_deeply_nested_json_layout_is_one_line(tmp_path):
    layout = tmp_path / "deep.json"
    layout.write_text('{"grid":' + "[" * 100_000)  # before: RecursionError, exit 70
    refused(cli(FILE_OPTIONS["banana --peel"], str(layout))[0], "JSON without a \"grid\" list of rows")
