"""heuristics: native searches beside the models: backtrackers, rack and grid finders, kernels, peel, the game.
May import: heuristics and cpmodel.core only; never ortools."""
