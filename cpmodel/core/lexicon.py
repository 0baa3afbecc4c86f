"""Word lists in rank order: the dictionary every puzzle draws from.

A :class:`Lexicon` is a tuple of distinct lowercase a–z words, most common
first, so a word's *rank* is simply its index. Two sources exist:

* the default: the ~188k-word list packaged in ``kjxqz``, ordered by the
  English frequencies of ``wordfreq`` (words wordfreq does not know come
  after all known words, alphabetically);
* a user file (``--dict``): one word per line, ranked by line order, so a
  frequency-ordered list keeps its order; or a counted list, one
  ``word<TAB>count`` or ``word count`` per line, ranked by count (most first,
  ties in line order), so a frequency table needs no sorting beforehand.

A list given in code, ``Lexicon(["BATS", "Tab", ...])``, is normalised the
same way as a file: case-folded, blanks, duplicates and non a–z entries
dropped (counted in ``skipped``).

Ranking the default list needs wordfreq's 300k-entry table (~0.3 s), so the
ranked list is cached on disk. The cache file name is a hash of everything
that determines its content (the word file's bytes, wordfreq's version and
this module's format number). Its header repeats that key, the word count
and a SHA-256 of the body, and a load checks all three and that every line
is an a–z word: a stale, foreign, truncated or edited cache is rebuilt, so
the cache can only save time, never change a result. It is written to a
temporary file that is renamed into place, or removed if anything fails.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import string
import tempfile
from functools import cached_property
from importlib import resources
from importlib.metadata import version
from pathlib import Path

from cpmodel.core.checks import ascii_lower, optional, whole
from cpmodel.core.errors import InputError
from cpmodel.core.files import MAX_DICTIONARY, read_bytes, read_text

_WORD = re.compile(r"[a-z]+")
_COUNTED = re.compile(r"(\S+)\s+([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)")  # word<whitespace>count
_CACHE_FORMAT = "2"  # 2: the header holds the body's SHA-256
_CACHE_LETTERS = (string.ascii_lowercase + "\n").encode()  # all a cache body may hold


class Lexicon:
    """Distinct a–z words, most common first; a word's rank is its index.

    >>> lexicon = Lexicon(["Bats", "tab", "BATS", "e-mail", "stab"])
    >>> lexicon.words, lexicon.skipped
    (('bats', 'tab', 'stab'), 1)
    >>> lexicon.top(1).words  # the most common word of each length
    ('bats', 'tab')
    """

    def __init__(self, words, source: str = "a word list", skipped: int = 0):
        if isinstance(words, str):  # "bats tab stab": whitespace-separated words
            words = words.split()
        elif isinstance(words, (bytes, bytearray)) or not hasattr(words, "__iter__"):
            raise InputError(f"a word list is a str of words or a list of str, got {type(words).__name__}")
        kept, dropped = parse_words(words)
        self.words = tuple(kept)
        self.source = source  # a human-readable name: "kjxqz+wordfreq" or a path
        self.skipped = skipped + dropped  # entries that were not a–z words

    @classmethod
    def _clean(cls, words, source: str, skipped: int = 0) -> Lexicon:
        """A lexicon from words already normalised (skips the per-word check)."""
        lexicon = cls.__new__(cls)
        lexicon.words, lexicon.source, lexicon.skipped = tuple(words), source, skipped
        return lexicon

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.rank_of

    @cached_property
    def rank_of(self) -> dict[str, int]:
        return {word: rank for rank, word in enumerate(self.words)}

    def of_length(self, length: int, top: int | None = None) -> list[str]:
        """The words of one length in rank order; the first ``top`` only if given
        (Knuth's WORDS(N) restricted to one length)."""
        chosen = [w for w in self.words if len(w) == length]
        return chosen if top is None else chosen[:top]

    def top(self, n: int | None) -> Lexicon:
        """Only the ``n`` most common words of each length (all when None),
        in the same rank order."""
        if n is None:
            return self
        n = optional("top", whole, n, 1)
        kept: list[str] = []
        per_length: dict[int, int] = {}
        for word in self.words:
            seen = per_length.get(len(word), 0)
            if seen < n:
                per_length[len(word)] = seen + 1
                kept.append(word)
        return Lexicon._clean(kept, f"{self.source}, top {n} per length", self.skipped)


def parse_words(lines) -> tuple[list[str], int]:
    """Case-fold, drop blanks and duplicates, skip non a–z lines.

    Returns the kept words in first-seen order and how many lines were skipped
    for not being purely letters."""
    seen: set[str] = set()
    kept: list[str] = []
    skipped = 0
    for line in lines:
        if not isinstance(line, str):
            raise InputError(f"a word list holds words (str), got {type(line).__name__}: {line!r:.40}")
        word = ascii_lower(line.strip())
        if not word:
            continue
        if not _WORD.fullmatch(word):
            skipped += 1
            continue
        if word not in seen:
            seen.add(word)
            kept.append(word)
    return kept, skipped


def load_file(path: str | os.PathLike) -> Lexicon:
    """A user word list, ranked by line order. Raises InputError when the
    file is missing, unreadable, or holds no usable word."""
    # -sig: a BOM is not part of the first word; undecodable bytes become skipped lines
    text = read_text(path, "dictionary file", MAX_DICTIONARY, errors="replace")
    plain = plain_words(text)
    if plain:
        return Lexicon._clean(plain, source=str(path))
    lines = text.splitlines()
    words, skipped = parse_counted(lines) if is_counted(lines) else parse_words(lines)
    if not words:
        raise InputError(f"dictionary file {path} holds no a-z words")
    return Lexicon._clean(words, source=str(path), skipped=skipped)


def plain_words(text: str) -> list[str] | None:
    """The words of a list that is nothing but lowercase a–z lines (ENABLE and most word
    lists, LF or CR LF), checked and split by whole-text operations: 15 ms for 173k words, where the
    line-by-line parse takes 150 ms. None when any line needs that parse."""
    body = text.replace("\r\n", "\n").rstrip("\n")  # ENABLE ends its lines with CR LF
    if not body.isascii() or not _all_lines_are_words(body.encode("ascii")):
        return None
    return list(dict.fromkeys(body.split("\n")))  # duplicates dropped, first-seen order kept


def is_counted(lines: list[str]) -> bool:
    """A counted list: most non-blank lines are ``word count`` (a header line may differ)."""
    filled = [line for line in lines[:1000] if line.strip()]
    counted = sum(1 for line in filled if _COUNTED.fullmatch(line.strip()))
    return bool(filled) and counted * 2 > len(filled)


def parse_counted(lines: list[str]) -> tuple[list[str], int]:
    """``word<TAB>count`` or ``word count`` lines, most counted first.

    Case variants add up (``The 5`` and ``the 3`` make ``the`` 8); equal
    counts keep their line order. Lines that are not an a–z word with a
    count are skipped and counted.

    >>> parse_counted(["cat 5", "the\t900", "Cat 2", "dog 40", "x-ray 3"])
    (['the', 'dog', 'cat'], 1)
    """
    totals: dict[str, float] = {}
    skipped = 0
    for line in lines:
        match = _COUNTED.fullmatch(line.strip())
        if not line.strip():
            continue
        word = ascii_lower(match.group(1)) if match else ""
        if match is None or not _WORD.fullmatch(word):
            skipped += 1
            continue
        totals[word] = totals.get(word, 0.0) + float(match.group(2))
    ranked = sorted(totals, key=lambda w: -totals[w])  # stable: ties keep line order
    return ranked, skipped


def load_default() -> Lexicon:
    """kjxqz's word list in wordfreq order, from the disk cache when valid."""
    raw = resources.files("kjxqz").joinpath("words.txt").read_bytes()
    key = _cache_key(raw)
    cached = _read_cache(key)
    if cached is not None:
        return Lexicon._clean(cached, source="kjxqz+wordfreq")
    words, _ = parse_words(raw.decode("utf-8").splitlines())
    ranked = rank_by_frequency(words)
    _write_cache(key, ranked)
    return Lexicon._clean(ranked, source="kjxqz+wordfreq")


def rank_by_frequency(words: list[str]) -> list[str]:
    """Most frequent English words first (wordfreq); unknown words last, A–Z."""
    from wordfreq import get_frequency_dict

    frequency = get_frequency_dict("en", wordlist="best")
    return sorted(words, key=lambda w: (-frequency.get(w, 0.0), w))


def _cache_key(raw_words: bytes) -> str:
    digest = hashlib.sha256(raw_words)
    digest.update(f"|wordfreq={version('wordfreq')}|format={_CACHE_FORMAT}".encode())
    return digest.hexdigest()[:32]


def cache_dir() -> Path:
    override = os.environ.get("CPMODEL_CACHE_DIR")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cpmodel"


def _cache_path(key: str) -> Path:
    return cache_dir() / f"ranked-{key}.txt"


def _read_cache(key: str) -> list[str] | None:
    """The cached ranked words, or None when the file is missing or fails a
    check: header, key, body hash, a-z lines, word count."""
    try:  # a regular file of bounded size: a FIFO or device put in its place is ignored, not read
        data = read_bytes(_cache_path(key), "cache file", MAX_DICTIONARY)
    except InputError:
        return None
    header, _, body = data.partition(b"\n")
    fields = header.decode("ascii", errors="replace").split(" ")
    if len(fields) != 4 or fields[:2] != ["cpmodel-ranked", key]:
        return None  # foreign or stale
    if fields[3] != hashlib.sha256(body).hexdigest():
        return None  # truncated or edited
    if not _all_lines_are_words(body):
        return None
    words = body.decode("ascii").split("\n")
    return words if fields[2] == str(len(words)) else None


def _all_lines_are_words(body: bytes) -> bool:
    """Every line of ``body`` is a non-empty a-z word (bytes ops: ~5 ms for 2 MB)."""
    only_letters = not body.translate(None, _CACHE_LETTERS)
    no_empty_line = bool(body) and b"\n\n" not in body and body[:1] != b"\n" and body[-1:] != b"\n"
    return only_letters and no_empty_line


def _cache_header(key: str, words: list[str], body: bytes) -> bytes:
    """``cpmodel-ranked KEY COUNT SHA256``, the first line of a cache file."""
    return f"cpmodel-ranked {key} {len(words)} {hashlib.sha256(body).hexdigest()}".encode()


def _write_cache(key: str, words: list[str]) -> None:
    """Write to a temporary file, then rename it into place, so a reader never
    sees half a file; on any failure remove the temporary file. A cache that
    cannot be written (read-only directory, a directory in the way) only
    costs time."""
    body = "\n".join(words).encode("ascii")
    tmp_name = None
    try:
        directory = cache_dir()
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=directory, prefix=f".ranked-{key}.", suffix=".tmp", delete=False) as tmp:
            tmp_name = tmp.name
            tmp.write(_cache_header(key, words, body) + b"\n" + body)
        os.replace(tmp_name, _cache_path(key))
        tmp_name = None  # renamed: nothing left to clean up
    except OSError:
        pass
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
