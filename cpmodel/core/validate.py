"""Independent validators: check an answer against its spec, nothing else.

A validator uses only the spec's word lists as plain sets, never a solver's
tries, bitsets or tables, so a solver bug cannot hide behind a shared data
structure. Every answer is validated before it is shown.
"""

from __future__ import annotations

from cpmodel.core.specs import RectangleSpec

_KEPT = 8  # word lists whose set and rank map stay built
_sets: dict[int, tuple[tuple[str, ...], frozenset]] = {}
_ranks: dict[int, tuple[tuple[str, ...], dict]] = {}


def word_set(words: tuple[str, ...]) -> frozenset:
    """The list as a set, built once per list object: an enumeration validates
    every solution against the same lists (building the sets of the full 5×6
    lexicon took ~1 ms per solution). The entry holds the list, so its id stays its own."""
    entry = _sets.get(id(words))
    if entry is None or entry[0] is not words:
        if len(_sets) >= _KEPT:
            _sets.clear()
        entry = _sets[id(words)] = (words, frozenset(words))
    return entry[1]


def word_ranks(words: tuple[str, ...]) -> dict[str, int]:
    """word → its index in the list (its rank), built once per list object, as word_set."""
    entry = _ranks.get(id(words))
    if entry is None or entry[0] is not words:
        if len(_ranks) >= _KEPT:
            _ranks.clear()
        entry = _ranks[id(words)] = (words, {w: r for r, w in enumerate(words)})
    return entry[1]


def rectangle_problems(spec: RectangleSpec, rows: tuple[str, ...] | list[str]) -> list[str]:
    """Every rule the rectangle breaks, as readable strings (empty = valid)."""
    if len(rows) != spec.m or any(len(r) != spec.n for r in rows):
        return [f"shape is not {spec.m} rows of {spec.n} letters: {list(rows)}"]
    problems = []
    columns = ["".join(r[j] for r in rows) for j in range(spec.n)]
    row_set, col_set = word_set(spec.row_words), word_set(spec.col_words)
    problems += [f"row {i + 1} {w!r} is not an allowed word" for i, w in enumerate(rows) if w not in row_set]
    problems += [f"column {j + 1} {w!r} is not an allowed word" for j, w in enumerate(columns) if w not in col_set]
    if spec.first_row is not None and rows[0] not in spec.first_row:
        problems.append(f"row 1 {rows[0]!r} is not among the words this job allows there")
    if spec.first_col is not None and columns[0] not in spec.first_col:
        problems.append(f"column 1 {columns[0]!r} is not among the words this job allows there")
    if spec.pattern is not None:
        # rows' shape is checked above; a validator reports problems, it does not raise
        for i, (row, want) in enumerate(zip(rows, spec.pattern, strict=False)):
            problems += [
                f"cell ({i + 1},{j + 1}) is {got!r}, pattern fixes {fixed!r}"
                for j, (got, fixed) in enumerate(zip(row, want, strict=False))
                if fixed != "." and got != fixed
            ]
    if spec.distinct:
        words = list(rows) + columns
        repeated = sorted({w for w in words if words.count(w) > 1})
        problems += [f"word {w!r} is used more than once" for w in repeated]
    if spec.symmetric and list(rows) != columns:
        problems.append("rows differ from columns in a symmetric square")
    return problems


def check_rectangle(spec: RectangleSpec, rows) -> None:
    """Raise AssertionError naming the broken rules: a solver bug, never user error."""
    problems = rectangle_problems(spec, rows)
    if problems:
        raise AssertionError("invalid rectangle from solver: " + "; ".join(problems))


def rank_objective(spec: RectangleSpec, rows) -> tuple[int, int]:
    """Knuth's commonness criterion: (largest word rank, sum of word ranks),
    where a word's rank is its index in its own slot list."""
    row_rank, col_rank = word_ranks(spec.row_words), word_ranks(spec.col_words)
    columns = ["".join(r[j] for r in rows) for j in range(spec.n)]
    ranks = [row_rank[w] for w in rows] + [col_rank[w] for w in columns]
    return max(ranks), sum(ranks)


