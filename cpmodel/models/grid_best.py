r"""The best Boggle board as a CP-SAT model: the constraint side of grid --best --prove.

Problem. Choose a letter for every cell of an R×C board so that the total
Boggle score of the words on it is as large as possible (each word counted
once, whatever the number of paths that spell it; ``q`` is the Qu tile).

Variables.
    x[c, ℓ] ∈ {0, 1}      cell c shows letter ℓ
    y[w, p] ∈ {0, 1}      word w is spelled along the path p (a sequence of
                          distinct, adjacent cells as long as w's tiles)
    f[w]    ∈ {0, 1}      word w is on the board

Constraints.
    (1) Σ_ℓ x[c, ℓ] = 1                        one letter per cell
    (2) y[w, p] ≤ x[p_i, w_i]   for each i      a path spells w only if its cells show w's letters
    (3) f[w] ≤ Σ_p y[w, p]                      a word counts only if some path spells it
    (4) x[c, ℓ] = 0 for letters no word uses     (they can only lose points)

Objective.
    maximise Σ_w points(w) · f[w]

Maximisation pushes f[w] and y[w, p] up to what the letters allow, so the
optimum is the best board's score. The model's size is the number of
(word, path) pairs: every word times every path of its length. On 2×2 that
is 24 paths per 3- or 4-tile word; on 3×3 there are tens of thousands of
paths of each length, so the model outgrows memory long before CP-SAT
starts (benchmarks/grid_prove.py measures where it stops paying).
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from cpmodel.core.scoring import ScoreTable, points_for_length


@dataclass
class GridBestVars:
    letters: dict  # (cell, letter) → BoolVar
    found: dict  # word → BoolVar
    pairs: int  # (word, path) pairs in the model


def grid_paths(rows: int, cols: int, length: int) -> list[tuple[int, ...]]:
    """Every path of ``length`` distinct, 8-neighbour-adjacent cells."""
    def near(a: int, b: int) -> bool:
        return a != b and abs(a // cols - b // cols) <= 1 and abs(a % cols - b % cols) <= 1

    paths: list[tuple[int, ...]] = [(c,) for c in range(rows * cols)]
    for _ in range(length - 1):
        paths = [p + (c,) for p in paths for c in range(rows * cols) if c not in p and near(p[-1], c)]
    return paths


def build_model(rows: int, cols: int, words, table: ScoreTable, max_pairs: int = 2_000_000):
    """(model, GridBestVars); ValueError when the model would exceed ``max_pairs`` (word, path) pairs."""
    n = rows * cols
    tiles = {}
    for word in words:
        folded = word.replace("qu", "q")
        if 3 <= len(word) and len(folded) <= n and "q" not in word.replace("qu", "") and word.isalpha():
            worth = points_for_length(table.length_points, len(word))
            if worth > 0:
                tiles[word] = (folded, worth)
    by_length = {k: grid_paths(rows, cols, k) for k in {len(f) for f, _ in tiles.values()}}
    pairs = sum(len(by_length[len(f)]) for f, _ in tiles.values())
    if pairs > max_pairs:
        raise ValueError(f"{pairs:,} (word, path) pairs on {rows}x{cols}: too big for a CP-SAT model")
    used = sorted({ch for f, _ in tiles.values() for ch in f})
    model = cp_model.CpModel()
    x = {(c, ch): model.new_bool_var(f"x{c}{ch}") for c in range(n) for ch in used}
    # (1) one letter per cell ((4): only letters some word uses are offered)
    for c in range(n):
        model.add_exactly_one(x[c, ch] for ch in used)
    found = {}
    objective = []
    for word, (folded, worth) in tiles.items():
        spelled = []
        for path in by_length[len(folded)]:
            y = model.new_bool_var("")
            # (2) a path spells the word only where its cells show the word's letters
            for cell, ch in zip(path, folded, strict=True):
                model.add_implication(y, x[cell, ch])
            spelled.append(y)
        f = model.new_bool_var(f"f_{word}")
        # (3) a word counts only if some path spells it
        model.add_bool_or(spelled).only_enforce_if(f)
        found[word] = f
        objective.append(worth * f)
    model.maximize(sum(objective))
    return model, GridBestVars(x, found, pairs)


def solve(rows: int, cols: int, words, table: ScoreTable, time_limit: float | None = None, workers: int = 2):
    """(status name, best score found, proven bound, board letters, seconds, pairs)."""
    model, v = build_model(rows, cols, words, table)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers  # the machine's cores
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = time_limit
    status = solver.solve(model)
    board = ""
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        for c in range(rows * cols):
            board += next(ch for (cell, ch), var in v.letters.items() if cell == c and solver.value(var))
    return (solver.status_name(status), int(solver.objective_value) if board else None,
            int(solver.best_objective_bound), board, solver.wall_time, v.pairs)


if __name__ == "__main__":
    import sys

    from cpmodel.core.lexicon import load_file
    from cpmodel.core.scoring import score_table

    size, path = sys.argv[1], sys.argv[2]
    r, c = map(int, size.split("x"))
    print(solve(r, c, load_file(path).words, score_table("boggle"), time_limit=120))
