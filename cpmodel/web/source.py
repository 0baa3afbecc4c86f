"""The source lines behind an ``explain`` family: ``cpmodel/models/rectangle.py:138`` → the statement there.

The location comes from the explain document the worker made, never from a
request, and only files inside the installed cpmodel package are read.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # cpmodel/
MAX_LINES = 12


@lru_cache(maxsize=64)
def source_of(code: str) -> str | None:
    """The lines from ``path:line`` to the next blank line or dedent (at most MAX_LINES)."""
    match = re.match(r"cpmodel/([\w/]+\.py):(\d+)", code)
    if not match:
        return None
    path = (PACKAGE / match.group(1)).resolve()
    if PACKAGE not in path.parents or not path.is_file():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    start = int(match.group(2)) - 1
    if not 0 <= start < len(lines):
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    block = [lines[start]]
    for line in lines[start + 1:start + MAX_LINES]:
        if not line.strip() or len(line) - len(line.lstrip()) < indent:
            break
        block.append(line)
    while block and not block[-1].strip():
        block.pop()
    first = min((len(line) - len(line.lstrip()) for line in block if line.strip()), default=0)
    return "\n".join(f"{start + 1 + k:>4}  {line[first:]}" for k, line in enumerate(block))


def with_sources(doc: dict) -> dict:
    """An explain document with each family's source lines added (key ``source``)."""
    for family in doc.get("families", []):
        family["source"] = source_of(family.get("code", ""))
    return doc
