r"""Algorithm B for m×n word rectangles (TAOCP 7.2.2, exercise 24).

The search fills *lines* one per level: either the m rows (n-letter words,
checked against a trie of the m-letter column words) or, transposed, the
n columns (checked against a trie of the row words). Say we fill K lines of
length W whose W crossing lines have length K.

State after level l: the chosen lines x_1..x_l and, for each crossing line
j, its prefix  π_j = x_{1j} x_{2j} … x_{lj}.

Cutoff (Knuth's P_l):  every π_j is a prefix of some crossing word; at
l = K every π_j is a crossing word.

Data structures (built once per search):

* ``words``       the fill words in rank order; bit i of a bitset ↔ words[i].
* ``LETTER[j][c]``  bitset of fill words with letter c at position j.
* ``NEXT[π]``     the letters c such that πc is a crossing-word prefix: the
  trie of the crossing words, stored as prefix → child letters (T_l).

The candidates at level l+1 are computed in a few big-integer operations,

    C = ⋂_j ⋃_{c ∈ NEXT[π_j]} LETTER[j][c],

which is exactly the set of words w with  T_{l+1}(π_j w_j) = 1  for all j,
so no candidate is ever tried and rejected: every word taken from C is a
node that passes the cutoff. The union for (j, NEXT[π]) is memoised, and so
is the *step table* A_j[c] = the candidates of the next line if π_j grows by
c: a node computes each child's candidate set as ⋂_j A_j[w_j], one unrolled
chain of big-integer ANDs per word, which is the search's innermost loop.
At the last level C *is* the set of completions, so ``--count`` adds
``C.bit_count()`` instead of visiting each leaf.

The search is exact: it reports every rectangle once (a rectangle is
determined by its lines) and ``none`` only after exhausting the tree.
Effort is counted in nodes per level (Knuth's profile), which unlike seconds
does not drift with machine load.

``--best`` is branch and bound on (largest rank, sum of ranks): once a
rectangle with largest rank B is known, the fill words and the crossing
trie are cut to ranks ≤ B, and the search goes on from where it was. A
request may bring a bound of its own (another shard's best): the search then
starts with the tables cut to it and reports only strictly better rectangles.
A bound can also arrive while the search runs (``Control.incumbent``: the
other stripes of a parallel --best); it is read at every poll and cuts the
tables the same way.

Before the branch and bound, a *probe ladder* looks for any rectangle among
the top r words, r = 256, 1024, 4096, … (each probe is a first-solution
search on tables cut to r). The first probe that succeeds hands the branch
and bound a bound near the optimum; the failed ones are cheap because the
search's cost grows steeply with r. Measured on 5×6 (benchmarks/front_door.py):
the bound from the first rectangle of the full lists is 15,401, the ladder's is
3,823 (top 4096, after proofs that top 256 and 1024 hold none), and the whole
--best run visits fewer nodes.

The tables depend only on the word lists, so the last few built are kept
(:func:`tables_for`): many jobs over one lexicon, such as the shards of a
parallel run in one worker process, build them once, memos included.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cpmodel.core.control import Control, Request, SearchStopped
from cpmodel.core.result import SolveResult, status_of
from cpmodel.core.specs import RectangleSpec
from cpmodel.core.validate import check_rectangle, rank_objective

_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_CHECK_EVERY = 1024  # _descend calls between polls of the stop flag and the clock
PROBE_START, PROBE_FACTOR = 256, 4  # the --best probe ladder: top 256, 1024, 4096, ... words


class _ProbeFound(Exception):
    """A probe of the ladder found its first rectangle (recorded by _improve)."""


@dataclass
class Tables:
    """The fill bitsets and the crossing trie for one orientation."""

    words: tuple[str, ...]
    codes: list[tuple[int, ...]]  # words[i] as letter numbers 0..25
    letter_bits: list[dict[str, int]]  # LETTER[j][c]
    next_letters: dict[str, str]  # NEXT[π]
    first_next: dict[str, str] | None  # NEXT[π] for crossing line 0 when a job restricts it
    union_memo: list[dict[str, int]]  # (j, NEXT[π]) → ⋃_c LETTER[j][c]
    step_memo: list[dict[str, list[int]]]  # (j, π) → [allowed(j, πc) for c in a..z]

    @classmethod
    def build(cls, fill_words, cross_words, width: int, first_cross=None) -> Tables:
        positions: list[dict[str, list[int]]] = [{} for _ in range(width)]
        for index, word in enumerate(fill_words):
            for j, letter in enumerate(word):
                positions[j].setdefault(letter, []).append(index)
        letter_bits = [{c: _bitset(ix, len(fill_words)) for c, ix in pos.items()} for pos in positions]
        next_letters = _trie(cross_words)
        first_next = None if first_cross is None else _trie(set(first_cross) & set(cross_words))
        codes = [tuple(ord(c) - 97 for c in w) for w in fill_words]
        empty: list[dict[str, int]] = [{} for _ in range(width)]
        return cls(tuple(fill_words), codes, letter_bits, next_letters, first_next, empty, [{} for _ in range(width)])

    def allowed(self, j: int, prefix: str) -> int:
        """Fill words whose letter j extends π_j = prefix (0 if prefix is dead)."""
        trie = self.first_next if j == 0 and self.first_next is not None else self.next_letters
        letters = trie.get(prefix, "")
        memo = self.union_memo[j]
        bits = memo.get(letters)
        if bits is None:
            bits = 0
            for c in letters:
                bits |= self.letter_bits[j].get(c, 0)
            memo[letters] = bits
        return bits

    def step(self, j: int, prefix: str) -> list[int]:
        """A_j: for each letter c, the next line's candidates at j if π_j grows by c.

        With A_j in hand, a word w's child candidate set is ⋂_j A_j[w_j],
        one C-level reduce per word instead of six trie look-ups."""
        table = self.step_memo[j].get(prefix)
        if table is None:
            table = [self.allowed(j, prefix + c) for c in _ALPHABET]
            self.step_memo[j][prefix] = table
        return table


def _trie(words) -> dict[str, str]:
    """NEXT: each prefix of the words → the letters that extend it."""
    children: dict[str, set[str]] = {}
    for word in words:
        for k in range(len(word)):
            children.setdefault(word[:k], set()).add(word[k])
    return {prefix: "".join(sorted(cs)) for prefix, cs in children.items()}


_TABLES_KEPT = 4  # word-list pairs whose tables stay built (a --best run cuts a few)
_tables_cache: dict[tuple, Tables] = {}


def tables_for(fill_words: tuple[str, ...], cross_words: tuple[str, ...], width: int, first_cross=None) -> Tables:
    """The tables of these word lists, built once per process and reused."""
    key = (width, tuple(fill_words), tuple(cross_words), None if first_cross is None else tuple(first_cross))
    tables = _tables_cache.pop(key, None)
    if tables is None:
        tables = Tables.build(fill_words, cross_words, width, first_cross)
        while len(_tables_cache) >= _TABLES_KEPT:
            _tables_cache.pop(next(iter(_tables_cache)))  # the least recently used
    _tables_cache[key] = tables
    return tables


def _members(bits: int) -> list[int]:
    """Indices of the set bits, lowest (most common word) first.

    A sparse set is peeled bit by bit; a dense one is read off its binary
    string with str.find, which is cheaper once there are more than ~20 members
    (each peel allocates big integers; bin() costs ~5 µs per 5000 bits)."""
    if bits.bit_count() <= 20:
        members = []
        while bits:
            lowest = bits & -bits
            members.append(lowest.bit_length() - 1)
            bits ^= lowest
        return members
    digits = bin(bits)[:1:-1]  # digits[i] == "1" iff bit i is set
    members = []
    index = digits.find("1")
    while index >= 0:
        members.append(index)
        index = digits.find("1", index + 1)
    return members


def _and_chain(width: int):
    """``chain(steps, code) = steps[0][code[0]] & … & steps[W-1][code[W-1]]``.

    Written out for the given width and compiled once: the unrolled
    expression runs twice as fast as reduce(and_, map(getitem, …)), and it is
    the innermost operation of the whole search."""
    terms = " & ".join(f"steps[{j}][code[{j}]]" for j in range(width))
    return eval(f"lambda steps, code: {terms}")  # noqa: S307 - built from integers only


def _bitset(indices: list[int], size: int) -> int:
    """Python int with the given bits set, built through bytes (fast)."""
    buffer = bytearray((size + 7) // 8)
    for i in indices:
        buffer[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buffer, "little")


def choose_orientation(spec: RectangleSpec) -> str:
    """'rows' or 'cols': which lines the search fills, one per level.

    * When one list is at most half as long as the other, fill from the short
      list, as Knuth's BACK-MXN-WORDS-NEW does: the long list then only feeds
      the crossing trie. On WORDS(1000) × 15,727 six-letter words (5×6,
      benchmarks/rect_knuth.py) this gives Knuth's profile level for level,
      2.23M nodes, where filling the six-letter rows takes 2.11M nodes but
      each over 16 times as many fill words.
    * Otherwise fill the direction whose lines are the longer words: fewer,
      longer fill lines each cut more crossing prefixes at once. On 5×6 with
      --top 5000, filling the 6-letter rows visits 12.3M nodes, filling the
      5-letter columns 38.7M. For a square, fill from the smaller list.
    * A job that restricts the first row's words (a shard of a parallel run,
      cpmodel/run/shards.py) fills rows, and one that restricts the first
      column's fills columns: the restriction then cuts the first level, so
      the shards split one tree. Restricting a crossing line instead makes
      every shard repeat the top of the tree: on WORDS(500), 256 such shards
      visited 3.8M nodes where one job visits 263k."""
    if spec.first_row is not None or spec.first_col is not None:
        return "rows" if spec.first_row is not None else "cols"
    rows, cols = len(spec.row_words), len(spec.col_words)
    if 2 * rows <= cols or 2 * cols <= rows:
        return "rows" if rows < cols else "cols"
    if spec.m == spec.n:
        return "rows" if rows <= cols else "cols"
    return "rows" if spec.n >= spec.m else "cols"


def batch_supported(spec: RectangleSpec, request: Request) -> bool:
    """The numpy kernel covers every mode but --best, --distinct and --symmetric."""
    return not (request.best or spec.distinct or spec.symmetric)


class RectangleSearch:
    """Algorithm B over one orientation of the spec.

    ``kernel`` says who visits the nodes: "python" (this class, the readable
    reference) or "numpy" (:mod:`heuristics.rectangle_numpy`, the same search
    in batches). Both report through this class: leaves, counts, profile."""

    def __init__(self, spec: RectangleSpec, request: Request, control: Control, orientation: str,
                 kernel: str = "python"):
        self.transpose = orientation == "cols"
        self.spec = spec.transposed() if self.transpose else spec
        self.user_spec = spec
        self.request = request
        self.control = control
        self.kernel = kernel
        self.levels = self.spec.m  # K lines of length W = spec.n
        self.profile = [0] * self.levels  # nodes entered at each level
        self.threshold = request.bound if request.best else None  # beat this (another shard's best)
        self.calls = 0
        self.solutions: list[tuple[str, ...]] = []
        self.count = 0
        self.best: tuple[int, int] | None = None
        self.probing = False  # inside a probe of the --best ladder
        self.floor = 0  # --best: every rectangle of this search has largest rank ≥ floor (proven by probes)
        self.leaf_checks = request.best or spec.distinct or request.on_solution is not None or not request.count_only
        if kernel == "python":  # the numpy kernel builds tables of its own
            self.fill_index = {w: i for i, w in enumerate(self.spec.row_words)}
            self._cut_tables(self.threshold[0] if self.threshold else None)
            self.chain = _and_chain(self.spec.n)

    def _cut_tables(self, largest_rank: int | None) -> None:
        """Use only words of rank ≤ largest_rank in both lists (None: every word)."""
        fill, cross = self.spec.row_words, self.spec.col_words
        if largest_rank is not None:
            fill, cross = fill[: largest_rank + 1], cross[: largest_rank + 1]
        self.bound = len(fill) if largest_rank is None else largest_rank  # largest fill rank allowed
        self.tables = tables_for(fill, cross, self.spec.n, self.spec.first_col)
        self.full = (1 << len(self.tables.words)) - 1
        self.level_masks = self._pattern_masks()

    def _pattern_masks(self) -> list[int]:
        """Per level, the fill words that agree with the fixed letters (and, on
        line 0, with the words the job allows there)."""
        masks = []
        for i in range(self.levels):
            mask = self.full
            row = self.spec.pattern[i] if self.spec.pattern else "." * self.spec.n
            for j, c in enumerate(row):
                if c != ".":
                    mask &= self.tables.letter_bits[j].get(c, 0)
            masks.append(mask)
        if self.spec.first_row is not None:
            size = len(self.tables.words)
            chosen = [k for k in map(self.fill_index.get, self.spec.first_row) if k is not None and k < size]
            masks[0] &= _bitset(chosen, size)
        return masks

    # -- the search ----------------------------------------------------------

    def root(self) -> int:
        """The candidates of line 0."""
        root = self.level_masks[0]
        for j in range(self.spec.n):
            root &= self.tables.allowed(j, "")
        return self._side_filter(0, (), root)

    def run(self) -> str | None:
        """Search the whole tree; return why it stopped early, or None."""
        try:
            if self.request.best:
                self._probe_ladder()
            if self.kernel == "numpy":
                from heuristics.rectangle_numpy import BatchSearch

                BatchSearch(self).run()
            else:
                self._descend(0, [""] * self.spec.n, (), self.root())
        except SearchStopped as stop:
            return stop.reason
        return None

    def _probe_ladder(self) -> None:
        """--best: a first rectangle among the top r words, r growing by PROBE_FACTOR,
        so that the branch and bound starts from a bound near the optimum."""
        largest = max(len(self.spec.row_words), len(self.spec.col_words))
        rank = PROBE_START - 1
        while rank < largest - 1 and ((to_beat := self._to_beat()) is None or rank < to_beat[0]):
            self._cut_tables(rank)
            self.probing = True
            try:
                self._descend(0, [""] * self.spec.n, (), self.root())
                self.floor = rank + 1  # proven: no rectangle here within ranks ≤ rank
            except _ProbeFound:
                break
            finally:
                self.probing = False
            rank = PROBE_FACTOR * (rank + 1) - 1
        to_beat = self._to_beat()
        self._cut_tables(to_beat[0] if to_beat else None)

    def _to_beat(self) -> tuple[int, int] | None:
        """The objective a new rectangle must improve on: our best, a given bound, another process's best."""
        known = [value for value in (self.best, self.threshold, self.control.outside_best()) if value is not None]
        return min(known) if known else None

    def probe(self, rng, root_members: list[int]) -> tuple[float, float]:
        """One random path down the tree (Knuth, Math. Comp. 29, 1975).

        At each level with d candidates take one at random; the products
        d_0, d_0·d_1, … estimate the nodes at each level, so their sum is an
        unbiased estimate of the nodes this search visits (its profile
        total), and the full product one of its leaves (the solutions, before
        --distinct's final check). Returns (nodes, leaves)."""
        chosen: tuple[str, ...]
        prefixes, chosen, members = [""] * self.spec.n, (), root_members
        weight, nodes = 1.0, 0.0
        for level in range(self.levels):
            if not members:
                return nodes, 0.0
            weight *= len(members)
            nodes += weight
            if level == self.levels - 1:
                return nodes, weight
            index = members[rng.randrange(len(members))]
            word = self.tables.words[index]
            steps = [self.tables.step(j, p) for j, p in enumerate(prefixes)]
            child = self.chain(steps, self.tables.codes[index]) & self.level_masks[level + 1]
            chosen += (word,)
            child = self._side_filter(level + 1, chosen, child)
            prefixes = [p + c for p, c in zip(prefixes, word, strict=True)]
            members = _members(child)
        return nodes, weight

    def _side_filter(self, level: int, chosen: tuple[str, ...], bits: int) -> int:
        """Remove candidates that break --symmetric or --distinct."""
        if self.spec.symmetric:  # square: x[level][j] = x[j][level] for j < level
            for j, line in enumerate(chosen):
                bits &= self.tables.letter_bits[j].get(line[level], 0)
        if self.spec.distinct:
            for line in chosen:
                bits &= ~(1 << self.fill_index[line])
        return bits

    def _descend(self, level: int, prefixes: list[str], chosen: tuple[str, ...], candidates: int) -> None:
        """Try every candidate for line ``level``; ``candidates`` already pass P_level.

        This loop runs ~10⁷ times on big searches, so per word it is a single
        unrolled AND chain over the step tables (see :func:`_and_chain`)."""
        self._poll()
        if level == self.levels - 1:
            self._leaves(chosen, candidates)
            return
        tables = self.tables
        steps = [tables.step(j, p) for j, p in enumerate(prefixes)]  # A_j
        next_mask = self.level_masks[level + 1]
        restricted = next_mask != self.full  # a pattern fixes letters of the next line
        count_leaves = level + 2 == self.levels and not self.leaf_checks
        side = self.spec.symmetric or self.spec.distinct
        codes, words, profile, chain = tables.codes, tables.words, self.profile, self.chain
        for index in _members(candidates):
            if index > self.bound:
                break  # --best lowered the bound below the remaining words
            profile[level] += 1
            child = chain(steps, codes[index])  # C_{level+1} = ⋂_j A_j[w_j]
            if restricted:
                child &= next_mask
            if not child:
                continue
            word = words[index]
            if side:
                child = self._side_filter(level + 1, chosen + (word,), child)
            if count_leaves:
                profile[level + 1] += child.bit_count()
                self._add_count(child.bit_count())
            elif child:
                self._descend(level + 1, [p + c for p, c in zip(prefixes, word, strict=True)], chosen + (word,), child)

    def _leaves(self, chosen: tuple[str, ...], candidates: int) -> None:
        """Every candidate on the last line completes a rectangle."""
        if not self.leaf_checks:
            self.profile[-1] += candidates.bit_count()
            self._add_count(candidates.bit_count())
            return
        for index in _members(candidates):
            if index > self.bound:
                break
            self.profile[-1] += 1
            self._leaf(chosen + (self.tables.words[index],))

    def _poll(self) -> None:
        """Every _CHECK_EVERY calls, publish progress and obey the stop flag and clock."""
        self.calls += 1
        if self.calls % _CHECK_EVERY == 0:
            self.poll_batch()
            if self.request.best and not self.probing:
                self._adopt_outside_bound()

    def poll_batch(self) -> None:
        """Publish progress; stop on Ctrl-C or the clock (the numpy kernel calls this per slice)."""
        self.control.nodes = sum(self.profile)
        reason = self.control.stop_reason()
        if reason:
            raise SearchStopped(reason)

    def _adopt_outside_bound(self) -> None:
        """Another process found a better rectangle: cut our tables to its largest rank."""
        outside = self.control.outside_best()
        if outside is not None and outside[0] < self.bound:
            self._cut_tables(outside[0])

    def _add_count(self, found: int) -> None:
        limit = self.request.limit
        if limit is not None:
            found = min(found, limit - self.count)
        self.count += found
        self.control.solutions = self.count
        if limit is not None and self.count >= limit:
            raise SearchStopped("limit")

    # -- leaves ----------------------------------------------------------------

    def _leaf(self, lines: tuple[str, ...]) -> None:
        rows = tuple("".join(col) for col in zip(*lines, strict=True)) if self.transpose else lines
        if self.user_spec.distinct and not _all_distinct(rows):
            return
        if self.request.best:
            self._improve(rows)
            return
        check_rectangle(self.user_spec, rows)
        if not self.request.count_only:
            self.solutions.append(rows)
        if self.request.on_solution:
            self.request.on_solution(rows)
        self._add_count(1)

    def _improve(self, rows: tuple[str, ...]) -> None:
        """Branch and bound: keep the better rectangle and cut ranks above its max."""
        check_rectangle(self.user_spec, rows)
        value = rank_objective(self.user_spec, rows)
        to_beat = self._to_beat()
        if to_beat is not None and value >= to_beat:
            return
        self.best = value
        self.solutions = [rows]
        self.count = 1
        self.control.solutions += 1
        self.control.objective = value  # the progress line shows the best so far
        self.control.offer(value)  # the other stripes of a parallel --best cut with it too
        if self.request.on_solution:
            self.request.on_solution(rows)
        self._cut_tables(value[0])  # ties on the max are still wanted (smaller sum)
        if self.probing:
            raise _ProbeFound()


