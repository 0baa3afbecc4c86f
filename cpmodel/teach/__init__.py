"""teach: the teaching tools: explain (a model's anatomy), compare (a seeded suite on every engine), model statistics.
May import: teach, show, run, models, heuristics, core."""
