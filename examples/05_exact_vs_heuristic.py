"""5. Exact against heuristic on the same Bananagrams hands.

    python examples/05_exact_vs_heuristic.py [TILES] [HANDS]   (default 11 tiles, 3 hands)

The backtracker (crossing and free modes) is fast but can only say "found"
or "unknown"; CP-SAT is slower but can also prove "none" (try the hand qqq).
Every layout is validated before it is counted.
"""

import sys

from cpmodel.core.control import Control
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import banana_spec, draw_hand
from cpmodel.models import bananagrams as exact
from heuristics import bananagrams as heuristic

tiles = int(sys.argv[1]) if len(sys.argv) > 1 else 11
hands = int(sys.argv[2]) if len(sys.argv) > 2 else 3
lexicon = load_default()
print(f"{'hand':<24} {'crossing':>16} {'free':>16} {'cp-sat':>16}")
for seed in range(hands):
    spec = banana_spec(draw_hand(tiles, seed), lexicon)
    runs = [heuristic.solve(spec, "crossing"), heuristic.solve(spec, "free"), exact.solve(spec, Control(time_limit=60))]
    print(f"{spec.hand:<24} " + " ".join(f"{r.status + f' {r.seconds:.2f}s':>16}" for r in runs))
