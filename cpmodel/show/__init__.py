"""show: what a person or a script reads: rich rendering, SVG, and the JSON documents written whole.
May import: show, run, models, heuristics, core."""
