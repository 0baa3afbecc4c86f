"""What a request must be before the app acts on it: same-origin JSON.

:class:`SameOriginJson`, an ASGI middleware, refuses with the app's one-line JSON
error (``{"error": MESSAGE}``): a page on another site can make the browser POST
here (an auto-submitted form, ``fetch`` with ``mode: "no-cors"``) with a text/plain,
form or multipart body and no CORS preflight, and the job would start. So every
request that may change state, and every API request, must come from this origin
(403 otherwise), and every state change must say ``Content-Type:
application/json`` (415 otherwise): no cross-site form or no-cors fetch can send
that type without a preflight, which this server never grants.
"""

from __future__ import annotations

from starlette.responses import JSONResponse

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
                f"({own or 'unknown'}); only its own pages may change state")
    if sites and sites[0].strip().lower() not in FETCH_SITES:
        return (f"cross-site request refused: Sec-Fetch-Site is {sites[0]!r:.40}; "
                f"only this server's own pages ({' or '.join(FETCH_SITES)}) may change state")
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
