"""``python -m cpmodel serve``: the JSON API and the pages, against a real server.

One server (two workers) serves the module; the API tests use httpx, the page
tests a headless Chromium driven by selenium (skipped, with the reason, where
Debian's chromium and chromedriver are not installed). Every answer shown is
checked with the project's validator; the last test stops the server with
SIGTERM and finds no process of its session left.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the API tests need httpx (pip install -e '.[test]')")
pytest.importorskip("starlette", reason="serve needs the web extra (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="serve needs the web extra (pip install -e '.[web]')")

from cpmodel.core.boards import parse_grid  # noqa: E402
from cpmodel.core.lexicon import load_default  # noqa: E402
from cpmodel.core.specs import parse_size  # noqa: E402
from cpmodel.core.validate import grid_word_problems  # noqa: E402
from tests.conftest import ROOT, banana_hand, choose, field, open_page, wait  # noqa: E402

# The README's pictures: refreshed with CPMODEL_SCREENSHOTS=docs/screenshots; otherwise they go to a
# scratch folder, so that the test command leaves the checkout as it found it.
SCREENSHOTS = Path(os.environ.get("CPMODEL_SCREENSHOTS") or tempfile.gettempdir() + "/cpmodel-screenshots")
SCRIPT = "<script>window.pwned=1</script>"
LONG_COUNT = {"puzzle": "rect", "size": "5x6", "top": 5000, "mode": "count", "solver": "backtrack", "time_limit": 30}

pytestmark = pytest.mark.xdist_group("web")  # one server and one browser for the module, on one worker


@pytest.fixture(scope="module")
def words() -> frozenset:
    return frozenset(load_default().words)


@pytest.fixture(scope="module")
def api(server):
    with httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


def rectangle_ok(rows, size: str, words) -> bool:
    """The validator's definition: m rows of n-letter words whose n columns are m-letter words."""
    m, n = parse_size(size)
    columns = ["".join(row[j] for row in rows) for j in range(n)]
    return len(rows) == m and all(len(r) == n and r in words for r in rows) and all(c in words for c in columns)


# ---- the JSON API -------------------------------------------------------------------------


def test_rect_answers_with_the_clis_document_and_a_valid_rectangle(api, words):
    doc = api.post("/api/rect", json={"size": "5x6", "mode": "first"}).json()
    assert {"status", "count", "complete", "solutions", "seconds", "stopped_by", "solver"} <= doc.keys()
    assert doc["status"] == "found" and doc["puzzle"] == "rect"
    assert rectangle_ok(doc["solutions"][0], "5x6", words)


def test_grid_words_pass_the_validator(api, words):
    doc = api.post("/api/grid", json={"board": "serp/atin/gles/dcob"}).json()
    board = parse_grid(doc["board"])
    assert doc["count"] == len(doc["words"]) > 20
    for w in doc["words"]:
        assert grid_word_problems(board, w["word"], [tuple(p) for p in w["path"]], words) == []


def test_explain_carries_the_source_lines_of_each_family(api):
    doc = api.post("/api/explain", json={"puzzle": "rect", "size": "3x3", "top": 100}).json()
    assert doc["variables"] > 0 and doc["families"]
    for family in doc["families"]:
        line = int(family["code"].split(":")[1].split()[0])
        assert family["source"].lstrip().startswith(str(line))


