"""cpmodel: word puzzles stated as constraint programs, from Python.

One function per puzzle (:func:`solve_rect`, :func:`solve_wordscapes`,
:func:`solve_banana`, :func:`find_words`, :func:`grid_words`), each taking
the puzzle as you would type it on the command line, a :class:`Lexicon`
from :func:`load_lexicon` (the default dictionary when left out) and an
``engine`` (:func:`engine_names` lists them): ``"cpsat"`` (the OR-Tools
CP-SAT model), ``"cp"`` (OR-Tools' classic CP solver), ``"backtrack"`` (the
native search) or ``"auto"`` (a race of those that apply, in child processes). Solvers return a :class:`SolveResult` whose
``status`` is ``found``, ``none`` (proven) or ``unknown`` (stopped early);
every solution in it has passed the validator.

>>> import cpmodel
>>> words = cpmodel.load_lexicon("bit ice ten BAT ate tea eat net tin nit")
>>> len(words), words.words[:3]
(10, ('bit', 'ice', 'ten'))
>>> square = cpmodel.solve_rect("3x3", words, engine="backtrack", limit=None)
>>> square.status, square.count, square.solutions[0]
('found', 11, ('bit', 'ice', 'ten'))
>>> cpmodel.solve_rect("3x3", words, count=True).count  # CP-SAT agrees
11
>>> cpmodel.find_words("tien", words)
['net', 'nit', 'ten', 'tin']
>>> cpmodel.find_words("tien", words, by="common")
['ten', 'net', 'tin', 'nit']
>>> layout = cpmodel.solve_banana("ta e", cpmodel.load_lexicon("ate eat tea at"))
>>> layout.status, layout.solutions[0]
('found', ('ate',))
>>> cpmodel.engine_names("banana")
['backtrack', 'cpsat']

Everything here is a thin layer over the command line's own pieces:
:mod:`cpmodel.core.specs` (input text → spec), :class:`cpmodel.core.jobs.Job` (a
solve as plain data) and :func:`cpmodel.run.engines.run` (the engine registry).
"""

from __future__ import annotations

import sys
import types
from functools import lru_cache

__all__ = ["__version__", "load_lexicon", "solve_rect", "solve_wordscapes", "solve_banana", "find_words",
           "grid_words", "engine_names", "run", "Job",
           "Lexicon", "SolveResult", "InputError"]


class _Package(types.ModuleType):
    """This package, whose attribute ``run`` stays the API function :func:`run`.

    The room cpmodel/run/ has the same name, and Python binds a subpackage to
    its parent's attribute when it is imported: without this, the first import
    of cpmodel.run.engines would turn ``cpmodel.run(job)`` into a module. Import
    the room's modules as ``from cpmodel.run import engines`` (``import
    cpmodel.run.engines`` cannot reach them through ``cpmodel.run``)."""

    def __setattr__(self, name: str, value) -> None:
        if name == "run" and isinstance(value, types.ModuleType):
            return  # the room is in sys.modules["cpmodel.run"]; the attribute stays the function
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    """Lazy re-exports, so that ``import cpmodel`` loads neither ortools nor the word list
    (nor importlib.metadata: the CLI takes over Ctrl-C right after ``import cpmodel``)."""
    if name == "__version__":
        return _version()
    if name == "Lexicon":
        from cpmodel.core.lexicon import Lexicon
        return Lexicon
    if name == "SolveResult":
        from cpmodel.core.result import SolveResult
        return SolveResult
    if name == "Job":
        from cpmodel.core.jobs import Job
        return Job
    if name == "InputError":
        from cpmodel.core.errors import InputError
        return InputError
    raise AttributeError(f"module 'cpmodel' has no attribute {name!r}")


def load_lexicon(words=None, *, path=None, top: int | None = None):
    """A :class:`Lexicon`, most common word first.

    ``words``: a list or a whitespace-separated string, in rank order
    (case-folded; duplicates and non a–z entries dropped). ``path``: a word
    file as for ``--dict`` (one word per line, or ``word count`` lines ranked
    by count). Neither: the default dictionary (kjxqz ranked by wordfreq).
    ``top``: keep the ``top`` most common words of each length.

    >>> load_lexicon(["Stab", "bats", "TABS", "st-ab"], top=1).words
    ('stab',)
    """
    from cpmodel.core.lexicon import Lexicon, load_file

    if words is not None and path is not None:
        raise ValueError("give words or path, not both")
    if words is not None:
        chosen = Lexicon(words)
    elif path is not None:
        chosen = load_file(path)
    else:
        chosen = _default_lexicon()
    return chosen.top(top)


@lru_cache(maxsize=1)
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cpmodel")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


@lru_cache(maxsize=1)
def _default_lexicon():
    from cpmodel.core.lexicon import load_default

    return load_default()


def _request(limit, count: bool, best: bool):
    from cpmodel.core.control import Request

    if best:
        return Request(limit=None, best=True)
    return Request(limit=None if count else limit, count_only=count)


