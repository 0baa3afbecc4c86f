"""2. The 5×6 rectangle, and how the three encodings of "is a word" differ.

    python examples/02_rectangle_encodings.py [TOP]     (default TOP = 3000)

Same problem, three models (cpmodel/models/rectangle.py): a table per line, one-hot
word selectors, or an automaton over the minimal DAWG. We print each model's
size and the time to a first rectangle (or the proof that none exists).
"""

import sys
import time

from cpmodel.core.control import Control, Request
from cpmodel.core.dawg import build_dawg
from cpmodel.core.lexicon import load_default
from cpmodel.core.specs import rectangle_spec
from cpmodel.models import rectangle
from cpmodel.teach.modelinfo import constraint_counts

top = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
spec = rectangle_spec(5, 6, load_default(), top=top)
dawg = build_dawg(spec.row_words)
print(f"{len(spec.row_words)} six-letter words; their minimal DAWG has {dawg.num_states} states "
      f"and {len(dawg.transitions)} arcs (the table has {len(spec.row_words)} tuples of 6)")

for encoding in rectangle.ENCODINGS:
    model, _ = rectangle.build_model(spec, encoding)
    counts = dict(constraint_counts(model))
    started = time.perf_counter()
    result = rectangle.solve(spec, Request(), Control(time_limit=60), encoding=encoding)
    print(f"{encoding:9} {len(model.proto.variables):7,} variables {counts}  ->  {result.status} "
          f"in {time.perf_counter() - started:.2f} s, {result.stats['branches']:,} branches")
    if result.solutions:
        print("          " + " / ".join(result.solutions[0]))
