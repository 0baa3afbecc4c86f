"""Shared fixtures: tiny hand-made lexicons, a brute-force reference, a CLI runner, the web app's
server and browser."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from shlex import quote as shlex_quote

import pytest
from hypothesis import settings

from cpmodel.core.lexicon import Lexicon
from cpmodel.core.specs import RectangleSpec

ROOT = Path(__file__).resolve().parent.parent

# A suite started in the background by a shell without job control (``pytest &``) inherits
# SIGINT and SIGQUIT ignored (nohup: SIGHUP), and so would every command it starts, which
# keeps an ignored signal ignored, as it should: the signal tests would see no signal at all.
for _sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP):
    if signal.getsignal(_sig) == signal.SIG_IGN:
        signal.signal(_sig, signal.default_int_handler if _sig == signal.SIGINT else signal.SIG_DFL)

# Time is not the property under test: a per-example deadline fails on a loaded machine.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

# A 3x3 word square is planted here (bit/ice/ten ↔ bit/ice/ten) plus distractors.
TINY_WORDS = """bit ice ten bat ate tea eat net tin nit act cat tic ant tan eta ten ire tie bet
ace ice tee nee era are ear rat tar art arc car nib bin cab""".split()


@pytest.fixture
def tiny_lexicon() -> Lexicon:
    return Lexicon(list(dict.fromkeys(TINY_WORDS)), source="tiny")


def brute_force_rectangles(spec: RectangleSpec) -> set[tuple[str, ...]]:
    """Every m-tuple of row words whose columns are words: the definition, nothing more."""
    col_set = set(spec.col_words)
    found = set()
    for rows in itertools.product(spec.row_words, repeat=spec.m):
        columns = ["".join(r[j] for r in rows) for j in range(spec.n)]
        if not all(c in col_set for c in columns):
            continue
        if spec.pattern and any(p != "." and p != g for pr, r in zip(spec.pattern, rows, strict=True)
                                for p, g in zip(pr, r, strict=True)):
            continue
        words = list(rows) + columns
        if spec.distinct and len(set(words)) != len(words):
            continue
        if spec.symmetric and list(rows) != columns:
            continue
        found.add(tuple(rows))
    return found


def brute_force_wordscapes(spec) -> set[tuple[str, ...]]:
    """Every choice of one candidate per slot that agrees on shared cells, all
    distinct, times every wheel letter in each free lone cell (a pre-filled lone
    cell keeps its letter, which must be on the wheel)."""
    given = spec.board.cells
    lone_choices = [given[cell] if given[cell] else sorted(set(spec.wheel)) for cell in spec.lone_cells]
    fills = set()
    for choice in itertools.product(*spec.candidates):
        if len(set(choice)) != len(choice):
            continue
        letters = {}
        if not all(letters.setdefault(cell, ch) == ch for slot, word in zip(spec.slots, choice, strict=True)
                   for cell, ch in zip(slot, word, strict=True)):
            continue
        for lone in itertools.product(*lone_choices):
            if all(ch in spec.wheel for ch in lone):
                fills.add(spec.render({**letters, **dict(zip(spec.lone_cells, lone, strict=True))}))
    return fills


def polyominoes(size: int) -> set[frozenset]:
    """Every connected set of ``size`` grid cells, moved to touch row 0 and column 0."""
    shapes = {frozenset({(0, 0)})}
    for _ in range(size - 1):
        grown = set()
        for shape in shapes:
            for r, c in shape:
                for cell in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if cell not in shape:
                        bigger = shape | {cell}
                        top, left = min(r for r, _ in bigger), min(c for _, c in bigger)
                        grown.add(frozenset((r - top, c - left) for r, c in bigger))
        shapes = grown
    return shapes


def brute_force_bananagrams(hand: str, words) -> set[tuple[str, ...]]:
    """Every layout of the hand: each connected shape, each order of the tiles on
    it, kept when every maximal run of two or more letters is a word."""
    from cpmodel.core.boards import layout_rows, maximal_runs

    word_set = set(words)
    layouts = set()
    for shape in polyominoes(len(hand)):
        cells = sorted(shape)
        for letters in set(itertools.permutations(hand)):
            placed = dict(zip(cells, letters, strict=True))
            if all(word in word_set for word, _, _ in maximal_runs(placed)):
                layouts.add(tuple(layout_rows(placed)))
    return layouts


def subprocess_env() -> dict:
    """The environment of a child that imports cpmodel from this checkout."""
    return dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120")


def handlers_installed(pid: int) -> bool:
    """cpmodel catches SIGTERM once its signal handling is in place (Python alone does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # gone already, or no /proc: nothing to wait for
    caught = int(re.search(r"SigCgt:\s*([0-9a-f]+)", status).group(1), 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def wait_for_handlers(proc: subprocess.Popen, seconds: float = 60) -> None:
    """Until the child's signal handlers are in place: a signal sent sooner would kill a bare
    interpreter, and a fixed sleep is not enough on a loaded machine (the imports alone can
    take a second)."""
    deadline = time.monotonic() + seconds
    while not handlers_installed(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)


def run_cli(*args: str, timeout: float = 120, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="120")
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "cpmodel", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env
    )


def run_json(*args: str, **kw) -> tuple[dict, subprocess.CompletedProcess]:
    proc = run_cli(*args, "--json", **kw)
    assert proc.returncode in (0, 130), proc.stderr
    return json.loads(proc.stdout), proc


@pytest.fixture
def word_file(tmp_path):
    def write(words, name="words.txt") -> str:
        path = tmp_path / name
        path.write_text("\n".join(words) + "\n")
        return str(path)

    return write


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, server: subprocess.Popen, seconds: float = 60) -> None:
    """Until ``server`` accepts connections on ``port`` (a scheduler takes a second or two to start)."""
    deadline = time.monotonic() + seconds
    while server.poll() is None and time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the scheduler did not listen on port {port}")


