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
    from cpmodel.core.errors import InputError
    from cpmodel.core.lexicon import Lexicon, load_file

    top = _top(top)
    if words is not None and path is not None:
        raise InputError("give words or path, not both")
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


# -- checks: the CLI's own (cpmodel.core.checks, cpmodel.core.specs), each error an InputError ----------

# The engine options each puzzle reads (Job.options), with their allowed values (None: checked apart).
_OPTIONS: dict[str, dict[str, tuple[str, ...] | None]] = {
    "rect": {"encoding": ("table", "onehot", "automaton"), "orientation": ("auto", "rows", "cols"),
             "order": ("letters", "rank"), "params": None, "log": None},
    "wordscapes": {"params": None, "log": None},
    "banana": {"mode": ("free", "crossing"), "encoding": ("automaton", "table"), "params": None, "log": None},
}


def _lexicon(lexicon, top=None):
    """The lexicon given (a :class:`Lexicon`) or the default, cut to ``top``."""
    from cpmodel.core.errors import InputError
    from cpmodel.core.lexicon import Lexicon

    top = _top(top)
    if lexicon is None:
        lexicon = _default_lexicon()
    elif not isinstance(lexicon, Lexicon):
        raise InputError(f"lexicon must be a Lexicon (see load_lexicon), got {type(lexicon).__name__}")
    return lexicon.top(top)


def _top(top):
    from cpmodel.core import checks

    return checks.optional("top", checks.whole, top, 1)


def _text(name: str, value) -> str:
    from cpmodel.core import checks

    return checks.named(name, checks.text, value)


def _engine(puzzle: str, engine) -> str:
    from cpmodel.core import checks

    return checks.named("engine", checks.choice, engine, [*engine_names(puzzle), "auto"])


def _options(puzzle: str, options: dict) -> dict:
    """Engine options as the CLI would build them: known names, allowed values, checked CP-SAT parameters."""
    from cpmodel.core import checks
    from cpmodel.core.errors import InputError

    known = _OPTIONS[puzzle]
    checked = {}
    for name, value in options.items():
        if name not in known:
            raise InputError(f"unknown option {name}={value!r:.40} for {puzzle} (known: {', '.join(known)})")
        if value is None:  # the engine's default, as when the CLI's option is left out
            continue
        if name == "params":
            checked[name] = _params(value)
        elif name == "log":
            checked[name] = checks.named(name, checks.flag, value)
        else:
            checked[name] = checks.named(name, checks.choice, value, known[name])
    return checked


def _params(value) -> tuple[str, ...]:
    """CP-SAT parameters as a list of ``"key=value"`` (or ``"key: value"``) strings, checked as --param is."""
    from cpmodel.core.errors import InputError

    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    if not isinstance(value, (list, tuple)) or not all(isinstance(line, str) for line in value):
        raise InputError(f"params must be a list of CP-SAT parameters such as ['num_workers=8'], got {value!r:.60}")
    from cpmodel.models.cpsat_run import parse_params

    pairs = [line if "=" in line else "=".join(part.strip() for part in line.partition(":")[::2]) for line in value]
    return parse_params(pairs)


def _request(limit, count, best):
    """The mode as a Request, checked as the CLI's --limit, --count and --best are."""
    from cpmodel.core import checks
    from cpmodel.core.control import Request
    from cpmodel.core.errors import InputError

    count, best = checks.named("count", checks.flag, count), checks.named("best", checks.flag, best)
    limit = checks.optional("limit", checks.whole, limit, 1)
    if count and best:
        raise InputError("count=True and best=True exclude each other")
    if best:
        return Request(limit=None, best=True)
    return Request(limit=None if count else limit, count_only=count)


def _seconds(time_limit):
    from cpmodel.core import checks

    return checks.optional("time_limit", checks.seconds, time_limit)


def _lengths(min_len, max_len) -> tuple[int, int | None]:
    from cpmodel.core import checks
    from cpmodel.core.errors import InputError

    min_len = checks.named("min_len", checks.whole, min_len, 1)
    max_len = checks.optional("max_len", checks.whole, max_len, 1)
    if max_len is not None and max_len < min_len:
        raise InputError(f"max_len ({max_len}) must not be below min_len ({min_len})")
    return min_len, max_len