def wordscapes_problems(spec, rows) -> list[str]:
    """Every Wordscapes rule the filled board breaks (empty = valid)."""
    from collections import Counter

    from cpmodel.core.specs import spellable

    board = spec.board
    letters = {(r, c): rows[r][c] for (r, c) in board.cells if r < len(rows) and c < len(rows[r])}
    problems = [f"cell {cell} is not filled" for cell in board.cells if not letters.get(cell, "").isalpha()]
    problems += [f"cell {cell} is {letters.get(cell)!r}, pre-filled {fixed!r}"
                 for cell, fixed in board.cells.items() if fixed and letters.get(cell) != fixed]
    if problems:
        return problems
    wheel = Counter(spec.wheel)
    words = ["".join(letters[cell] for cell in slot) for slot in spec.slots]
    for slot, word, allowed in zip(spec.slots, words, spec.candidates, strict=True):
        if len(word) < spec.min_len:
            problems.append(f"{word!r} at {slot[0]} is shorter than {spec.min_len}")
        if not spellable(word, wheel):
            problems.append(f"{word!r} at {slot[0]} cannot be spelled from {spec.wheel!r}")
        if word not in allowed:
            problems.append(f"{word!r} at {slot[0]} is not a dictionary word of that slot")
    repeated = sorted({w for w in words if words.count(w) > 1})
    problems += [f"word {w!r} is used more than once" for w in repeated]
    problems += [f"lone cell {cell} holds {letters[cell]!r}, not a wheel letter" for cell in spec.lone_cells if letters[cell] not in wheel]
    return problems


def check_wordscapes(spec, rows) -> None:
    problems = wordscapes_problems(spec, rows)
    if problems:
        raise AssertionError("invalid Wordscapes fill from solver: " + "; ".join(problems))


def banana_problems(cells: dict, hand: str | None, word_set) -> list[str]:
    """Every Bananagrams rule the layout breaks, saying which and where.

    Rule 1: the placed letters are exactly the hand (skipped when hand is None).
    Rule 2: the occupied cells are 4-connected (networkx components).
    Rule 3: every maximal run of ≥ 2 letters is a word."""
    from collections import Counter

    import networkx as nx

    from cpmodel.core.boards import maximal_runs

    problems = []
    if hand is not None:
        placed, wanted = Counter(cells.values()), Counter(hand)
        missing, extra = wanted - placed, placed - wanted
        if missing:
            problems.append("rule 1: tiles not placed: " + "".join(sorted(missing.elements())))
        if extra:
            problems.append("rule 1: tiles placed but not in the hand: " + "".join(sorted(extra.elements())))
    graph = nx.Graph()
    graph.add_nodes_from(cells)
    graph.add_edges_from(((r, c), (r + dr, c + dc)) for (r, c) in cells for dr, dc in ((0, 1), (1, 0)) if (r + dr, c + dc) in cells)
    islands = sorted(nx.connected_components(graph), key=len, reverse=True) if cells else []
    if len(islands) > 1:
        where = "; ".join(f"{len(i)} tile(s) at {min(i)}" for i in islands[1:])
        problems.append(f"rule 2: {len(islands)} islands, not one connected layout; apart from the largest: {where}")
    problems += [f"rule 3: {word!r} {direction} at row {start[0]}, column {start[1]} is not a word"
                 for word, start, direction in maximal_runs(cells) if word not in word_set]
    return problems


def check_banana(cells: dict, hand: str, word_set) -> None:
    problems = banana_problems(cells, hand, word_set)
    if problems:
        raise AssertionError("invalid layout from solver: " + "; ".join(problems))


def rack_word_problems(word: str, rack: str, blanks: tuple[int, ...], word_set) -> list[str]:
    """A word found from a rack: in the dictionary, and its non-blank letters
    (all but the positions in ``blanks``) fit the rack's letters."""
    from collections import Counter

    problems = [] if word in word_set else [f"{word!r} is not a dictionary word"]
    tiles = Counter(c for c in rack if c != "?")
    needed = Counter(c for k, c in enumerate(word) if k not in blanks)
    if needed - tiles:
        problems.append(f"{word!r} needs {''.join(sorted((needed - tiles).elements()))} beyond the rack {rack!r}")
    if len(blanks) > rack.count("?"):
        problems.append(f"{word!r} uses {len(blanks)} blanks, the rack has {rack.count('?')}")
    return problems


def grid_word_problems(board, word: str, path, word_set) -> list[str]:
    """A word found on a grid board: a dictionary word spelled by a path of
    distinct, 8-neighbour-adjacent tiles."""
    problems = [] if word in word_set else [f"{word!r} is not a dictionary word"]
    if len(set(path)) != len(path):
        problems.append(f"the path of {word!r} uses a tile twice")
    if any(max(abs(a - c), abs(b - d)) != 1 for (a, b), (c, d) in zip(path, path[1:], strict=False)):
        problems.append(f"the path of {word!r} jumps between tiles that do not touch")
    if "".join(board.tile(r, c).text for r, c in path) != word:
        problems.append(f"the path of {word!r} spells something else")
    return problems


def check_all(problems: list[str], what: str) -> None:
    if problems:
        raise AssertionError(f"invalid {what} from solver: " + "; ".join(problems))
