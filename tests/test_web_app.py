"""The web app in process (httpx's ASGI transport, no server, no worker): its pages come from one
layout, the limits it states are the limits it applies, a Bananagrams check answers in the
player's board coordinates, and it answers the hosts it should.

No request here reaches a worker: a size past the limit is refused while its command is
built, and the game's moves are answered by the app itself.
"""

from __future__ import annotations

import asyncio
import re

import pytest

httpx = pytest.importorskip("httpx", reason="the API tests need httpx (pip install -e '.[test]')")
pytest.importorskip("starlette", reason="serve needs the web extra (pip install -e '.[web]')")

from cpmodel.web import forms  # noqa: E402
from cpmodel.web.app import create_app  # noqa: E402

ORIGIN = "http://127.0.0.1:8000"


def call(app, method: str, path: str, base_url: str = ORIGIN, **options) -> httpx.Response:
    async def send():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base_url) as client:
            return await client.request(method, path, **options)

    return asyncio.run(send())


@pytest.fixture(scope="module")
def app():
    return create_app(workers=1, queue=1)


def maxima(html: str) -> dict[str, str]:
    """Each input's id → its max attribute, as the page states it."""
    return dict(re.findall(r'<input id="([\w-]+)"[^>]*? max="([^"]+)"', html))


# ---- one layout ------------------------------------------------------------------------------


def test_every_page_has_the_one_layouts_head_and_header_and_its_icon(app):
    from cpmodel.web.pages import PAGES

    for page in PAGES:
        html = call(app, "GET", page.path).text
        assert f"<title>{page.title} · cpmodel</title>" in html and '<link rel="icon" href="/static/favicon.svg"' in html
        links = re.findall(r'<header>(.*?)</header>', html, re.S)[0]
        assert re.findall(r'href="([^"]+)"', links) == ["/"] + [other.path for other in PAGES if other.path != "/"]
        assert links.count('aria-current="page"') == (page.path != "/")
    for path in ("/static/favicon.svg", "/favicon.ico"):
        icon = call(app, "GET", path)
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml" and b"<svg" in icon.content


# ---- the limits ------------------------------------------------------------------------------


@pytest.mark.parametrize("path, body, limit", [
    ("/api/rect", {"size": "9x9"}, forms.MAX_RECT_SIDE),
    ("/api/rect", {"size": "16x3"}, forms.MAX_RECT_SIDE),  # past the CLI's own 15 too: still the server's 8
    ("/api/explain", {"puzzle": "rect", "size": "3x9"}, forms.MAX_RECT_SIDE),
    ("/api/grid", {"best": "7x7"}, forms.MAX_BEST_SIDE),
])
def test_a_size_past_the_limit_names_the_limit_this_server_applies(app, path, body, limit):
    answer = call(app, "POST", path, json=body)
    assert answer.status_code == 400
    assert answer.json()["error"] == f"each side of the size must be between 1 and {limit}, got {body.get('size') or body['best']!r}"


def test_the_pages_state_the_limits_the_server_applies(app):
    rect, grid, learn = (call(app, "GET", path).text for path in ("/rect", "/grid", "/learn"))
    assert maxima(rect) == {"top": str(forms.MAX_TOP), "limit": str(forms.MAX_LIMIT), "time": f"{forms.TIME_CEILING:g}"}
    assert maxima(grid) == {"min": str(forms.MAX_MIN_LENGTH), "seed": str(forms.MAX_SEED),
                            "best-time": f"{forms.TIME_CEILING:g}"}
    assert maxima(learn)["top"] == str(forms.MAX_TOP)
    assert f"sides 1–{forms.MAX_RECT_SIDE}" in rect and f"sides 1–{forms.MAX_BEST_SIDE}" in grid


