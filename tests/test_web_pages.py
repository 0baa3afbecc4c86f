"""The pages in a real Chromium: what its console says, and how the grid page's word list behaves.

Every page is loaded and its main button pressed on a tiny input; then Chromium's console
log (``goog:loggingPrefs``, the ``browser`` fixture in tests/conftest.py) must hold no
SEVERE entry: no content-security-policy violation (the policy allows this origin's
files only, no inline style or script), no uncaught exception, no failed request (the
favicon included).
"""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="the web tests need httpx (pip install -e '.[test]')")
pytest.importorskip("starlette", reason="serve needs the web extra (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="serve needs the web extra (pip install -e '.[web]')")

from tests.conftest import choose, field, open_page, wait  # noqa: E402

pytestmark = pytest.mark.xdist_group("web")  # beside tests/test_web.py: one browser at a time on two cores


def state(driver) -> str:
    return driver.execute_script("return document.body.dataset.state")


def solve_a_3x3(driver) -> None:
    field(driver, "#size", "3x3")
    field(driver, "#top", "300")
    choose(driver, "#mode", "first")
    driver.find_element("css selector", "#solve").click()
    wait(driver, lambda d: state(d) == "done", 20)


def find_words(driver) -> None:
    driver.find_element("css selector", "#find").click()
    wait(driver, lambda d: d.find_elements("css selector", "#words li"), 20)


def new_game_and_check(driver) -> None:
    choose(driver, "#bag", "25")
    driver.find_element("css selector", "#new-game").click()
    wait(driver, lambda d: d.execute_script("return document.body.dataset.rack") == "21", 20)
    driver.find_element("css selector", "#check").click()  # an empty board: a broken rule, marked
    wait(driver, lambda d: d.find_elements("css selector", "#problems li"), 20)


def fill(driver) -> None:
    driver.find_element("css selector", "#solve").click()
    wait(driver, lambda d: state(d) == "done", 20)


def explain(driver) -> None:
    driver.find_element("css selector", "#explain").click()
    wait(driver, lambda d: state(d) == "done", 20)


MAIN_ACTIONS = [("/", None), ("/rect", solve_a_3x3), ("/grid", find_words), ("/banana", new_game_and_check),
                ("/wordscapes", fill), ("/learn", explain)]


@pytest.mark.parametrize("path, act", MAIN_ACTIONS, ids=[path for path, _ in MAIN_ACTIONS])
def test_a_page_and_its_main_action_leave_no_error_in_the_console(browser, server, path, act):
    browser.get_log("browser")  # what earlier pages left
    open_page(browser, server, path)
    if act is not None:
        act(browser)
    assert state(browser) != "error", browser.find_element("css selector", "#message").text
    wait(browser, lambda d: d.execute_script("return document.readyState") == "complete", 5)  # the icon too
    severe = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert severe == []
    inline = browser.execute_script(
        "return [...document.querySelectorAll('[style], script:not([src])')].map(e => e.outerHTML.slice(0, 80));")
    assert inline == []
