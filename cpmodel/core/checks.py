"""Type and range checks shared by the command line and the Python API.

The CLI's argparse types (``--limit``, ``--time-limit``, ``--top``, ...) and
the keyword arguments of :mod:`cpmodel`'s functions go through the same
functions here, so a value one refuses the other refuses too, with the same
words. Each raises :class:`~cpmodel.core.errors.InputError` whose message
says what was wanted and what came (``must be at least 1, got -1``); the
caller puts the option's name in front (``--limit`` or ``limit``).
"""

from __future__ import annotations

import math

from cpmodel.core.errors import InputError


def whole_text(text: str, least: int, most: int | None = None) -> int:
    """The CLI's digits as a whole number in ``least..most`` (ASCII: int() would read ``٣`` as 3)."""
    try:
        if not text.isascii():
            raise ValueError(text)
        value = int(text)
    except ValueError:
        raise InputError(f"must be a whole number, got {text!r}") from None
    return whole(value, least, most)


def whole(value, least: int, most: int | None = None) -> int:
    """A whole number (an int) in ``least..most``."""
    if type(value) is not int:  # bool is not a count; 1.5 and 2.0 are not whole numbers
        raise InputError(f"must be a whole number, got {value!r:.40}")
    if most is not None and not least <= value <= most:
        raise InputError(f"must be from {least} to {most}, got {value}")
    if value < least:
        raise InputError(f"must be at least {least}, got {value}")
    return value


def seconds_text(text: str) -> float:
    """The CLI's text as a number of seconds, checked as :func:`seconds`."""
    try:
        if not text.isascii():
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise InputError(f"must be a number of seconds, got {text!r}") from None
    return seconds(value)


def seconds(value) -> float:
    """A finite number of seconds above 0 (nan made CP-SAT reject its model and hung the
    annealer; 0 or less can only stop at once)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"must be a number of seconds, got {value!r:.40}")
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"must be a finite number of seconds above 0, got {value!r}")
    return float(value)


def choice(value, choices) -> str:
    """One of ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"must be one of {', '.join(choices)}, got {value!r:.40}")
    return value


def flag(value) -> bool:
    """True or False, nothing that merely looks like one ("no" is truthy)."""
    if not isinstance(value, bool):
        raise InputError(f"must be True or False, got {value!r:.40}")
    return value


def text(value) -> str:
    """A str (a size, a board, a hand, letters): bytes and None are not text."""
    if not isinstance(value, str):
        raise InputError(f"must be a str, got {type(value).__name__}")
    return value


def named(name: str, check, value, *args):
    """``check(value, *args)``, its InputError prefixed with ``name``: ``limit must be at least 1, got 0``."""
    try:
        return check(value, *args)
    except InputError as exc:
        raise InputError(f"{name} {exc}") from None


def optional(name: str, check, value, *args):
    """As :func:`named`, None passing through (no limit, no cut, every length)."""
    return None if value is None else named(name, check, value, *args)


def ascii_lower(value: str) -> str:
    """``value.lower()`` for ASCII text; other text comes back unchanged, so that the
    a-z check after it refuses it: ``str.lower()`` turns the Kelvin sign ``K`` (U+212A)
    into an ASCII ``k``, which would let a foreign letter pass as a word's letter."""
    return value.lower() if value.isascii() else value