def test_one_constant_sets_both_the_check_and_what_the_page_says(monkeypatch):
    """Lower the server's limits: the pages and the refusals follow, nothing else to change."""
    monkeypatch.setattr(forms, "MAX_RECT_SIDE", 5)
    monkeypatch.setattr(forms, "MAX_TOP", 123)
    monkeypatch.setattr(forms, "TIME_CEILING", 30.0)
    app = create_app(workers=1, queue=1)
    page = call(app, "GET", "/rect").text
    assert "sides 1–5" in page and maxima(page)["top"] == "123" and maxima(page)["time"] == "30"
    refusals = [call(app, "POST", "/api/rect", json=body).json()["error"]
                for body in ({"size": "6x6"}, {"size": "5x5", "top": 124}, {"size": "5x5", "time_limit": 31})]
    assert refusals == ["each side of the size must be between 1 and 5, got '6x6'",
                        "argument --top: must be from 1 to 123, got 124",
                        "argument --time-limit: at most 30 s on this server, got 31"]


# ---- Bananagrams: positions on the player's board -----------------------------------------------


def test_a_check_names_and_marks_squares_of_the_players_board_not_of_the_layouts_box(app):
    """The layout's box starts at row 5, column -3 of the board: 'cxt' there is no word, and the
    island 'dog' two rows below is the smaller one (a tie keeps the first found as the largest)."""
    game = call(app, "POST", "/api/banana/game", json={"hand": "cxtdog"}).json()
    layout = {"layout": "cxt\n...\ndog", "top": 5, "left": -3}
    answer = call(app, "POST", f"/api/banana/game/{game['id']}/check", json=layout).json()
    assert answer["problems"] == ["rule 2: 2 islands, not one connected layout; apart from the largest: 3 tile(s) at (7, -3)",
                                  "rule 3: 'cxt' across at row 5, column -3 is not a word"]
    assert answer["marked"] == [[5, -3], [5, -2], [5, -1], [7, -3], [7, -2], [7, -1]]
    assert not answer["valid"] and answer["rack"] == ""
    unplaced = call(app, "POST", f"/api/banana/game/{game['id']}/check", json={"layout": "dog"}).json()
    assert unplaced["problems"] == ["rule 1: tiles not placed: ctx"] and unplaced["marked"] == []  # no square to mark


@pytest.mark.parametrize("offset", [{"top": 10_001}, {"left": "x"}, {"top": 1.5}])
def test_a_board_position_out_of_range_or_not_whole_is_a_400(app, offset):
    game = call(app, "POST", "/api/banana/game", json={"hand": "cat"}).json()
    answer = call(app, "POST", f"/api/banana/game/{game['id']}/check", json={"layout": "cat", **offset})
    assert answer.status_code == 400 and next(iter(offset)) in answer.json()["error"]


# ---- trusted hosts ---------------------------------------------------------------------------


@pytest.mark.parametrize("bound", ["127.0.0.1", "localhost", "::1"])
def test_a_loopback_server_answers_every_loopback_name_and_nothing_else(bound):
    from cpmodel.web.app import allowed_hosts

    app = create_app(workers=1, queue=1, hosts=allowed_hosts(bound))
    for host in ("127.0.0.1:8000", "localhost:8000", "LOCALHOST", "[::1]:8000", "[::1]", "127.0.0.1"):
        assert call(app, "GET", "/", headers={"host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:8000", "[::2]:8000", "::1", "127.0.0.2:8000", "[::1"):
        assert call(app, "GET", "/", headers={"host": host}).status_code == 400, host


def test_bound_to_every_address_it_answers_any_host():
    from cpmodel.web.app import allowed_hosts

    assert allowed_hosts("0.0.0.0") == allowed_hosts("::") == ("*",)
    assert allowed_hosts("192.0.2.7") == ("127.0.0.1", "localhost", "[::1]", "192.0.2.7")


def test_a_server_on_ipv6_loopback_answers_its_pages_and_its_own_origins_json():
    """``serve --host ::1``, reached as a browser reaches it: http://[::1]:PORT/, the Host header
    in brackets; a POST from its own origin passes the same-origin guard."""
    import socket

    from cpmodel.web.launch import launch

    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    server = launch("--host", "::1", "--jobs", "1", "--queue", "1")
    try:
        assert server.url.startswith("http://[::1]:")
        with httpx.Client(base_url=server.url, timeout=10) as client:
            assert client.get("/").status_code == 200
            game = client.post("/api/banana/game", json={"hand": "cat"}, headers={"origin": server.url})
            assert game.status_code == 200 and game.json()["rack"] == "act"
            assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    finally:
        server.stop()