@pytest.fixture
def dask_cluster():
    """A real Dask scheduler and two one-thread workers on loopback; none outlives the test."""
    pytest.importorskip("distributed")
    dask = shutil.which("dask") or pytest.skip("the dask command is missing")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", ":0"],
                              env=subprocess_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        _wait_for_port(port, procs[0])
        workers = [subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--nworkers", "1", "--no-nanny",
                                     "--dashboard-address", ":0"], cwd=ROOT, env=subprocess_env(),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
        procs += workers
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers
    finally:
        # the workers first, then the scheduler: a worker whose scheduler is already gone waited 10 s for it
        # to hear the goodbye (5 s of every Dask test's teardown, and a kill); in this order all end in 0.3 s
        for group in (procs[1:], procs[:1]):
            for proc in group:
                if proc.poll() is None:
                    proc.terminate()
            for proc in group:
                try:
                    proc.wait(timeout=5)  # rarely one hangs, and is killed
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        assert all(proc.poll() is not None for proc in procs)  # no scheduler or worker outlives the test


# -- compiled kernels, once, before the workers start ---------------------------------------
# The grid kernels and the banana fill are compiled by numba on first use and cached beside their sources. On a
# clean checkout (CI) every worker and every command a test started compiled them for itself
# at the same time (~20 s of CPU each), and a command with a short --time-limit spent it all
# compiling. So the run's controller compiles them once, on both cores, before any test. The
# search's kernels first: a proof started beside the search compiled them again (31 s, not 9).
KERNEL_SOURCES = ("grid_bound.py", "grid_kernel.py", "grid_search.py", "banana_fill.py")
WARM_UP = """set -e
printf 'tea\\neat\\nate\\nseat\\nsea\\nset\\nten\\nnet\\n' > words.txt
printf 'tea/sen/eat\\n' > boards.txt
python -c "$FILL" &
python -m cpmodel grid --best 2x2 --time-limit 0.01 --dict words.txt
python -m cpmodel grid --best 2x2 --prove --jobs 1 --dict words.txt &
python -m cpmodel grid --score-file boards.txt --dict words.txt
wait
"""
FILL = ("from cpmodel.core.lexicon import Lexicon; from cpmodel.core.specs import banana_spec; "
        "from heuristics.banana_fill import decide_box; "
        "decide_box(banana_spec('aacstt', Lexicon(['at', 'ta', 'cat', 'cats', 'scat', 'tact'])), 2, 4)")


def _kernels_stamp() -> str:
    """What the compiled kernels depend on: their sources and numba's version."""
    import hashlib
    from importlib.metadata import version

    digest = hashlib.sha256(version("numba").encode())
    for name in KERNEL_SOURCES:
        digest.update((ROOT / "heuristics" / name).read_bytes())
    return digest.hexdigest()


