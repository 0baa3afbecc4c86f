"""Scoring tables for grid word games, in one place.

These are the defaults; ``--score-table FILE`` replaces any of them from a
JSON object with the same keys, e.g.

    {"letter_values": {"q": 8}, "length_bonus": {"5": 2, "6": 4}}

Every value must be a whole number from 0 to 1,000,000, every length key a
word length from 1 to 999 and every letter key a tile's letters (``qu``);
anything else (NaN, 1e400, a fraction, true, a binary file) is refused in
one line before any board is scored.

* ``boggle``: points by word length in letters (a Qu tile is two letters):
  3–4 → 1, 5 → 2, 6 → 3, 7 → 5, 8 or more → 11. Multipliers are ignored.
* ``scramble`` (Scramble with Friends): the sum of the tiles' letter values,
  each times its letter multiplier (+2, +3), times every word multiplier on
  the path (*2, *3), plus a bonus by word length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from cpmodel.core.checks import ascii_lower
from cpmodel.core.errors import InputError

BOGGLE_POINTS = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11}  # 8 means "8 or more"

SCRAMBLE_LETTER_VALUES = {
    "a": 1, "b": 4, "c": 4, "d": 2, "e": 1, "f": 4, "g": 3, "h": 3, "i": 1, "j": 10, "k": 5, "l": 2, "m": 4,
    "n": 2, "o": 1, "p": 4, "q": 10, "r": 1, "s": 1, "t": 1, "u": 2, "v": 5, "w": 4, "x": 8, "y": 3, "z": 10,
    "qu": 10,
}
SCRAMBLE_LENGTH_BONUS = {5: 3, 6: 6, 7: 10, 8: 15, 9: 20, 10: 25}  # the last entry holds for longer words


@dataclass
class ScoreTable:
    kind: str  # "boggle" or "scramble"
    length_points: dict[int, int] = field(default_factory=lambda: dict(BOGGLE_POINTS))
    letter_values: dict[str, int] = field(default_factory=lambda: dict(SCRAMBLE_LETTER_VALUES))
    length_bonus: dict[int, int] = field(default_factory=lambda: dict(SCRAMBLE_LENGTH_BONUS))

    def tile_value(self, text: str) -> int:
        return self.letter_values.get(text, sum(self.letter_values.get(c, 0) for c in text))

    def score(self, word: str, tiles) -> int:
        """Score of ``word`` spelled by ``tiles`` (objects with text, letter_mult, word_mult)."""
        if self.kind == "boggle":
            return points_for_length(self.length_points, len(word))
        letters = sum(self.tile_value(t.text) * t.letter_mult for t in tiles)
        factor = 1
        for t in tiles:
            factor *= t.word_mult
        return letters * factor + points_for_length(self.length_bonus, len(word))


def points_for_length(table: dict[int, int], length: int) -> int:
    """table[length], where the largest key also covers every longer word."""
    if not table or length < min(table):
        return 0
    return table.get(length, table[max(k for k in table if k <= length)])


MAX_POINTS = 1_000_000  # bound on any table value: scores stay exact, small, JSON-safe integers
MAX_LENGTH = 999  # bound on a length key: longer than any word a 15×15 board can hold
_SECTIONS = ("length_points", "length_bonus", "letter_values")


def score_table(kind: str, override: str | None = None, source: str = "score table") -> ScoreTable:
    """The default table of ``kind``, with ``override`` (JSON text) applied if given."""
    table = ScoreTable(kind)
    if override is not None:
        _apply_override(table, _load_override(override, source), source)
    return table


class _NotFinite(ValueError):
    """NaN or Infinity in the JSON text (Python's json accepts them)."""


def _refuse(constant: str):
    raise _NotFinite(constant)


def _load_override(text: str, source: str) -> dict:
    """The JSON object of an override; NaN, Infinity and runaway numbers are refused."""
    try:
        data = json.loads(text, parse_constant=_refuse)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    except _NotFinite as exc:
        raise InputError(f"{source}: {exc} is not a number of points") from None
    except ValueError:  # an integer of 4300+ digits
        raise InputError(f"{source} holds a number with too many digits") from None
    except RecursionError:
        raise InputError(f"{source} is nested too deeply") from None
    if not isinstance(data, dict):
        raise InputError(f"{source} must be a JSON object with keys {', '.join(_SECTIONS)}")
    unknown = set(data) - set(_SECTIONS)
    if unknown:
        raise InputError(f"{source}: unknown keys {sorted(unknown)} (known: {', '.join(_SECTIONS)})")
    return data


def _apply_override(table: ScoreTable, data: dict, source: str) -> None:
    """Check every entry (types and ranges) before using it, then update the table."""
    for key, section in data.items():
        if not isinstance(section, dict):
            raise InputError(f"{source}: {key} must be an object, e.g. {{\"5\": 2}}")
        for name, points in section.items():
            if type(points) is not int or not 0 <= points <= MAX_POINTS:  # bool is not a number here
                raise InputError(f"{source}: {key}[{name!r}] must be a whole number from 0 to {MAX_POINTS:,}, got {points!r:.40}")
        if key == "letter_values":
            table.letter_values.update({_tile_key(name, source): points for name, points in section.items()})
        else:
            getattr(table, key).update({_length_key(name, key, source): points for name, points in section.items()})


def _length_key(name: str, key: str, source: str) -> int:
    if not (name.isascii() and name.isdigit() and len(name) <= 3 and 1 <= int(name) <= MAX_LENGTH):
        raise InputError(f"{source}: {key} keys must be word lengths from 1 to {MAX_LENGTH}, got {name!r:.40}")
    return int(name)


def _tile_key(name: str, source: str) -> str:
    letters = ascii_lower(name)
    if not (letters.isascii() and letters.isalpha()):
        raise InputError(f"{source}: letter_values keys must be a tile's letters a-z (like 'q' or 'qu'), got {name!r:.40}")
    return letters
