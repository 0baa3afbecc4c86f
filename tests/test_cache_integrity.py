"""Tamper tests for the ranked-word cache: a damaged cache is rebuilt, never used.

The cache only saves time. Whatever happens to the file (an edited word, a cut
tail, random bytes, another key's file, a directory in its place), the loaded
lexicon must equal the one ranked from scratch, and no temporary file may be
left behind.
"""

from __future__ import annotations

import json
import os
from importlib import resources

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpmodel.core import lexicon as lex
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def good_cache(tmp_path_factory):
    """A cache built once: (its file name, its bytes, the ranked words)."""
    directory = tmp_path_factory.mktemp("good-cache")
    saved = os.environ.get("CPMODEL_CACHE_DIR")
    os.environ["CPMODEL_CACHE_DIR"] = str(directory)
    try:
        words = lex.load_default().words
    finally:
        if saved is None:
            del os.environ["CPMODEL_CACHE_DIR"]
        else:
            os.environ["CPMODEL_CACHE_DIR"] = saved
    (path,) = directory.iterdir()
    return path.name, path.read_bytes(), words


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CPMODEL_CACHE_DIR", str(tmp_path))
    return tmp_path


def _key() -> str:
    return lex._cache_key(resources.files("kjxqz").joinpath("words.txt").read_bytes())


def _only_the_cache_file(directory, name) -> None:
    assert sorted(p.name for p in directory.iterdir()) == [name], "a temporary file was left behind"


def test_edited_word_is_rebuilt_and_never_listed(good_cache, cache_dir):
    name, data, words = good_cache
    assert words[0] == "the"
    (cache_dir / name).write_bytes(data.replace(b"\nthe\n", b"\nthx\n", 1))
    assert lex.load_default().words == words
    assert (cache_dir / name).read_bytes() == data  # rebuilt in place
    (cache_dir / name).write_bytes(data.replace(b"\nthe\n", b"\nthx\n", 1))
    proc = run_cli("words", "thx", "--json", env_extra={"CPMODEL_CACHE_DIR": str(cache_dir)})
    assert proc.returncode == 0, proc.stderr
    assert "thx" not in [w["word"] for w in json.loads(proc.stdout)["words"]]


def test_cut_tail_is_rebuilt(good_cache, cache_dir):
    name, data, words = good_cache
    (cache_dir / name).write_bytes(data[:-4])  # "zyzzyva"-style tail cut mid-word
    assert lex.load_default().words == words
    (cache_dir / name).write_bytes(data[: data.rindex(b"\n") + 1])  # last word gone, an empty line left
    assert lex.load_default().words == words
    _only_the_cache_file(cache_dir, name)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=4),
       cut=st.one_of(st.none(), st.floats(0, 1, exclude_max=True)))
def test_random_bytes_or_cut_are_never_accepted(good_cache, cache_dir, edits, cut):
    """Any changed byte or cut makes the reader refuse the file (None)."""
    name, data, words = good_cache
    damaged = bytearray(data)
    for where, byte in edits:
        damaged[int(where * len(damaged))] = byte
    if cut is not None:
        damaged = damaged[: int(cut * len(damaged))]
    (cache_dir / name).write_bytes(bytes(damaged))
    loaded = lex._read_cache(_key())
    assert loaded is None or (bytes(damaged) == data and tuple(loaded) == words)


def test_random_file_and_empty_file_are_rebuilt(good_cache, cache_dir):
    name, data, words = good_cache
    for junk in (os.urandom(4096), b"", data.split(b"\n", 1)[0] + b"\n"):
        (cache_dir / name).write_bytes(junk)
        assert lex.load_default().words == words
    _only_the_cache_file(cache_dir, name)


def test_a_consistent_but_non_word_body_is_refused(good_cache, cache_dir):
    """Even a body whose header matches (hash recomputed) must hold a-z lines only."""
    name, data, words = good_cache
    key = _key()
    for body in (b"the\n\nof", b"the\nTo\nof", b"\nthe", b"the\n", b"th e"):
        lines = body.decode().split("\n")
        (cache_dir / name).write_bytes(lex._cache_header(key, lines, body) + b"\n" + body)
        assert lex._read_cache(key) is None, body
    body = b"the\nof"
    (cache_dir / name).write_bytes(lex._cache_header(key, ["the"], body) + b"\n" + body)  # wrong count
    assert lex._read_cache(key) is None


def test_wrong_key_is_rebuilt(good_cache, cache_dir):
    name, data, words = good_cache
    key = name.removeprefix("ranked-").removesuffix(".txt")
    other = "0" * len(key)
    (cache_dir / f"ranked-{other}.txt").write_bytes(data)  # another key's name
    assert lex._read_cache(other) is None
    (cache_dir / name).write_bytes(data.replace(key.encode(), other.encode(), 1))  # another key in the header
    assert lex.load_default().words == words
    assert (cache_dir / name).read_bytes() == data


def test_directory_in_the_way_leaves_no_temporary_file(good_cache, cache_dir):
    name, _, words = good_cache
    (cache_dir / name).mkdir()
    for _ in range(2):
        assert lex.load_default().words == words
    assert [p.name for p in cache_dir.iterdir()] == [name] and (cache_dir / name).is_dir()
    proc = run_cli("words", "cat", "--json", env_extra={"CPMODEL_CACHE_DIR": str(cache_dir)})
    assert proc.returncode == 0 and "cat" in proc.stdout
    assert [p.name for p in cache_dir.iterdir()] == [name]


def test_cache_dir_that_is_a_file_only_costs_time(good_cache, tmp_path, monkeypatch):
    _, _, words = good_cache
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("CPMODEL_CACHE_DIR", str(blocker))
    assert lex.load_default().words == words
    assert blocker.read_text() == "x"


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()])
def test_failed_write_removes_its_temporary_file(good_cache, cache_dir, monkeypatch, failure):
    _, _, words = good_cache

    def fail(*_args):
        raise failure

    monkeypatch.setattr(lex.os, "replace", fail)
    if isinstance(failure, OSError):
        assert lex.load_default().words == words
    else:
        with pytest.raises(KeyboardInterrupt):
            lex.load_default()
    assert list(cache_dir.iterdir()) == []


def test_good_cache_is_used_as_written(good_cache, cache_dir):
    name, data, words = good_cache
    (cache_dir / name).write_bytes(data)
    assert tuple(lex._read_cache(_key())) == words