@pytest.mark.parametrize("path, body, message", [
    ("/api/rect", {"size": "5y6"}, "size must look like 5x6 (rows x columns), got '5y6'"),
    ("/api/rect", {"size": "5x6", "top": 10**9}, "argument --top: must be from 1 to 50000, got 1000000000"),
    ("/api/rect", {"size": "5x6", "time_limit": 1000}, "argument --time-limit: at most 60 s on this server, got 1000"),
    ("/api/rect", {"size": "5x6", "solver": "cpsta"}, "--solver: unknown engine 'cpsta' for rect; did you mean cpsat?"),
    ("/api/rect", {"size": "3x3", "pattern": SCRIPT}, "pattern must be 3 rows of 3 characters"),
    ("/api/grid", {"board": SCRIPT}, "unexpected character '<' in board '<script>"),
    ("/api/banana", {"hand": SCRIPT}, "the hand may hold only letters"),
    ("/api/wordscapes", {"board": SCRIPT, "letters": "abc"}, "board: unexpected character '<'"),
    ("/api/banana", {"hand": "a" * 150}, "at most 144 tiles"),
    ("/api/grid", {"board": "/".join(["abcdefghi"] * 9)}, "at most 8"),
    ("/api/nothing", {}, "unknown puzzle 'nothing'"),
])
def test_bad_input_is_a_400_with_the_clis_one_line_message(api, path, body, message):
    answer = api.post(path, json=body)
    assert answer.status_code == 400 and answer.headers["content-type"] == "application/json"
    error = answer.json()["error"]
    assert message in error and "\n" not in error and "Traceback" not in error


def test_the_message_is_the_one_the_cli_prints(api, tmp_path):
    import subprocess
    import sys

    cli = subprocess.run([sys.executable, "-m", "cpmodel", "rect", "7y7"], capture_output=True, text=True, cwd=ROOT)
    assert cli.returncode == 2
    assert cli.stderr.strip() == "error: " + api.post("/api/rect", json={"size": "7y7"}).json()["error"]


def test_bodies_are_capped_and_must_be_json(api):
    assert api.post("/api/rect", content=b"x" * 70_000, headers={"content-type": "application/json"}).status_code == 413
    bad = api.post("/api/rect", content=b"{not json", headers={"content-type": "application/json"})
    assert bad.status_code == 400 and bad.json()["error"] == "the request body is not JSON"


def test_no_request_names_a_file_and_every_answer_has_a_csp(api):
    for path in ("/static/../app.py", "/static/app.py", "/static/%2e%2e%2fapp.py", "/etc/passwd", "/static/"):
        assert api.get(path).status_code == 404, path
    for path in ("/", "/rect", "/static/common.js", "/api/status"):
        answer = api.get(path)
        assert answer.status_code == 200
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert api.get("/", headers={"host": "evil.example"}).status_code == 400  # no DNS rebinding


def test_a_closed_event_stream_cancels_its_job_and_keeps_what_was_found(api, server):
    job = api.post("/api/jobs", json=LONG_COUNT).json()
    seen = []
    with api.stream("GET", job["events"]) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: "):
                seen.append(line[7:])
            if seen.count("progress") >= 2:
                break  # the tab closes
    deadline = time.monotonic() + 10
    while (state := api.get(f"/api/jobs/{job['id']}").json())["state"] != "done" and time.monotonic() < deadline:
        time.sleep(0.1)
    result = state["result"]
    assert result["cancelled"] and result["stopped_by"] == result["doc"]["stopped_by"] == "client-gone"
    assert not result["doc"]["complete"] and result["doc"]["count"] > 0
    assert seen[:2] in (["queued", "running"], ["running", "started"]) or "running" in seen


def test_an_event_stream_outlives_a_quiet_job(monkeypatch):
    """A job silent for longer than the keepalive (grid --best loading numba) keeps its
    stream to the end. The keepalive used to cancel the pending read, which ended the
    stream without ``done`` ("lost the connection") and cancelled the job."""
    import asyncio
    from types import SimpleNamespace

    from cpmodel.web import app as web_app

    monkeypatch.setattr(web_app, "KEEPALIVE", 0.05)

    class QuietJobs:
        cancelled = False

        async def events(self, job):
            yield "started", {}
            await asyncio.sleep(0.3)  # six keepalives of silence
            yield "done", {"code": 0}

        def cancel(self, job):
            self.cancelled = True

    class Connected:
        async def is_disconnected(self):
            return False

    async def read(jobs):
        job = SimpleNamespace(state="running")
        return [chunk async for chunk in web_app._event_stream(Connected(), jobs, job)]

    jobs = QuietJobs()
    chunks = asyncio.run(read(jobs))
    assert chunks[0].startswith("event: started") and chunks[-1].startswith("event: done"), chunks
    assert ": still here\n\n" in chunks and not jobs.cancelled