def pytest_configure(config):
    stamp_file = ROOT / "heuristics" / "__pycache__" / "cpmodel-tests-warm.txt"  # written after a warm-up
    if hasattr(config, "workerinput") or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    stamp = _kernels_stamp()
    if stamp_file.is_file() and stamp_file.read_text() == stamp:
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cpmodel-warm-") as folder:
        script = WARM_UP.replace("python", shlex_quote(sys.executable))
        warm_up = subprocess.Popen(["bash", "-c", script], cwd=folder, env={**subprocess_env(), "FILL": FILL},
                                   start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            warm_up.wait(timeout=600)
        except BaseException:  # Ctrl-C, or a compile that hangs: the tests compile what they need
            os.killpg(warm_up.pid, signal.SIGKILL)
            warm_up.wait()
            if not isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
                raise
    if warm_up.returncode == 0 and stamp_file.parent.is_dir():
        stamp_file.write_text(stamp)


def pytest_collection_modifyitems(config, items):
    """Longest first: the two groups that each stay on one worker (the README's ~60 command
    lines, the browser's module: about a minute each) and the lessons start at once, and the
    short tests fill in around them. Collected last, as they are by name, they ran at the
    end, one worker busy with them while the other had nothing left to do."""
    def start_early(item) -> int:
        if item.get_closest_marker("xdist_group") is not None:
            return 0
        return 1 if item.path.suffix == ".ipynb" else 2

    items.sort(key=start_early)  # stable: the order within each module is kept


# ---- the web app: a real server and a headless Chromium (tests/test_web.py, tests/test_web_pages.py) ----

CHROMIUM, DRIVER = shutil.which("chromium") or "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"
HAVE_BROWSER = Path(CHROMIUM).exists() and Path(DRIVER).exists()
NO_BROWSER = "no browser: install Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)"
WINDOW = (1280, 900)  # the browser's window; a test that resizes it puts it back


@pytest.fixture(scope="module")
def server():
    """``python -m cpmodel serve`` (two workers, a queue of four), once its fork server is warm
    (the words and the trie loaded); one per module: tests/test_web.py ends by stopping it."""
    pytest.importorskip("httpx", reason="the web tests need httpx (pip install -e '.[test]')")
    from cpmodel.web.launch import launch

    launched = launch("--jobs", "2", "--queue", "4")
    launched.wait_until_warm()
    yield launched
    if launched.process.poll() is None:
        launched.stop(signal.SIGKILL)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium; it keeps every console message (``driver.get_log("browser")``)."""
    if not HAVE_BROWSER:
        pytest.skip(NO_BROWSER)
    webdriver = pytest.importorskip("selenium.webdriver", reason="the browser tests need selenium (pip install -e '.[test]')")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size={},{}".format(*WINDOW)):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def wait(driver, condition, seconds: float = 20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(condition)


def open_page(driver, server, path: str) -> float:
    """Load a page; the milliseconds until it was interactive (its scripts ran and set data-state)."""
    driver.get(server.url + path)
    wait(driver, lambda d: d.execute_script("return document.body.dataset.state") == "idle", 5)
    return driver.execute_script("const t = performance.getEntriesByType('navigation')[0]; return t.domContentLoadedEventEnd;")


def field(driver, selector: str, text: str) -> None:
    element = driver.find_element("css selector", selector)
    element.clear()
    element.send_keys(text)


def banana_hand(driver, server, hand: str):
    """/banana with ``hand`` in the rack; the board element, clicked (keys typed go to it)."""
    open_page(driver, server, "/banana")
    field(driver, "#hand", hand)
    driver.find_element("css selector", "#use-hand").click()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.rack") == str(len(hand)), 10)
    board = driver.find_element("css selector", "#board")
    board.click()
    return board


def choose(driver, selector: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("css selector", selector)).select_by_value(value)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test leaves a screenshot of the page it saw (the ``browser`` fixture)."""
    outcome = yield
    report = outcome.get_result()
    driver = item.funcargs.get("browser") if hasattr(item, "funcargs") else None
    if report.when == "call" and report.failed and driver is not None:
        import tempfile

        folder = Path(tempfile.gettempdir()) / "cpmodel-web-failures"
        folder.mkdir(exist_ok=True)
        path = folder / f"{item.name}.png"
        try:
            driver.save_screenshot(str(path))
            report.sections.append(("screenshot", f"the page at the failure: {path}"))
        except Exception as exc:  # the browser itself may be what failed
            report.sections.append(("screenshot", f"no screenshot: {exc}"))
