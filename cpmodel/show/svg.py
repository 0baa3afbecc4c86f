"""A layout drawn as a player sees it: cream tiles with capital letters, as plain SVG text.

No drawing library: an SVG file is a few dozen lines of XML. Each tile is a
rounded square; ``marks`` (cell → a small number) shades a tile and prints
the number in its corner, which is how a game's final board shows the step
that placed each tile (unmarked tiles came with the opening hand).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

TILE, GAP, MARGIN = 36, 3, 12
CREAM, EDGE, INK = "#f6e7b4", "#b89b52", "#2b2118"


def layout_svg(cells: dict, marks: dict | None = None, title: str = "", legend: str = "") -> str:
    """The SVG document of ``cells`` ({(r, c): letter}); ``marks`` numbers some tiles."""
    marks = marks or {}
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    rows = max(r for r, _ in cells) - top + 1
    cols = max(c for _, c in cells) - left + 1
    head = 26 if title else 0
    foot = 22 if legend else 0
    width = 2 * MARGIN + cols * (TILE + GAP)
    height = 2 * MARGIN + head + foot + rows * (TILE + GAP)
    highest = max(marks.values(), default=0) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
             f'<rect width="{width}" height="{height}" fill="#3d6b4f"/>']  # the table top
    if title:
        parts.append(f'<text x="{MARGIN}" y="{MARGIN + 16}" font-family="sans-serif" font-size="16" fill="white">{escape(title)}</text>')
    for (r, c), letter in sorted(cells.items()):
        x = MARGIN + (c - left) * (TILE + GAP)
        y = MARGIN + head + (r - top) * (TILE + GAP)
        mark = marks.get((r, c))
        fill = CREAM if mark is None else _shade(mark / highest)
        parts.append(f'<g><rect x="{x}" y="{y}" width="{TILE}" height="{TILE}" rx="5" fill="{fill}" stroke="{EDGE}" stroke-width="1.5"/>'
                     f'<text x="{x + TILE / 2}" y="{y + TILE * 0.72}" text-anchor="middle" font-family="Georgia, serif" '
                     f'font-size="{TILE * 0.62:.0f}" font-weight="bold" fill="{INK}">{letter.upper()}</text>')
        if mark is not None:
            parts.append(f'<text x="{x + TILE - 3}" y="{y + 10}" text-anchor="end" font-family="sans-serif" '
                         f'font-size="8" fill="{INK}">{mark}</text>')
        parts.append("</g>")
    if legend:
        parts.append(f'<text x="{MARGIN}" y="{height - MARGIN + 4}" font-family="sans-serif" font-size="12" fill="white">{escape(legend)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _shade(fraction: float) -> str:
    """Early peels pale orange, late peels deep orange."""
    light, deep = (250, 205, 140), (232, 120, 40)
    r, g, b = (round(a + (z - a) * fraction) for a, z in zip(light, deep, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"
