"""What a request must be before the app acts on it: same-origin JSON, and a small plain JSON object.

Two guards, each refusing with the app's one-line JSON error (``{"error": MESSAGE}``):

- :class:`SameOriginJson`, an ASGI middleware: a page on another site can make the
  browser POST here (an auto-submitted form, ``fetch`` with ``mode: "no-cors"``) with a
  text/plain, form or multipart body and no CORS preflight, and the job would start.
  So every request that may change state, and every API request, must come from this
  origin (403 otherwise), and every state change must say ``Content-Type:
  application/json`` (415 otherwise): no cross-site form or no-cors fetch can send that
  type without a preflight, which this server never grants.
- :func:`json_object`: a body's bytes as a JSON object, refusing (400, before any
  field is read) what Python's json module would otherwise accept or fail on with an
  exception the app did not expect: deep nesting (a RecursionError in json.loads),
  integers of thousands of digits (a ValueError from int()), ``1e999`` (infinity),
  ``NaN`` and ``Infinity`` (not JSON at all), repeated keys, NUL characters and lone
  surrogates (text no file, argv or UTF-8 answer can carry), bytes that are not UTF-8,
  and a body that is not an object.
"""

from __future__ import annotations

import itertools
import json
import math
import re

from starlette.responses import JSONResponse

from cpmodel.core.errors import InputError

MAX_DEPTH = 32  # arrays and objects inside one another in a request body (the forms need 1)
MAX_DIGITS = 100  # digits in an integer of a request body (the largest field, --seed, needs 10)
SAFE_METHODS = ("GET", "HEAD")  # the only methods that change nothing here (everything else is refused or 405)
FETCH_SITES = ("same-origin", "none")  # Sec-Fetch-Site values of this origin's pages and of typed URLs
DEFAULT_PORTS = {"http": ":80", "https": ":443"}


