"""Word lists in rank order: the dictionary every puzzle draws from.

A :class:`Lexicon` is a tuple of distinct lowercase a–z words, most common
first, so a word's *rank* is simply its index. Two sources exist:

* the default: the ~188k-word list packaged in ``kjxqz``, ordered by the
  English frequencies of ``wordfreq`` (words wordfreq does not know come
  after all known words, alphabetically);
* a user file (``--dict``): one word per line, ranked by line order, so a
  frequency-ordered list keeps its order.

Ranking the default list needs wordfreq's 300k-entry table (~0.3 s), so the
ranked list is cached on disk. The cache file name is a hash of everything
that determines its content (the word file's bytes, wordfreq's version and
this module's format number) and its header repeats that key, so a stale or
foreign cache is never used: it can only save time, never change a result.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from functools import cached_property
from importlib import resources
from importlib.metadata import version
from pathlib import Path

from cpmodel.errors import InputError

_WORD = re.compile(r"[a-z]+")
_CACHE_FORMAT = "1"


class Lexicon:
    """Distinct a–z words, most common first; ``rank(w)`` is w's index."""

    def __init__(self, words: list[str] | tuple[str, ...], source: str, skipped: int = 0):
        self.words = tuple(words)
        self.source = source  # a human-readable name: "kjxqz+wordfreq" or a path
        self.skipped = skipped  # lines of a user file that were not a–z words

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


def parse_words(lines: list[str]) -> tuple[list[str], int]:
    """Case-fold, drop blanks and duplicates, skip non a–z lines.

    Returns the kept words in first-seen order and how many lines were skipped
    for not being purely letters."""
    seen: set[str] = set()
    kept: list[str] = []
    skipped = 0
    for line in lines:
        word = line.strip().lower()
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
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise InputError(f"dictionary file not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"dictionary path is a directory: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read dictionary file {path}: {exc.strerror}") from None
    words, skipped = parse_words(text.splitlines())
    if not words:
        raise InputError(f"dictionary file {path} holds no a-z words")
    return Lexicon(words, source=str(path), skipped=skipped)


def load_default() -> Lexicon:
    """kjxqz's word list in wordfreq order, from the disk cache when valid."""
    raw = resources.files("kjxqz").joinpath("words.txt").read_bytes()
    key = _cache_key(raw)
    cached = _read_cache(key)
    if cached is not None:
        return Lexicon(cached, source="kjxqz+wordfreq")
    words, _ = parse_words(raw.decode("utf-8").splitlines())
    ranked = rank_by_frequency(words)
    _write_cache(key, ranked)
    return Lexicon(ranked, source="kjxqz+wordfreq")


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
    try:
        lines = _cache_path(key).read_text(encoding="ascii").split("\n")
    except (OSError, UnicodeDecodeError):
        return None
    header, words = lines[0], lines[1:]
    if header != f"cpmodel-ranked {key} {len(words)}":
        return None  # truncated or foreign file: recompute
    return words


def _write_cache(key: str, words: list[str]) -> None:
    """Write atomically; a read-only cache directory only costs time."""
    try:
        directory = cache_dir()
        directory.mkdir(parents=True, exist_ok=True)
        body = f"cpmodel-ranked {key} {len(words)}\n" + "\n".join(words)
        with tempfile.NamedTemporaryFile("w", dir=directory, delete=False, encoding="ascii") as tmp:
            tmp.write(body)
        os.replace(tmp.name, _cache_path(key))
    except OSError:
        pass
