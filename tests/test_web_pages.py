"""The pages in a real Chromium: what its console says, the grid page's long word list, the
fields each mode shows, and where a Bananagrams check points.

Every page is loaded and its main button pressed on a tiny input; then Chromium's console
log (``goog:loggingPrefs``, the ``browser`` fixture in tests/conftest.py) must hold no
SEVERE entry: no content-security-policy violation (the policy allows this origin's
files only, no inline style or script), no uncaught exception, no failed request (the
favicon included). The grid tests use a 5x5 board of 2,498 words (found in about 0.5 s).
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("httpx", reason="the web tests need httpx (pip install -e '.[test]')")
pytest.importorskip("starlette", reason="serve needs the web extra (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="serve needs the web extra (pip install -e '.[web]')")

from tests.conftest import banana_hand, choose, field, open_page, wait  # noqa: E402

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


# ---- the grid page: a long word list beside its board ------------------------------------

RICH_BOARD = "ligdr/manes/ietil/dsrac/sepes"  # 2,498 words on the default lexicon, found in about 0.5 s
LIT_PATH = """[...document.querySelectorAll('#grid-board .cell.on')]
  .map(c => [+c.querySelector('.order').textContent, [+c.dataset.r, +c.dataset.c]])
  .sort((a, b) => a[0] - b[0]).map(([, cell]) => cell)"""  # the lit path, in its order
WATCH_LIT = ("window.litSeen = []; new MutationObserver(() => window.litSeen.push(" + LIT_PATH + "))"
             ".observe(document.querySelector('#board'), {subtree: true, childList: true, attributes: true});")


@pytest.fixture
def rich_board(browser, server):
    """The grid page showing every word of a 5x5 board; the window back to its size afterwards."""
    open_page(browser, server, "/grid")
    field(browser, "#board-input", RICH_BOARD)
    browser.find_element("css selector", "#find").click()
    wait(browser, lambda d: len(d.find_elements("css selector", "#words li")) > 1500, 20)
    yield browser.find_elements("css selector", "#words li")
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def lit(driver) -> list:
    return driver.execute_script("return " + LIT_PATH)


def path_of(item) -> list:
    return json.loads(item.get_attribute("data-path"))


def inside_the_window(driver, selector: str) -> bool:
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;", selector)


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
@pytest.mark.parametrize("how", ["hover", "focus"])
def test_the_board_stays_in_view_while_the_last_word_is_pointed_at_or_focused(browser, rich_board, width, height, how):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500})
    assert browser.execute_script("return [innerWidth, innerHeight]") == [width, height]
    last = rich_board[-1]
    if how == "hover":  # scrolled to with the wheel, as a person would
        ActionChains(browser).scroll_to_element(last).move_to_element(last).perform()
    else:  # Tab from the word before it
        browser.execute_script("arguments[0].focus()", rich_board[-2])
        ActionChains(browser).send_keys(Keys.TAB).perform()
    wait(browser, lambda d: lit(d) == path_of(last), 5)
    assert inside_the_window(browser, "#grid-board"), browser.execute_script(
        "return [document.querySelector('#grid-board').getBoundingClientRect().toJSON(), scrollY]")
    assert browser.execute_script(  # and the word itself (to the pixel: a scroll may leave a fraction out)
        "const r = arguments[0].getBoundingClientRect(); return r.top >= -1 && r.bottom <= innerHeight + 1;", last)


def test_the_keyboard_wins_over_a_resting_pointer_until_the_pointer_moves(browser, rich_board):
    """The focus is on the last word in sight, and the pointer rests on the first word (its path
    lit); Tab moves the focus to the next word, below the list's visible part, so the list scrolls
    under the resting pointer: the focused word's path is lit, and no other on the way. Moving the
    pointer hands control back to hover."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    first = rich_board[0]
    last_seen = browser.execute_script(
        "const box = document.querySelector('#words').getBoundingClientRect();"
        "return [...document.querySelectorAll('#words li')].filter(li => li.getBoundingClientRect().bottom <= box.bottom).length - 1;")
    browser.execute_script("arguments[0].focus()", rich_board[last_seen])
    assert lit(browser) == path_of(rich_board[last_seen])
    ActionChains(browser).move_to_element(first).move_by_offset(3, 0).perform()
    assert lit(browser) == path_of(first)  # the pointer moved: hover rules
    browser.execute_script(WATCH_LIT)
    ActionChains(browser).send_keys(Keys.TAB).perform()
    focused = rich_board[last_seen + 1]
    assert browser.execute_script("return document.activeElement") == focused
    for _ in range(5):  # steadily
        assert lit(browser) == path_of(focused)
        browser.execute_script("return new Promise(done => setTimeout(done, 60))")
    seen = browser.execute_script("return window.litSeen")
    assert seen and all(path == path_of(focused) for path in seen), "another path was lit on the way"
    ActionChains(browser).move_to_element(rich_board[last_seen]).perform()
    assert lit(browser) == path_of(rich_board[last_seen])


# ---- fields a mode does not read are hidden; Bananagrams positions are the board's -------------


def shown_fields(driver) -> set[str]:
    """The ids of the form's fields a person can see."""
    return {element.get_attribute("id") for element in driver.find_elements("css selector", "#form input, #form select, #form textarea")
            if element.is_displayed()}


@pytest.mark.parametrize("path, select, shown", [
    ("/rect", "#mode", {"familiar": set(), "first": set(), "limit": {"limit"}, "all": set(), "count": set(), "best": set()}),
    ("/learn", "#puzzle", {"rect": {"size", "top", "encoding"}, "banana": {"hand"}, "wordscapes": {"ws-board", "letters"}}),
], ids=["rect", "learn"])
def test_a_field_shows_only_with_the_choices_that_read_it(browser, server, path, select, shown):
    """Each choice of the select shows the fields every choice reads and its own: K only with
    --limit K; the rect, banana or wordscapes fields only with that puzzle."""
    from selenium.webdriver.support.ui import Select

    open_page(browser, server, path)
    choices = [option.get_attribute("value") for option in Select(browser.find_element("css selector", select)).options]
    assert sorted(choices) == sorted(shown)
    everywhere = shown_fields(browser) - shown[choices[0]]  # the first choice is the page's default
    for choice in choices:
        choose(browser, select, choice)
        assert shown_fields(browser) - everywhere == shown[choice], choice


def test_a_checked_word_is_named_and_marked_where_the_player_put_it(browser, server):
    """Tiles typed two rows up and one column left of the starting square: the problem names
    that square (row -2, column -1, as the cursor's position on the page says), and the tiles
    marked are the ones there."""
    from selenium.webdriver.common.keys import Keys

    board = banana_hand(browser, server, "cxtdog")
    board.send_keys(Keys.ARROW_UP, Keys.ARROW_UP, Keys.ARROW_LEFT)
    assert "cursor at row -2, column -1" in browser.find_element("css selector", "#game-info").text
    board.send_keys("cxt")
    browser.find_element("css selector", "#check").click()
    wait(browser, lambda d: d.find_elements("css selector", "#problems li"), 10)
    problems = [li.text for li in browser.find_elements("css selector", "#problems li")]
    assert "rule 3: 'cxt' across at row -2, column -1 is not a word" in problems
    marked = browser.execute_script(
        "return [...document.querySelectorAll('#tiles .cell.bad')].map(c => [+c.dataset.r, +c.dataset.c, c.textContent]);")
    assert sorted(marked) == [[-2, -1, "c"], [-2, 0, "x"], [-2, 1, "t"]]