class SameOriginJson:
    """403 for a cross-site request that may change state, 415 for a state change that is not JSON.

    Checked on every request with a method other than GET and HEAD, and on every ``/api/``
    request (the event stream ``GET /api/jobs/ID/events`` cancels its job when it closes,
    so even opening it from another site, an ``<img src>``, would be a state change):

    - ``Origin``, when sent, must be this server's origin: the scheme, host and port the
      request reached it at (the Host header, which TrustedHostMiddleware has checked).
    - ``Sec-Fetch-Site``, when sent, must be ``same-origin`` (this app's pages) or
      ``none`` (a URL the user typed); ``same-site`` and ``cross-site`` are refused.
    - A request with neither header is no browser's (a browser sends Origin with every
      POST): curl, httpx and scripts pass.

    Then, for a method other than GET and HEAD, ``Content-Type`` must be
    ``application/json`` with at most a UTF-8 charset parameter, even for an empty body.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        changes = scope["method"] not in SAFE_METHODS
        if changes or scope["path"].startswith("/api/"):
            problem = cross_site(scope)
            if problem:
                return await _refuse(403, problem, scope, receive, send)
        if changes:
            problem = not_json(_headers(scope, b"content-type"))
            if problem:
                return await _refuse(415, problem, scope, receive, send)
        await self.app(scope, receive, send)


def cross_site(scope) -> str | None:
    """Why the request is not from this origin, or None when it is (or is no browser's)."""
    origins, sites = _headers(scope, b"origin"), _headers(scope, b"sec-fetch-site")
    own = own_origin(scope)
    if len(origins) > 1 or len(sites) > 1:
        return "cross-site request refused: the request repeats its Origin or Sec-Fetch-Site header"
    if origins and (own is None or _normal(origins[0]) != own):
        return (f"cross-site request refused: Origin {origins[0]!r:.80} is not this server's "
                f"({own or 'unknown'}); only its own pages may call its API")
    if sites and sites[0].strip().lower() not in FETCH_SITES:
        return (f"cross-site request refused: Sec-Fetch-Site is {sites[0]!r:.40}; "
                f"only this server's own pages ({' or '.join(FETCH_SITES)}) may call its API")
    return None


def own_origin(scope) -> str | None:
    """``scheme://host[:port]`` as the request reached the server (default ports dropped, lower case)."""
    hosts = _headers(scope, b"host")
    if hosts:
        host = hosts[0]
    elif scope.get("server"):
        host, port = scope["server"][:2]
        host = f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"
    else:
        return None
    return _normal(f"{scope['scheme']}://{host}")


def _normal(origin: str) -> str:
    """An origin compared as browsers write it: lower case, without its scheme's default port."""
    origin = origin.strip().lower()
    scheme = origin.partition("://")[0]
    port = DEFAULT_PORTS.get(scheme)
    return origin[: -len(port)] if port and origin.endswith(port) else origin


def not_json(types: list[str]) -> str | None:
    """Why a Content-Type is not plain JSON (``application/json``, at most ``; charset=utf-8``), or None."""
    refusal = (f"the request body must be JSON: send Content-Type: application/json, got "
               f"{', '.join(types)[:80] or 'none'!r}")
    if len(types) != 1:
        return refusal
    kind, *parameters = types[0].split(";")
    if kind.strip().lower() != "application/json":
        return refusal
    for parameter in filter(str.strip, parameters):
        name, _, value = parameter.partition("=")
        if name.strip().lower() != "charset" or value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return f"{refusal} (the only parameter allowed is charset=utf-8)"
    return None


def _headers(scope, name: bytes) -> list[str]:
    return [value.decode("latin-1") for key, value in scope.get("headers", ()) if key.lower() == name]


async def _refuse(status: int, message: str, scope, receive, send) -> None:
    await JSONResponse({"error": message}, status_code=status)(scope, receive, send)


# --- the body ---------------------------------------------------------------------------------

# A string (to its closing quote, or to the end when there is none: every match succeeds, so the
# scan is linear even on '"\"\"\"…'), or one bracket, captured.
_TOKENS = re.compile(r'"(?:[^"\\]+|\\[\s\S]?)*(?:"|\Z)|([\[\]{}])')
_STEPS = {"[": 1, "{": 1, "]": -1, "}": -1, None: 0}
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")


def json_object(raw: bytes) -> dict:
    """The body as a JSON object; anything else, or anything the app could choke on, is a one-line InputError.

    Choices (each refusal names its problem and, where there is one, the limit):
    the body is UTF-8; arrays and objects nest at most MAX_DEPTH deep (checked by a scan
    before json.loads, which would recurse once per level); an integer has at most
    MAX_DIGITS digits; every number is finite (``1e999``, ``NaN``, ``Infinity``,
    ``-Infinity`` are refused); a key appears once per object (a repeated key is refused,
    not silently resolved to its last value, so the fields read are the fields sent);
    no text holds a NUL character or a lone surrogate (``"\\ud800"``).
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"the request body is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    brackets = text.count("[") + text.count("{")  # an upper bound on the depth, at C speed
    if brackets > MAX_DEPTH and (depth := nesting(text)) > MAX_DEPTH:
        raise InputError(f"the request body nests {depth:,} levels deep; at most {MAX_DEPTH} are allowed")
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant,
                           parse_int=_integer, parse_float=_finite)
    except json.JSONDecodeError:
        raise InputError("the request body is not JSON") from None
    if not isinstance(value, dict):
        raise InputError(f"the request body must be a JSON object, got {kind(value)}")
    for key, field in value.items():
        _check_text(key, field)
    return value


def nesting(text: str) -> int:
    """How deep arrays and objects nest in ``text``, brackets inside strings skipped: for JSON
    text, exactly the levels json.loads would recurse into; linear, no recursion."""
    steps = (_STEPS[match.group(1)] for match in _TOKENS.finditer(text))
    return max(itertools.accumulate(steps, initial=0))


def kind(value) -> str:
    """A JSON value's type in JSON's words, for messages."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, dict):
        return "an object"
    return "an array" if isinstance(value, list) else "a string" if isinstance(value, str) else "a number"


def _unique_keys(pairs: list) -> dict:
    found: dict = {}
    for key, value in pairs:
        if key in found:
            raise InputError(f"the request body repeats the key {key!r:.40}; each key may appear once")
        found[key] = value
    return found


def _no_constant(name: str):
    raise InputError(f"the request body holds {name}, which is not JSON: numbers must be finite")


def _integer(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_DIGITS:
        raise InputError(f"a number in the request body has {count:,} digits; at most {MAX_DIGITS} are allowed")
    return int(digits)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"the number {text:.40} in the request body is out of range (finite numbers only, up to about 1.8e308)")
    return value


def _check_text(key: str, field) -> None:
    """Refuse a NUL character or a lone surrogate anywhere in the field ``key`` (its name included):
    neither survives an argv, a file or a UTF-8 answer."""
    stack = [key, field]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += [*item, *item.values()]
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str) and (bad := _NOT_TEXT.search(item)):
            what = ("a NUL character (\\u0000), which no text may hold" if bad.group() == "\x00"
                    else f"a lone surrogate ({bad.group()!r}), which is not Unicode text")
            raise InputError(f"the field {key!r:.40} holds {what}")