def test_cancel_stops_a_job_within_seconds(api):
    job = api.post("/api/jobs", json=LONG_COUNT).json()
    time.sleep(1.0)
    began = time.monotonic()
    assert api.post(f"/api/jobs/{job['id']}/cancel", json={}).json()["cancelled"]
    while (state := api.get(f"/api/jobs/{job['id']}").json())["state"] != "done":
        assert time.monotonic() - began < 6
        time.sleep(0.05)
    assert state["result"]["doc"]["stopped_by"] == "cancel" and not state["result"]["doc"]["complete"]


def test_a_client_that_leaves_a_plain_post_frees_its_worker(api, server):
    """POST /api/rect waits for the whole answer; a client that gives up (a closed tab, curl's
    Ctrl-C) used to leave the worker solving to its time limit (30 s here)."""
    body = {key: value for key, value in LONG_COUNT.items() if key != "puzzle"}
    with pytest.raises(httpx.ReadTimeout):  # the client gives up; its connection closes
        httpx.post(f"{server.url}/api/rect", json=body, timeout=1.5)
    left = time.monotonic()
    while api.get("/api/status").json()["running"] and time.monotonic() - left < 10:
        time.sleep(0.02)
    assert time.monotonic() - left < 2.0  # the target is 1 s; measured ~0.3 s on an idle machine


