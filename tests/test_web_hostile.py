"""Hostile requests against the web app, in process: only same-origin JSON changes state, and no
body, header or field value gets a 5xx.

The app runs behind httpx's ASGI transport (no server, no lifespan, so no fork server), and its
job manager records each job instead of running it: a request that got through shows up in
``started``, and no solver ever runs. The plain tests pin each case of the issue (a cross-site
form, ``Origin: http://evil.example``, ``[`` x 5000, ``1e999``, ``NaN``, a repeated key, ...);
the hypothesis tests throw generated bodies, content types and origins at every POST endpoint.
The same attack from a real page on another port, in Chromium, is in tests/test_web.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

httpx = pytest.importorskip("httpx", reason="the API tests need httpx (pip install -e '.[test]')")
pytest.importorskip("starlette", reason="serve needs the web extra (pip install -e '.[web]')")

from cpmodel.web import guard  # noqa: E402
from cpmodel.web.app import create_app  # noqa: E402
from cpmodel.web.jobs import DONE, Job  # noqa: E402

ORIGIN = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}
FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PUZZLES = ("rect", "grid", "wordscapes", "banana", "words", "explain")


class App:
    """The app in process; its job manager records jobs (``started``, ``cancelled``) instead of running them."""

    def __init__(self):
        self.app = create_app(workers=1, queue=1)
        self.started: list[list[str]] = []
        self.cancelled: list[str] = []
        self.ids = (f"job{n}" for n in itertools.count())
        jobs = self.app.state.jobs
        jobs.submit, jobs.result, jobs.cancel = self._submit, self._result, self._cancel
        self.loop = asyncio.new_event_loop()
        transport = httpx.ASGITransport(app=self.app, raise_app_exceptions=False)
        self.client = httpx.AsyncClient(transport=transport, base_url=ORIGIN)
        self.job = self.post("/api/jobs", json={"puzzle": "rect", "size": "3x3"}).json()["id"]
        self.game = self.post("/api/banana/game", json={"seed": 1, "bag": 25}).json()["id"]

    def _submit(self, argv, files, time_limit):
        self.started.append(argv)
        doc = {"families": []} if argv[0] == "explain" else {"status": "found"}
        job = Job(next(self.ids), argv, files, time_limit, state=DONE,
                  events=[("done", {"code": 0, "doc": doc, "cancelled": False})])
        self.app.state.jobs.jobs[job.id] = job
        return job

    async def _result(self, job):
        return job.result

    def _cancel(self, job):
        self.cancelled.append(job.id)

    def request(self, method: str, path: str, **options):
        return self.loop.run_until_complete(self.client.request(method, path, **options))

    def post(self, path: str, **options):
        return self.request("POST", path, **options)

    def state(self) -> tuple:
        """Everything a request could change: jobs started and cancelled, the games and their moves."""
        games = {key: game.to_json() for key, game in self.app.state.games.items()}
        return len(self.started), len(self.cancelled), json.dumps(games, sort_keys=True)

    def close(self) -> None:
        self.loop.run_until_complete(self.client.aclose())
        self.loop.close()


@pytest.fixture(scope="module")
def app():
    made = App()
    yield made
    made.close()


def post_paths(app: App) -> list[str]:
    """Every POST endpoint (and each puzzle and game move)."""
    return (["/api/jobs", f"/api/jobs/{app.job}/cancel", "/api/banana/game"]
            + [f"/api/banana/game/{app.game}/{move}" for move in ("check", "peel", "dump")]
            + [f"/api/{puzzle}" for puzzle in PUZZLES])


ENDPOINTS = ["jobs", "cancel", "game", "check", "peel", "dump", *PUZZLES]


def path_of(app: App, name: str) -> str:
    return post_paths(app)[ENDPOINTS.index(name)]


def one_line_error(answer) -> str:
    """The answer is a 4xx whose body is one line of JSON with an "error" key; its message."""
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text[:300])
    assert "\n" not in answer.text and answer.headers["content-type"] == "application/json", answer.text[:300]
    error = answer.json()["error"]
    assert isinstance(error, str) and error and "\n" not in error and "Traceback" not in error
    return error


# ---- only same-origin JSON changes state ------------------------------------------------------


GOOD = {"jobs": {"puzzle": "rect", "size": "3x3"}, "rect": {"size": "3x3"}, "grid": {"random": True},
        "wordscapes": {"board": "...", "letters": "ate"}, "banana": {"hand": "ate"}, "words": {"letters": "tien"},
        "explain": {"puzzle": "rect", "size": "3x3"}, "game": {"seed": 1, "bag": 25},
        "check": {"layout": "cat"}, "peel": {"layout": "cat"}, "dump": {"tile": "?"}, "cancel": {}}


@pytest.mark.parametrize("headers, body, status, says", [
    ({"content-type": "application/x-www-form-urlencoded"}, b"size=3x3&puzzle=rect", 415, "Content-Type: application/json"),
    ({"content-type": "text/plain"}, b'{"puzzle": "rect", "size": "3x3"}', 415, "got 'text/plain'"),
    ({"content-type": "multipart/form-data; boundary=x"},
     b'--x\r\nContent-Disposition: form-data; name="size"\r\n\r\n3x3\r\n--x--\r\n', 415, "must be JSON"),
    ({}, b'{"puzzle": "rect", "size": "3x3"}', 415, "got 'none'"),
    ({"content-type": "application/json; charset=latin-1"}, b"{}", 415, "charset=utf-8"),
    ({**JSON, "origin": "http://evil.example"}, b"{}", 403, "Origin 'http://evil.example' is not this server's"),
    ({**JSON, "origin": "null"}, b"{}", 403, "Origin 'null'"),
    ({**JSON, "origin": "http://127.0.0.1:8001"}, b"{}", 403, "(http://127.0.0.1:8000)"),
    ({**JSON, "sec-fetch-site": "cross-site"}, b"{}", 403, "Sec-Fetch-Site is 'cross-site'"),
    ({**JSON, "sec-fetch-site": "same-site"}, b"{}", 403, "Sec-Fetch-Site is 'same-site'"),
    ({**JSON, "origin": ORIGIN, "sec-fetch-site": "cross-site"}, b"{}", 403, "cross-site request refused"),
    ({"content-type": "text/plain", "origin": "http://evil.example"}, b"{}", 403, "cross-site request refused"),
])
def test_a_cross_site_or_non_json_post_is_refused_and_changes_nothing(app, headers, body, status, says):
    """A form on another site (any of its three encodings), a no-cors fetch, an Origin or a
    Sec-Fetch-Site that is not this origin's: 403 or 415 with the reason, and nothing changed,
    on every POST endpoint (with a body it would otherwise take)."""
    for endpoint in ENDPOINTS:
        sent = json.dumps(GOOD[endpoint]).encode() if body == b"{}" else body
        before = app.state()
        answer = app.post(path_of(app, endpoint), content=sent, headers=headers)
        assert answer.status_code == status and says in one_line_error(answer), endpoint
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert app.state() == before, endpoint


@pytest.mark.parametrize("endpoint", ["jobs", "rect", "explain", "game", "check", "cancel"])
@pytest.mark.parametrize("headers", [
    JSON,
    {**JSON, "origin": ORIGIN, "sec-fetch-site": "same-origin"},
    {"content-type": "application/json; charset=UTF-8", "origin": ORIGIN},
    {"content-type": "Application/JSON", "sec-fetch-site": "none"},
])
def test_same_origin_json_and_a_client_that_is_no_browser_are_served(app, endpoint, headers):
    before = app.state()
    answer = app.post(path_of(app, endpoint), content=json.dumps(GOOD[endpoint]), headers=headers)
    assert answer.status_code in (200, 202), answer.text
    assert app.state() != before or endpoint == "check"  # a check changes nothing


def test_origins_are_compared_as_browsers_write_them():
    scope = {"scheme": "http", "headers": [(b"host", b"LocalHost:80")], "server": ("127.0.0.1", 80)}
    assert guard.own_origin(scope) == "http://localhost"
    assert guard.cross_site({**scope, "headers": [*scope["headers"], (b"origin", b"http://localhost")]}) is None
    assert guard.cross_site({**scope, "headers": [*scope["headers"], (b"origin", b"https://localhost")]})
    assert guard.own_origin({"scheme": "http", "headers": [], "server": ("::1", 8000)}) == "http://[::1]:8000"
    two = [(b"origin", b"http://localhost"), (b"origin", b"http://localhost")]
    assert "repeats" in guard.cross_site({**scope, "headers": [*scope["headers"], *two]})


def test_get_changes_nothing_and_a_cross_site_event_stream_is_refused(app):
    """Pages stay open to links from anywhere; the API answers its own pages only: opening a job's
    event stream from another site (an <img src>) and dropping it would otherwise cancel the job."""
    before = app.state()
    for path in ("/", "/rect", "/grid", "/banana", "/wordscapes", "/learn", "/static/common.js", "/api/status",
                 f"/api/jobs/{app.job}", f"/api/jobs/{app.job}/events", "/api/jobs", "/api/rect",
                 "/api/banana/game", f"/api/banana/game/{app.game}/peel", f"/api/jobs/{app.job}/cancel"):
        for method in ("GET", "HEAD"):
            answer = app.request(method, path, content=b"size=3x3", headers={"content-type": "text/plain"})
            assert answer.status_code in (200, 405), (method, path, answer.status_code)
    assert app.state() == before
    for path in ("/rect", "/static/common.js"):
        assert app.request("GET", path, headers={"sec-fetch-site": "cross-site"}).status_code == 200
    for path in (f"/api/jobs/{app.job}/events", "/api/status"):
        answer = app.request("GET", path, headers={"sec-fetch-site": "cross-site", "origin": "http://evil.example"})
        assert answer.status_code == 403 and "cross-site" in one_line_error(answer)
    assert app.state() == before


# ---- hostile bodies: a 400 that names the problem, never a 5xx -------------------------------

HOSTILE = [
    ("[" * 5000 + "]" * 5000, "the request body nests 5,000 levels deep; at most 32 are allowed"),
    ('{"a":' * 5000 + "1" + "}" * 5000, "nests 5,000 levels deep; at most 32"),
    ('{"a": ' + "[" * 33 + "]" * 33 + "}", "nests 34 levels deep"),
    ('{"time_limit": 1e999}', "the number 1e999 in the request body is out of range"),
    ('{"top": -1e400}', "out of range"),
    ('{"top": ' + "1" * 5000 + "}", "a number in the request body has 5,000 digits; at most 100 are allowed"),
    ('{"time_limit": NaN}', "the request body holds NaN, which is not JSON"),
    ('{"time_limit": Infinity}', "holds Infinity"),
    ('{"top": -Infinity}', "holds -Infinity"),
    ('{"size": "\\ud800"}', "the field 'size' holds a lone surrogate ('\\ud800')"),
    ('{"x": ["\\udfff"]}', "the field 'x' holds a lone surrogate"),
    ('{"size": "3x3\\u0000"}', "the field 'size' holds a NUL character"),
    ('{"\\u0000": 1}', "holds a NUL character"),
    (b'{"size": "\xff3x3"}', "the request body is not UTF-8 text (byte 0xff at offset 10)"),
    (b'{"size": "\xed\xa0\x80"}', "not UTF-8"),
    ('{"size": "3x3", "size": "4x4"}', "the request body repeats the key 'size'; each key may appear once"),
    ('{"a": {"b": 1, "b": 2}}', "repeats the key 'b'"),
    ("[]", "the request body must be a JSON object, got an array"),
    ('"3x3"', "must be a JSON object, got a string"),
    ("7", "must be a JSON object, got a number"),
    ("null", "must be a JSON object, got null"),
    ("true", "must be a JSON object, got true"),
    ("{not json", "the request body is not JSON"),
    ("\ufeff{}", "the request body is not JSON"),
]


@pytest.mark.parametrize("body, message", HOSTILE, ids=[f"case{n}" for n in range(len(HOSTILE))])
def test_a_hostile_body_is_a_400_naming_its_problem(app, body, message):
    """Each case, on every POST endpoint: a 400 with the message, and nothing changed."""
    raw = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
    for endpoint in ENDPOINTS:
        before = app.state()
        answer = app.post(path_of(app, endpoint), content=raw, headers=JSON)
        assert answer.status_code == 400 and message in one_line_error(answer), endpoint
        assert app.state() == before, endpoint


def test_the_depth_scan_skips_strings_and_counts_every_level():
    assert guard.nesting('{"a": "[[[[{{", "b": [{"c": "\\"]]"}]}') == 3
    assert guard.nesting('"\\"' * 20_000 + "[[") == 0  # one unterminated string: its brackets are text
    assert guard.nesting("[" * 60_000) == 60_000
    assert guard.json_object(b'{"a": "' + b"[" * 60_000 + b'"}') == {"a": "[" * 60_000}
    deepest = b'{"a": ' + b"[" * 31 + b"]" * 31 + b"}"  # 32 levels: the limit
    assert guard.nesting(deepest.decode()) == guard.MAX_DEPTH and "a" in guard.json_object(deepest)


# Every field each endpoint reads, the name its message gives it, and a body that reaches it.
FIELDS = {
    "rect": ({"size": "3x3", "mode": "limit"},
             {"size": "size", "mode": "mode", "solver": "--solver", "top": "--top", "pattern": "--pattern",
              "distinct": "distinct", "symmetric": "symmetric", "time_limit": "--time-limit", "limit": "--limit"}),
    "grid": ({"board": "abc/def/ghi"},
             {"board": "BOARD", "score": "--score", "min": "--min", "max": "--max", "seed": "--seed",
              "best": "--best", "random": "random", "time_limit": "--time-limit"}),
    "wordscapes": ({"board": "...", "letters": "ate"},
                   {"board": "BOARD", "letters": "LETTERS", "mode": "mode", "solver": "--solver", "min": "--min",
                    "time_limit": "--time-limit"}),
    "banana": ({"hand": "ate", "action": "peel", "layout": "ate"},
               {"hand": "HAND", "draw": "--draw", "layout": "layout", "action": "action", "time_limit": "--time-limit"}),
    "words": ({"letters": "tien"}, {"letters": "letters", "min": "--min", "sort": "--sort", "time_limit": "--time-limit"}),
    "explain": ({"puzzle": "rect", "size": "3x3"},
                {"puzzle": "PUZZLE", "size": "size", "encoding": "--encoding", "top": "--top", "pattern": "--pattern",
                 "time_limit": "--time-limit"}),
    "jobs": ({"puzzle": "rect", "size": "3x3"}, {"puzzle": "puzzle", "size": "size", "top": "--top"}),
    "game": ({}, {"seed": "--seed", "bag": "bag", "hand": "HAND"}),
    "check": ({}, {"layout": "layout"}),
    "dump": ({}, {"tile": "tile", "layout": "layout"}),
}
FLAGS = {"distinct", "symmetric", "random"}
WRONG = [[1], {"a": 1}, True, 1.5, "x" * 9000]  # 9000: over every text limit (a layout: 8000)
WRONG_FLAGS = [[True], {"a": 1}, "yes", 1, 1.5]


@pytest.mark.parametrize("endpoint, key", [(e, k) for e, (_, keys) in FIELDS.items() for k in keys])
def test_a_field_of_the_wrong_type_is_a_400_naming_the_field(app, endpoint, key):
    base, names = FIELDS[endpoint]
    for value in WRONG_FLAGS if key in FLAGS else WRONG:
        if key == "time_limit" and value == 1.5:  # 1.5 seconds is a time limit
            continue
        answer = app.post(path_of(app, endpoint), json={**base, key: value})
        error = one_line_error(answer)
        assert answer.status_code == 400 and names[key] in error and len(error) < 300, (key, value, error)


# ---- the fuzz ---------------------------------------------------------------------------------

KEYS = sorted({key for _, keys in FIELDS.values() for key in keys} | {"puzzle", "action", "sort"})
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=10**90, max_value=10**120),
                   st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                   st.sampled_from(["3x3", "5x6", "abc/def/ghi", "ate", "rect", "first", "all", "best", "auto",
                                    "\ud800", "\x00", "1e999", "[" * 40]))
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                          max_size=3), max_leaves=8)
OBJECTS = st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), VALUES, max_size=6)


def _encoded(value) -> bytes:
    return json.dumps(value).encode("utf-8", "surrogatepass")


NUMBERS = ["1e999", "-1e999", "1" * 101, "-" + "9" * 5000, "NaN", "Infinity", "-Infinity", "0.5e-400", "-0"]
ESCAPES = ["\\ud800", "\\udc00x", "\\u0000", "\\ud83d\\ude00", '\\"', "\\\\", "\\x"]
SCALARS = ["[]", '"x"', "1", "null", "true", "", " ", "{", "}", "[{}]", "{}"]


@st.composite
def crafted(draw) -> bytes:
    """JSON text json.dumps would never write (deep nesting, huge numbers, constants, repeated
    keys, odd escapes), whole or cut anywhere."""
    shape, key = draw(st.sampled_from(["array", "object", "field", "number", "repeat", "escape", "scalar"])), \
        draw(st.sampled_from(KEYS))
    depth, opening = draw(st.sampled_from([1, 31, 32, 33, 1000, 5000])), f'{{"{key}": '
    if shape == "array":
        text = "[" * depth + "]" * depth
    elif shape == "object":
        text = '{"a":' * depth + "1" + "}" * depth
    elif shape == "field":
        text = opening + "[" * depth + "]" * depth + "}"
    elif shape == "number":
        text = opening + draw(st.sampled_from(NUMBERS)) + "}"
    elif shape == "repeat":
        text = opening + "1, " + opening[1:] + "2}"
    elif shape == "escape":
        text = opening + '"' + draw(st.sampled_from(ESCAPES)) + '"}'
    else:
        text = draw(st.sampled_from(SCALARS))
    if draw(st.booleans()):
        text = text[:draw(st.integers(min_value=0, max_value=len(text)))]
    return text.encode()


BODIES = st.one_of(OBJECTS.map(_encoded), VALUES.map(_encoded), crafted(), st.binary(max_size=80),
                   st.tuples(OBJECTS.map(_encoded), st.binary(min_size=1, max_size=4), st.integers(0, 200)).map(
                       lambda t: t[0][:t[2]] + t[1] + t[0][t[2]:]))
# (Content-Type, whether the app takes it as JSON)
TYPES = st.sampled_from([("application/json", True), ("application/json; charset=utf-8", True),
                         ("APPLICATION/JSON;CHARSET=\"UTF-8\"", True), ("application/json;", True),
                         ("application/json; charset=latin-1", False), ("application/json; x=y", False),
                         ("text/plain", False), ("text/plain; charset=utf-8", False),
                         ("application/x-www-form-urlencoded", False), ("multipart/form-data; boundary=x", False),
                         ("application/jsonx", False), ("", False), (None, False)])
# (Origin, Sec-Fetch-Site, whether the request is this origin's or no browser's)
SOURCES = st.sampled_from([(None, None, True), (ORIGIN, None, True), (ORIGIN, "same-origin", True), (None, "none", True),
                           ("HTTP://127.0.0.1:8000", "same-origin", True),
                           ("http://evil.example", None, False), ("http://evil.example", "cross-site", False),
                           ("null", None, False), ("http://127.0.0.1:8001", "same-site", False),
                           ("https://127.0.0.1:8000", None, False), (ORIGIN, "cross-site", False),
                           (None, "same-site", False), (None, "garbage", False), ("", None, False)])


@FUZZ
@given(data=st.data(), body=BODIES, content_type=TYPES, source=SOURCES)
def test_fuzz_every_post_endpoint(app, data, body, content_type, source):
    """Never a 5xx; every refusal is one line of JSON; a cross-site request is a 403 and a
    non-JSON one a 415, and neither changes anything."""
    paths = post_paths(app)
    path = data.draw(st.sampled_from(paths), label="path")
    (kind, json_type), (origin, site, ours) = content_type, source
    headers = {name: value for name, value in (("content-type", kind), ("origin", origin), ("sec-fetch-site", site))
               if value is not None}
    before = app.state()
    answer = app.post(path, content=body, headers=headers)
    event(f"HTTP {answer.status_code}")
    assert answer.status_code < 500, (answer.status_code, answer.text[:300])
    if answer.status_code >= 400:
        one_line_error(answer)
    if not ours:
        assert answer.status_code == 403
    elif not json_type:
        assert answer.status_code == 415
    if answer.status_code >= 400:
        assert app.state() == before


@FUZZ
@given(endpoint=st.sampled_from(sorted(FIELDS)), fields=OBJECTS)
def test_fuzz_fields_of_every_endpoint(app, endpoint, fields):
    """A JSON object of the fields each endpoint reads, any value of any type: a good answer or a 4xx one-liner."""
    base, _ = FIELDS[endpoint]
    answer = app.post(path_of(app, endpoint), content=_encoded({**base, **fields}), headers=JSON)
    event(f"HTTP {answer.status_code}")
    assert answer.status_code < 500, (answer.status_code, answer.text[:300])
    if answer.status_code >= 400:
        one_line_error(answer)


def test_after_the_fuzz_a_good_request_is_still_served(app):
    before = len(app.started)
    answer = app.post("/api/rect", json={"size": "3x3"}, headers={"origin": ORIGIN, "sec-fetch-site": "same-origin"})
    assert answer.status_code == 200 and answer.json() == {"status": "found"}
    assert len(app.started) == before + 1 and app.started[-1][:2] == ["rect", "--json"]
    assert app.request("GET", "/api/status").status_code == 200