def solve_rect(size: str, lexicon=None, *, engine: str = "cpsat", limit: int | None = 1, count: bool = False,
              best: bool = False, top: int | None = None, pattern: str | None = None, distinct: bool = False,
              symmetric: bool = False, time_limit: float | None = None, **options):
    """An m×n word rectangle (``"5x6"``): m rows of n-letter words whose columns are words.

    ``limit`` solutions (``None``: all), or ``count=True`` for a count only,
    or ``best=True`` for the most familiar one (smallest largest rank, then
    rank sum). ``options`` go to the engine: ``encoding`` (cpsat: table,
    onehot, automaton), ``orientation`` (backtrack), ``params`` (CP-SAT
    parameter lines such as ``("cp_model_presolve: false",)``).
    """
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import parse_pattern, parse_size, rectangle_spec

    m, n = parse_size(size)
    words = lexicon if lexicon is not None else _default_lexicon()
    spec = rectangle_spec(m, n, words, top=top, pattern=parse_pattern(pattern, m, n) if pattern else None,
                          distinct=distinct, symmetric=symmetric)
    return run(Job("rect", spec, engine, _request(limit, count, best), time_limit, options))


def solve_wordscapes(board: str, letters: str, lexicon=None, *, engine: str = "cpsat", limit: int | None = 1,
               count: bool = False, best: bool = False, min_len: int = 3, top: int | None = None,
               time_limit: float | None = None, **options):
    """Fill a Wordscapes board (text: ``.`` open, ``#`` blocked, a letter pre-filled)
    with distinct words spelled from ``letters``. Modes as for :func:`solve_rect`."""
    from cpmodel.core.boards import parse_crossword
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import wordscapes_spec

    words = (lexicon if lexicon is not None else _default_lexicon()).top(top)
    spec = wordscapes_spec(parse_crossword(board), letters, words, min_len)
    return run(Job("wordscapes", spec, engine, _request(limit, count, best), time_limit, options))


def solve_banana(hand: str, lexicon=None, *, engine: str = "backtrack", time_limit: float | None = 60.0,
           top: int | None = None, **options):
    """A Bananagrams layout of every tile in ``hand`` (``"aeinrst lpq"``; spaces and
    commas are fine). The backtracker finds layouts fast but never proves
    ``none``; ``engine="cpsat"`` can. ``options``: ``mode`` (free, crossing),
    ``encoding`` (automaton, table), ``params``."""
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import banana_spec

    words = (lexicon if lexicon is not None else _default_lexicon()).top(top)
    return run(Job("banana", banana_spec(hand, words), engine, time_limit=time_limit, options=options))


def find_words(letters: str, lexicon=None, *, min_len: int = 3, max_len: int | None = None, top: int | None = None,
          by: str = "length") -> list[str]:
    """Every word spellable from ``letters`` (``?`` is a blank), each tile at most once.

    ``by="length"``: longest first, then alphabetical; ``by="common"``: most
    common first."""
    from heuristics.words import WordIndex
    from heuristics.words import find_words as spell

    chosen = (lexicon if lexicon is not None else _default_lexicon()).top(top)
    found = [f.word for f in spell(WordIndex(chosen.words), letters.strip().lower(), min_len, max_len)]
    if by == "common":
        found.sort(key=chosen.rank_of.__getitem__)
    return found


def grid_words(board: str, lexicon=None, *, score: str = "boggle", min_len: int = 3, max_len: int | None = None,
         top: int | None = None):
    """Every word on a Boggle/WordHero/Scramble board (``"abc/def/ghi"``), best score first,
    each with its ``score`` and ``path``."""
    from cpmodel.core.boards import parse_grid
    from cpmodel.core.scoring import score_table
    from heuristics.grid import find_words
    from heuristics.words import build_trie

    chosen = (lexicon if lexicon is not None else _default_lexicon()).top(top)
    return find_words(parse_grid(board), build_trie(chosen.words), score_table(score), min_len, max_len)


def engine_names(puzzle: str) -> list[str]:
    """The engine names that can answer ``puzzle`` ("rect", "wordscapes", "banana")."""
    from cpmodel.run.engines import engines_for

    return engines_for(puzzle)


def run(job, on_solution=None):
    """Run a :class:`Job` on its engine in this process (see :func:`cpmodel.run.engines.run`),
    or, for ``engine="auto"``, race the engines that apply in child processes
    (:func:`cpmodel.run.portfolio.race`; the answer's ``stats["portfolio"]`` says who answered).

    >>> words = load_lexicon("bit ice ten BAT ate tea eat net tin nit")
    >>> square = solve_rect("3x3", words, engine="auto", best=True)
    >>> square.status, square.complete, square.stats["portfolio"]["answered"]
    ('found', True, 'backtrack')
    """
    if job.engine == "auto":
        from cpmodel.run.portfolio import portfolio_plan, race

        return race(job, portfolio_plan(job.puzzle, job.request.best), job.new_control(), on_solution)
    from cpmodel.run import engines as registry

    return registry.run(job, on_solution=on_solution)