def test_a_full_queue_answers_busy_with_its_size_and_the_server_keeps_answering(api):
    started = []
    busy = None
    for _ in range(8):  # 2 workers and 4 places in the queue
        answer = api.post("/api/jobs", json=LONG_COUNT)
        if answer.status_code == 503:
            busy = answer
            break
        started.append(answer.json())
    try:
        assert busy is not None and busy.json()["busy"] and busy.json()["waiting"] == 4
        assert "busy" in busy.json()["error"] and busy.headers["retry-after"] == "1"
        assert [job["position"] for job in started[2:]] == [1, 2, 3, 4]
        began = time.monotonic()
        assert api.get("/api/status").json()["running"] == 2  # answered while every worker is busy
        assert time.monotonic() - began < 0.5
    finally:
        for job in started:
            api.post(f"/api/jobs/{job['id']}/cancel", json={})
    deadline = time.monotonic() + 10
    while api.get("/api/status").json()["running"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert api.get("/api/status").json() == {"running": 0, "waiting": 0, "workers": 2, "queue": 4, "warm": True}


def test_small_load_no_errors_no_lost_job(server):
    """The benchmark (benchmarks/web_load.py) in small: 24 solves, 6 at a time."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("web_load", ROOT / "benchmarks" / "web_load.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    report = bench.load(server.url, solves=24, at_once=6)
    assert report["errors"] == 0 and report["completed"] == 24, report


# ---- the pages, in a real browser ---------------------------------------------------------


def shown_rows(driver, root: str = "#board") -> list[str]:
    """The letters of a drawn grid, row by row ('#' for a blocked cell)."""
    cells = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' .cell')].map(c => [+c.dataset.r, +c.dataset.c, "
        "c.classList.contains('blocked') ? '#' : c.firstChild ? c.firstChild.textContent : '']);", root)
    rows: dict[int, dict[int, str]] = {}
    for r, c, text in cells:
        rows.setdefault(r, {})[c] = text.lower()
    return ["".join(row[c] for c in sorted(row)) for _, row in sorted(rows.items())]


def screenshot(driver, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def no_script_ran(driver) -> bool:
    return driver.execute_script("return window.pwned === undefined && !document.querySelector('main script');")


def test_every_page_is_interactive_within_a_second(browser, server):
    for path in ("/", "/rect", "/grid", "/banana", "/wordscapes", "/learn"):
        assert open_page(browser, server, path) < 1000, path
    open_page(browser, server, "/")
    screenshot(browser, "home")


def test_rect_page_shows_the_first_5x6_at_once_then_the_proven_most_familiar(browser, server, words):
    open_page(browser, server, "/rect")
    clicked = browser.execute_script("return performance.now()")
    browser.find_element("css selector", "#solve").click()
    wait(browser, lambda d: d.find_elements("css selector", "#board .cell"), 10)
    first = shown_rows(browser)
    assert rectangle_ok(first, "5x6", words)
    first_ms = int(browser.execute_script("return document.body.dataset.firstMs"))
    wait(browser, lambda d: d.execute_script("return document.body.dataset.state") == "done", 40)
    done_ms = browser.execute_script("return performance.now()") - clicked
    # "at once": in the first half of the solve, long before the proof ends. The 1 s target is
    # benchmarks/web_pages.py's to measure: a wall-clock bound here fails on a loaded machine.
    assert first_ms < done_ms / 2, (first_ms, done_ms)
    best = shown_rows(browser)
    assert rectangle_ok(best, "5x6", words)
    assert browser.find_element("css selector", "#proof").text == "proven most familiar"
    assert best == ["safari", "origin", "relive", "taller", "assert"]
    screenshot(browser, "rect")


def test_grid_page_highlights_the_path_of_the_hovered_or_focused_word(browser, server, words):
    from selenium.webdriver.common.action_chains import ActionChains

    open_page(browser, server, "/grid")
    browser.find_element("css selector", "#find").click()
    wait(browser, lambda d: d.find_elements("css selector", "#words li"), 10)
    board = parse_grid(browser.find_element("css selector", "#board-input").get_attribute("value"))
    items = browser.find_elements("css selector", "#words li")
    for item, how in ((items[0], "hover"), (items[3], "focus")):
        if how == "hover":
            ActionChains(browser).move_to_element(item).perform()
        else:
            browser.execute_script("arguments[0].focus()", item)
        word = item.text.split()[0]
        path = [tuple(p) for p in json.loads(item.get_attribute("data-path"))]
        assert grid_word_problems(board, word, path, words) == []
        lit = browser.execute_script(
            "return [...document.querySelectorAll('#grid-board .cell.on')].map(c => [+c.querySelector('.order').textContent, +c.dataset.r, +c.dataset.c]);")
        assert [tuple(cell) for _, *cell in sorted(lit)] == path, how
    screenshot(browser, "grid")


@pytest.mark.parametrize("path, fill, button", [
    ("/rect", {"#size": SCRIPT}, "#solve"),
    ("/rect", {"#size": "3x3", "#pattern": SCRIPT}, "#solve"),
    ("/grid", {"#board-input": SCRIPT}, "#find"),
    ("/wordscapes", {"#ws-board": SCRIPT}, "#solve"),
])
def test_bad_input_shows_the_clis_message_as_text(browser, server, path, fill, button):
    open_page(browser, server, path)
    for selector, text in fill.items():
        field(browser, selector, text)
    browser.find_element("css selector", button).click()
    message = wait(browser, lambda d: d.find_element("css selector", "#message.error").text, 10)
    assert "<script>window.pwned=1</script>" in message or "'<'" in message
    assert no_script_ran(browser)


def test_a_long_count_streams_its_progress_and_stops(browser, server):
    open_page(browser, server, "/rect")
    field(browser, "#top", "5000")
    choose(browser, "#mode", "count")
    choose(browser, "#solver", "backtrack")
    browser.find_element("css selector", "#solve").click()
    wait(browser, lambda d: "shards" in d.find_element("css selector", "#status").text, 10)
    began = time.monotonic()
    browser.find_element("css selector", "#stop").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.state") == "done", 8)
    assert time.monotonic() - began < 6
    assert "stopped by cancel" in browser.find_element("css selector", "#proof").text


def test_two_engines_show_the_cross_check_table(browser, server):
    open_page(browser, server, "/rect")
    field(browser, "#size", "4x4")
    field(browser, "#top", "300")
    choose(browser, "#mode", "count")
    choose(browser, "#solver", "backtrack,cp")
    browser.find_element("css selector", "#solve").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.state") == "done", 30)
    rows = [[td.text for td in tr.find_elements("css selector", "td")]
            for tr in browser.find_elements("css selector", "#crosscheck tbody tr")]
    assert [row[0] for row in rows] == ["backtrack", "cp"] and rows[0][2] == rows[1][2] and int(rows[0][2]) > 0
    assert browser.find_element("css selector", "#agreement").text == "agreement: same count"


def test_a_best_board_search_shows_its_score_live_and_stops(browser, server, words):
    open_page(browser, server, "/grid")
    field(browser, "#best-time", "30")
    browser.find_element("css selector", "#best-start").click()
    wait(browser, lambda d: "best found" in d.find_element("css selector", "#status").text, 20)  # live progress
    browser.find_element("css selector", "#best-stop").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.state") == "done", 8)
    assert "cancel" in browser.find_element("css selector", "#status").text
    board = parse_grid(browser.find_element("css selector", "#board-input").get_attribute("value"))
    items = browser.find_elements("css selector", "#words li")
    assert (board.rows, board.cols) == (4, 4) and items
    word = items[0].text.split()[0]
    assert grid_word_problems(board, word, [tuple(p) for p in json.loads(items[0].get_attribute("data-path"))], words) == []


def test_a_best_board_search_stopped_at_once_says_what_it_has(browser, server):
    """Stopped as soon as it runs, the search may not have scored a board yet: the page
    says so ("no board found", unknown) instead of failing on a document without a board."""
    open_page(browser, server, "/grid")
    field(browser, "#best-time", "30")
    browser.find_element("css selector", "#best-start").click()
    wait(browser, lambda d: d.find_element("css selector", "#status").text.startswith("searching"), 10)
    browser.find_element("css selector", "#best-stop").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.state") == "done", 8)
    status = browser.find_element("css selector", "#status").text
    assert "cancel" in status and (status.startswith("no board found") or status.startswith("best board"))
    assert browser.find_element("css selector", "#message").text == ""


def test_wordscapes_page_fills_the_board_with_words(browser, server, words):
    open_page(browser, server, "/wordscapes")
    browser.find_element("css selector", "#solve").click()
    wait(browser, lambda d: d.find_elements("css selector", "#board .cell"), 10)
    rows = shown_rows(browser)
    assert len(rows) == 3 and all(len(r) == 5 for r in rows)
    found = [row.find_elements("css selector", "td")[-1].text for row in browser.find_elements("css selector", "#words tbody tr")]
    assert len(found) == 5 and all(w in words and set(w) <= set("retains") for w in found)
    screenshot(browser, "wordscapes")


def test_learn_page_explains_a_model_with_its_source_lines(browser, server):
    open_page(browser, server, "/learn")
    browser.find_element("css selector", "#explain").click()
    wait(browser, lambda d: d.find_elements("css selector", ".family pre.source"), 10)
    assert "variables" in browser.find_element("css selector", "#counts").text
    assert "model.add" in browser.find_element("css selector", ".family pre.source").text
    browser.execute_script("document.querySelector('#model table').scrollIntoView()")
    screenshot(browser, "learn")


def board_cells(driver) -> dict:
    """The tiles on the Bananagrams board: {(r, c): letter}."""
    cells = driver.execute_script(
        "return [...document.querySelectorAll('#tiles .cell.tile')].map(c => [+c.dataset.r, +c.dataset.c, c.textContent]);")
    return {(r, c): letter for r, c, letter in cells}


def held(driver) -> str:
    rack = "".join(b.text.lower() for b in driver.find_elements("css selector", "#rack button.tile"))
    return "".join(sorted(rack + "".join(board_cells(driver).values())))


def idle(driver, seconds: float = 40) -> None:
    wait(driver, lambda d: d.execute_script("return document.body.dataset.state") in ("idle", "error"), seconds)


def test_a_solo_bananagrams_game_played_to_the_end_by_clicking(browser, server, words):
    """A quick game (a 25-tile bag): a hint, then the solver's layout and a peel until Bananas;
    every layout shown passes the validator against every tile held."""
    from cpmodel.core.validate import banana_problems

    open_page(browser, server, "/banana")
    choose(browser, "#bag", "25")
    browser.find_element("css selector", "#new-game").click()
    wait(browser, lambda d: d.execute_script("return document.body.dataset.rack") == "21", 10)
    browser.find_element("css selector", "#hint").click()
    idle(browser)
    hinted = board_cells(browser)
    assert hinted and "hint: " in browser.find_element("css selector", "#message").text
    hint_word = browser.find_element("css selector", "#message").text.split("hint: ")[1].lower()
    assert hint_word in words and len(hinted) >= len(hint_word)
    peels = 0
    while browser.execute_script("return document.body.dataset.finished") != "1":
        browser.find_element("css selector", "#solve-layout").click()
        idle(browser)
        cells, tiles = board_cells(browser), held(browser)
        assert browser.execute_script("return document.body.dataset.rack") == "0"
        assert banana_problems(cells, tiles, words) == [], browser.find_element("css selector", "#message").text
        if peels == 2:
            screenshot(browser, "banana")
        browser.find_element("css selector", "#peel").click()
        idle(browser)
        peels += 1
        assert peels <= 5
    assert peels == 5  # 4 peels empty the bag, the fifth calls Bananas
    assert "Bananas!" in browser.find_element("css selector", "#message").text
    assert len(board_cells(browser)) == 25


def _new_error(driver, old: str) -> str | bool:
    """The page's error message once it is no longer ``old``, else False (keep waiting)."""
    text = driver.find_element("css selector", "#message.error").text
    return text if text and text != old else False


def test_bananagrams_by_keyboard_and_check_marks_the_broken_rule(browser, server):
    from selenium.webdriver.common.keys import Keys

    board = banana_hand(browser, server, "catdogx")
    board.send_keys("cat", Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.ARROW_DOWN, "dog")  # two words, apart
    assert sorted(board_cells(browser).values()) == sorted("catdog")
    browser.find_element("css selector", "#check").click()
    idle(browser)
    problems = [li.text for li in browser.find_elements("css selector", "#problems li")]
    assert any(p.startswith("rule 1: tiles not placed: x") for p in problems)
    assert any(p.startswith("rule 2: 2 islands") for p in problems)
    marked = browser.execute_script("return document.querySelectorAll('#tiles .cell.tile.bad').length")
    assert marked == 3  # the smaller island
    checked = browser.find_element("css selector", "#message").text  # an error too: "2 broken rule(s)"
    field(browser, "#hand", SCRIPT)
    browser.find_element("css selector", "#use-hand").click()
    message = wait(browser, lambda d: _new_error(d, checked), 10)
    assert "the hand may hold only letters" in message and no_script_ran(browser)


ATTACK = """<!doctype html><meta charset="utf-8"><title>another site</title>
<iframe name="sink0"></iframe><iframe name="sink1"></iframe><iframe name="sink2"></iframe>
<form target="sink0" method="post" action="{url}/api/jobs" enctype="text/plain">
  <input name='{prefix}' value='"}}'></form>
<form target="sink1" method="post" action="{url}/api/jobs">{inputs}</form>
<form target="sink2" method="post" action="{url}/api/jobs" enctype="multipart/form-data">{inputs}</form>
<script>
window.loads = 0;
for (const frame of document.querySelectorAll("iframe")) frame.addEventListener("load", () => window.loads++);
for (const form of document.forms) form.submit();
const body = JSON.stringify({job});
fetch("{url}/api/jobs", {{method: "POST", mode: "no-cors", body}}).then(
  (answer) => window.plain = answer.type, (error) => window.plain = "failed: " + error);
fetch("{url}/api/jobs", {{method: "POST", headers: {{"Content-Type": "application/json"}}, body}}).then(
  (answer) => window.json = answer.status, (error) => window.json = "refused");
</script>"""


def serve_attack(server) -> tuple:
    """A page on another port of 127.0.0.1 (the same site, another origin) that posts LONG_COUNT to
    the app as each of the three form encodings and as no-cors and JSON fetches; (http server, its URL)."""
    import html
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    job = json.dumps(LONG_COUNT)
    inputs = "".join(f'<input name="{key}" value="{html.escape(str(value))}">' for key, value in LONG_COUNT.items())
    page = ATTACK.format(url=server.url, prefix=html.escape(job[:-1] + ', "pad": "', quote=True), inputs=inputs,
                         job=job).encode()

    class Attack(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    other = ThreadingHTTPServer(("127.0.0.1", 0), Attack)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    return other, f"http://127.0.0.1:{other.server_address[1]}/"


def test_a_page_on_another_origin_cannot_start_a_job(browser, server, api):
    """CSRF in a real browser: forms auto-submitted from a page on another port (text/plain,
    urlencoded, multipart) and a no-cors fetch reach the server and are refused (Origin and
    Sec-Fetch-Site are not this origin's; none is JSON); a JSON fetch dies at its preflight.
    No job starts: a 30 s count would show in /api/status."""
    deadline = time.monotonic() + 30
    while (api.get("/api/status").json()["running"] or api.get("/api/status").json()["waiting"]) \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    other, url = serve_attack(server)
    try:
        browser.get(url)
        wait(browser, lambda d: d.execute_script("return window.loads >= 3 && window.plain && window.json"), 15)
        assert browser.execute_script("return window.plain") == "opaque"  # it reached the server, which answered
        assert browser.execute_script("return window.json") == "refused"
        for _ in range(20):  # two seconds: a started job would be running (or queued) all along
            status = api.get("/api/status").json()
            assert status["running"] == 0 and status["waiting"] == 0, status
            time.sleep(0.1)
    finally:
        other.shutdown()
        other.server_close()


def test_sigterm_stops_the_server_and_every_worker_leaving_no_process(server, api):
    """Last: with a long count running and its event stream open, SIGTERM ends the server within
    seconds, the stream is told ``shutdown`` and why its job stopped, and no process of its
    session (fork server, workers, their engines) is left."""
    job = api.post("/api/jobs", json=LONG_COUNT).json()
    heard: list[str] = []
    listening = threading.Thread(target=_listen, args=(api, job["events"], heard), daemon=True)
    listening.start()
    time.sleep(1.0)
    assert len(server.leftovers()) >= 3  # the server, the fork server, a worker (and its engines)
    code, seconds = server.stop(signal.SIGTERM)
    listening.join(5)
    assert code == 143 and seconds < 4  # the target is 2 s; measured ~1 s on an idle machine
    assert "event: shutdown" in heard and '"stopped_by": "shutdown"' in heard[-1], heard[-3:]
    deadline = time.monotonic() + 3
    while server.leftovers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.leftovers() == []
    assert "Traceback" not in server.stderr() and "ERROR" not in server.stderr(), server.stderr()[-2000:]


def _listen(api, events: str, heard: list[str]) -> None:
    """Read an event stream to its end, keeping its event and data lines."""
    try:
        with api.stream("GET", events) as stream:
            heard.extend(line for line in stream.iter_lines() if line.startswith(("event: ", "data: ")))
    except httpx.HTTPError:
        heard.append("(the stream broke)")
