"""models: the constraint models, one puzzle per module (CP-SAT, classic CP), and the CP-SAT running helpers.
May import: models, heuristics, core (and ortools)."""