# -- the puzzles -------------------------------------------------------------------------------------


def solve_rect(size: str, lexicon=None, *, engine: str = "cpsat", limit: int | None = 1, count: bool = False,
              best: bool = False, top: int | None = None, pattern: str | None = None, distinct: bool = False,
              symmetric: bool = False, time_limit: float | None = None, **options):
    """An m×n word rectangle (``"5x6"``): m rows of n-letter words whose columns are words.

    ``limit`` solutions (``None``: all), or ``count=True`` for a count only,
    or ``best=True`` for the most familiar one (smallest largest rank, then
    rank sum). ``options`` go to the engine: ``encoding`` (cpsat: table,
    onehot, automaton), ``orientation`` (backtrack: auto, rows, cols), ``order``
    (letters, rank), ``log``, ``params`` (CP-SAT parameters such as
    ``["cp_model_presolve=false"]``). Bad arguments raise :class:`InputError`
    with the command line's message.
    """
    from cpmodel.core import checks
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import parse_pattern, parse_size, rectangle_spec

    m, n = parse_size(_text("size", size))
    words = _lexicon(lexicon)
    top = _top(top)
    distinct, symmetric = checks.named("distinct", checks.flag, distinct), checks.named("symmetric", checks.flag, symmetric)
    fixed = None if pattern is None else parse_pattern(_text("pattern", pattern), m, n)
    request, time_limit = _request(limit, count, best), _seconds(time_limit)
    job = Job("rect", None, _engine("rect", engine), request, time_limit, _options("rect", options))
    spec = rectangle_spec(m, n, words, top=top, pattern=fixed, distinct=distinct, symmetric=symmetric)
    return run(replace_spec(job, spec))


def solve_wordscapes(board: str, letters: str, lexicon=None, *, engine: str = "cpsat", limit: int | None = 1,
               count: bool = False, best: bool = False, min_len: int = 3, top: int | None = None,
               time_limit: float | None = None, **options):
    """Fill a Wordscapes board (text: ``.`` open, ``#`` blocked, a letter pre-filled)
    with distinct words spelled from ``letters``. Modes as for :func:`solve_rect`;
    ``options``: ``log``, ``params``."""
    from cpmodel.core import checks
    from cpmodel.core.boards import parse_crossword
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import wordscapes_spec

    crossword, letters = parse_crossword(_text("board", board)), _text("letters", letters)
    min_len = checks.named("min_len", checks.whole, min_len, 1)
    words = _lexicon(lexicon, top)
    request, time_limit = _request(limit, count, best), _seconds(time_limit)
    job = Job("wordscapes", None, _engine("wordscapes", engine), request, time_limit, _options("wordscapes", options))
    return run(replace_spec(job, wordscapes_spec(crossword, letters, words, min_len)))


def solve_banana(hand: str, lexicon=None, *, engine: str = "backtrack", time_limit: float | None = 60.0,
           top: int | None = None, **options):
    """A Bananagrams layout of every tile in ``hand`` (``"aeinrst lpq"``; spaces and
    commas are fine). The backtracker finds layouts fast but never proves
    ``none``; ``engine="cpsat"`` can. ``options``: ``mode`` (free, crossing),
    ``encoding`` (automaton, table), ``log``, ``params``."""
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import banana_spec

    hand, words = _text("hand", hand), _lexicon(lexicon, top)
    job = Job("banana", None, _engine("banana", engine), time_limit=_seconds(time_limit),
              options=_options("banana", options))
    return run(replace_spec(job, banana_spec(hand, words)))


def replace_spec(job, spec):
    from dataclasses import replace

    return replace(job, spec=spec)


