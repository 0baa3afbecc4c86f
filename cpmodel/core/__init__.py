"""core: the solver-free pieces: specs, lexicon, DAWG, validator, results, control, jobs, errors, boards, scoring.
May import: core only (and the standard library, numpy, networkx, wordfreq, kjxqz); never ortools."""
