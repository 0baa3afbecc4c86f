"""Scoring tables for grid word games, in one place.

These are the defaults; ``--score-table FILE`` replaces any of them from a
JSON object with the same keys, e.g.

    {"letter_values": {"q": 8}, "length_bonus": {"5": 2, "6": 4}}

* ``boggle``: points by word length in letters (a Qu tile is two letters):
  3–4 → 1, 5 → 2, 6 → 3, 7 → 5, 8 or more → 11. Multipliers are ignored.
* ``scramble`` (Scramble with Friends): the sum of the tiles' letter values,
  each times its letter multiplier (+2, +3), times every word multiplier on
  the path (*2, *3), plus a bonus by word length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from cpmodel.errors import InputError

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


def score_table(kind: str, override_path: str | None = None) -> ScoreTable:
    table = ScoreTable(kind)
    if override_path:
        table = _apply_override(table, override_path)
    return table


def _apply_override(table: ScoreTable, path: str) -> ScoreTable:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise InputError(f"cannot read score table {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"score table {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise InputError(f"score table {path} must be a JSON object")
    try:
        for key in ("length_points", "length_bonus"):
            if key in data:
                getattr(table, key).update({int(k): int(v) for k, v in data[key].items()})
        if "letter_values" in data:
            table.letter_values.update({str(k).lower(): int(v) for k, v in data["letter_values"].items()})
    except (ValueError, TypeError, AttributeError):
        raise InputError(f"score table {path}: values must be whole numbers keyed by length or letter") from None
    unknown = set(data) - {"length_points", "length_bonus", "letter_values"}
    if unknown:
        raise InputError(f"score table {path}: unknown keys {sorted(unknown)}")
    return table