def find_words(letters: str, lexicon=None, *, min_len: int = 3, max_len: int | None = None, top: int | None = None,
          by: str = "length") -> list[str]:
    """Every word spellable from ``letters`` (``?`` is a blank), each tile at most once.

    ``by="length"``: longest first, then alphabetical; ``by="common"``: most
    common first."""
    from cpmodel.core import checks
    from cpmodel.core.specs import parse_rack
    from heuristics.words import WordIndex
    from heuristics.words import find_words as spell

    rack = parse_rack(_text("letters", letters))
    min_len, max_len = _lengths(min_len, max_len)
    by = checks.named("by", checks.choice, by, ("length", "common"))
    chosen = _lexicon(lexicon, top)
    found = [f.word for f in spell(WordIndex(chosen.words), rack, min_len, max_len)]
    if by == "common":
        found.sort(key=chosen.rank_of.__getitem__)
    return found


def grid_words(board: str, lexicon=None, *, score: str = "boggle", min_len: int = 3, max_len: int | None = None,
         top: int | None = None):
    """Every word on a Boggle/WordHero/Scramble board (``"abc/def/ghi"``), best score first,
    each with its ``score`` and ``path``; ``score`` is ``"boggle"`` or ``"scramble"``."""
    from cpmodel.core import checks
    from cpmodel.core.boards import parse_grid
    from cpmodel.core.scoring import score_table
    from heuristics.grid import SortedWords, find_words

    parsed = parse_grid(_text("board", board))
    score = checks.named("score", checks.choice, score, ("boggle", "scramble"))
    min_len, max_len = _lengths(min_len, max_len)
    chosen = _lexicon(lexicon, top)
    return find_words(parsed, SortedWords.of(chosen.words), score_table(score), min_len, max_len)


def engine_names(puzzle: str) -> list[str]:
    """The engine names that can answer ``puzzle`` ("rect", "wordscapes", "banana")."""
    from cpmodel.core import checks
    from cpmodel.run.engines import engines_for

    return engines_for(checks.named("puzzle", checks.choice, puzzle, tuple(_OPTIONS)))


def run(job, on_solution=None):
    """Run a :class:`Job` on its engine in this process (see :func:`cpmodel.run.engines.run`),
    or, for ``engine="auto"``, race the engines that apply in child processes
    (:func:`cpmodel.run.portfolio.race`; the answer's ``stats["portfolio"]`` says who answered).

    >>> words = load_lexicon("bit ice ten BAT ate tea eat net tin nit")
    >>> square = solve_rect("3x3", words, engine="auto", best=True)
    >>> square.status, square.complete, square.stats["portfolio"]["answered"]
    ('found', True, 'backtrack')
    """
    _check_job(job, on_solution)
    if job.engine == "auto":
        from cpmodel.run.portfolio import portfolio_plan, race

        return race(job, portfolio_plan(job.puzzle, job.request.best), job.new_control(), on_solution)
    from cpmodel.run import engines as registry

    return registry.run(job, on_solution=on_solution)


def _check_job(job, on_solution) -> None:
    """A Job built by hand gets the checks the puzzle functions make: its puzzle, engine,
    spec type, request, time limit and options."""
    from cpmodel.core import checks
    from cpmodel.core.control import Request
    from cpmodel.core.errors import InputError
    from cpmodel.core.jobs import Job
    from cpmodel.core.specs import BananaSpec, RectangleSpec, WordscapesSpec

    if not isinstance(job, Job):
        raise InputError(f"run takes a Job, got {type(job).__name__}")
    puzzle = checks.named("puzzle", checks.choice, job.puzzle, tuple(_OPTIONS))
    spec_type = {"rect": RectangleSpec, "wordscapes": WordscapesSpec, "banana": BananaSpec}[puzzle]
    if not isinstance(job.spec, spec_type):
        raise InputError(f"a {puzzle} job needs a {spec_type.__name__}, got {type(job.spec).__name__}")
    _engine(puzzle, job.engine)
    if not isinstance(job.request, Request):
        raise InputError(f"request must be a Request, got {type(job.request).__name__}")
    request = job.request
    if not request.best:
        _request(request.limit, request.count_only, False)
    _seconds(job.time_limit)
    if not isinstance(job.options, dict):
        raise InputError(f"options must be a dict, got {type(job.options).__name__}")
    _options(puzzle, job.options)
    if on_solution is not None and not callable(on_solution):
        raise InputError(f"on_solution must be callable, got {type(on_solution).__name__}")