def _all_distinct(rows: tuple[str, ...]) -> bool:
    columns = ["".join(col) for col in zip(*rows, strict=True)]
    words = list(rows) + columns
    return len(set(words)) == len(words)


def solve(
    spec: RectangleSpec,
    request: Request = Request(),
    control: Control | None = None,
    orientation: str = "auto",
    kernel: str = "auto",
) -> SolveResult:
    """Run Algorithm B; the result says honestly whether the search finished.

    ``kernel`` "auto" takes numpy where it applies (:func:`batch_supported`),
    else the pure-Python reference; "python" forces the reference and
    "numpy" the batches (an error where they do not apply)."""
    control = control or Control()
    started = time.perf_counter()
    if orientation == "auto":
        orientation = choose_orientation(spec)
    if kernel == "auto":
        kernel = "numpy" if batch_supported(spec, request) else "python"
    elif kernel == "numpy" and not batch_supported(spec, request):
        raise ValueError("the numpy kernel does not do --best, --distinct or --symmetric")
    search = RectangleSearch(spec, request, control, orientation, kernel)
    stopped_by = search.run()
    exhausted = stopped_by is None
    complete = exhausted or stopped_by == "limit"
    return SolveResult(
        solver="backtrack",
        status=status_of(search.count, exhausted),
        complete=complete,
        count=search.count,
        solutions=search.solutions,
        seconds=time.perf_counter() - started,
        stopped_by=stopped_by,
        objective=search.best,
        stats={"nodes": sum(search.profile), "profile": search.profile, "orientation": orientation, "kernel": kernel,
               **({"floor": search.floor} if request.best else {})},
    )
