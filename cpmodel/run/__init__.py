"""run: how a job runs: registry, portfolio, shards and their driver, pools, checkpoint, estimate, supervisor, signals.
May import: run, models, heuristics, core; never show or commands (output goes to the callbacks and sinks passed in)."""
