"""The web app: pages, their static files, and the JSON API, on Starlette.

Routes (every JSON answer is the CLI's ``--json`` document, docs/json.md):

- ``GET /``, ``/rect``, ``/grid``, ``/banana``, ``/wordscapes``, ``/learn``: the pages
  (cpmodel.web.pages: one Jinja2 layout; plain JS and CSS from cpmodel/web/static; no CDN,
  no build step).
- ``POST /api/{puzzle}`` (rect, grid, wordscapes, banana, words, explain): run one
  job and answer with its document; 400 with the CLI's one-line message for bad input.
- ``POST /api/jobs`` ``{"puzzle": ..., fields}``: start a job, 202 with its id;
  ``GET /api/jobs/{id}/events``: its progress as server-sent events (closing the
  stream cancels the job); ``POST /api/jobs/{id}/cancel``; ``GET /api/jobs/{id}``.
- ``POST /api/banana/game`` and ``/api/banana/game/{id}/{check,peel,dump}``: a solo game.
- ``GET /api/status``: workers and queue.

Safety: static files come from a fixed table made at start-up (no request
names a file); only a request from this origin (or from no browser) may
change state or use the API, and only with a JSON body (cpmodel.web.guard:
403, 415); request bodies are capped and must be a plain JSON object (no
deep nesting, huge or non-finite numbers, repeated keys, NUL or lone
surrogates: 400); every answer carries a content security policy that
allows only this origin's scripts and styles, and the pages hold no inline
style or script to allow (tests/test_web_pages.py reads Chromium's console);
and the pages put user text in the DOM as text, never as HTML.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from cpmodel.core.errors import InputError
from cpmodel.web import forms, game, guard, pages
from cpmodel.web.jobs import DONE, Busy, JobManager
from cpmodel.web.source import with_sources

MAX_BODY = 64 * 1024  # bytes in a request body
MAX_GAMES = 200
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")  # Host header values: an IPv6 literal keeps its brackets
KEEPALIVE = 1.0  # seconds between comments on an idle event stream (a closed tab shows on the next write)
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def allowed_hosts(bound: str) -> tuple[str, ...]:
    """The Host header values the server answers (TrustedHostMiddleware: no DNS rebinding): every
    loopback name and the address it is bound to, an IPv6 literal in brackets as a Host header
    carries it; any, when it is bound to every address (``0.0.0.0``, ``::``)."""
    if bound in ("0.0.0.0", "::"):
        return ("*",)
    return tuple(dict.fromkeys(LOOPBACK + (f"[{bound}]" if ":" in bound else bound.lower(),)))


def create_app(workers: int = 2, queue: int = 32, hosts: tuple[str, ...] = LOOPBACK) -> Starlette:
    """The ASGI app with its job manager (``app.state.jobs``)."""
    jobs = JobManager(workers, queue)
    games: dict[str, game.Game] = {}
    words: dict = {}

    def word_set():
        if "set" not in words:
            from cpmodel.core.lexicon import load_default

            words["set"] = frozenset(load_default().words)
        return words["set"]

    async def status(request: Request) -> JSONResponse:
        return JSONResponse(jobs.status())

    async def solve(request: Request) -> JSONResponse:
        """Run a job to its end and answer with the CLI's document."""
        puzzle = request.path_params["puzzle"]
        command = forms.command_for(puzzle, await _body(request))
        job = jobs.submit(command.argv, command.files, command.time_limit)
        result = await _result_unless_gone(request, jobs, job)
        if result is None:  # the client left: nobody to answer
            return Response(status_code=499)
        if puzzle == "explain" and result.get("doc"):
            result = {**result, "doc": with_sources(result["doc"])}
        return _answer(result)

    async def start(request: Request) -> JSONResponse:
        body = await _body(request)
        command = forms.command_for(forms.Fields(body).text("puzzle", "puzzle", "", limit=40) or "", body)
        job = jobs.submit(command.argv, command.files, command.time_limit)
        position = job.events[-1][1].get("position", 0) if job.state != DONE else 0
        return JSONResponse({"id": job.id, "state": job.state, "position": position, "time_limit": command.time_limit,
                             "events": f"/api/jobs/{job.id}/events"}, status_code=202)

    def find(request: Request):
        job = jobs.jobs.get(request.path_params["id"])
        if job is None:
            raise HTTPException(404, "no such job (finished jobs are forgotten after a while)")
        return job

    async def job_state(request: Request) -> JSONResponse:
        job = find(request)
        return JSONResponse({"id": job.id, "state": job.state, "result": job.result})

    async def cancel(request: Request) -> JSONResponse:
        job = find(request)
        await _body(request)  # no fields, but held to every POST's rules: a hostile body cancels nothing
        jobs.cancel(job)
        return JSONResponse({"id": job.id, "state": job.state, "cancelled": job.cancelled})

    async def events(request: Request) -> StreamingResponse:
        job = find(request)
        return StreamingResponse(_event_stream(request, jobs, job), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def game_new(request: Request) -> JSONResponse:
        body = await _body(request)
        fields = forms.Fields(body)
        seed = fields.number("seed", "--seed", 0, forms.MAX_SEED, random.randrange(forms.MAX_SEED + 1))
        started = game.new_game(seed, fields.number("bag", "bag", game.OPENING, 144, 144),
                                fields.text("hand", "HAND", limit=400))
        key = f"{random.getrandbits(64):016x}"
        games[key] = started
        while len(games) > MAX_GAMES:
            games.pop(next(iter(games)))
        return JSONResponse({"id": key, **started.to_json(), "rack": "".join(sorted(started.held))})

    async def game_move(request: Request) -> JSONResponse:
        played = games.get(request.path_params["id"])
        if played is None:
            raise HTTPException(404, "no such game (start a new one)")
        body = await _body(request)
        fields = forms.Fields(body)
        layout = fields.text("layout", "layout", "", limit=8_000) or ""
        far = forms.MAX_BOARD_OFFSET
        cells = game.on_board(layout, fields.number("top", "top", -far, far, 0), fields.number("left", "left", -far, far, 0))
        move = request.path_params["move"]
        answer: dict = {}
        if move == "check":
            answer["problems"] = game.check(played, cells, word_set())
        elif move == "peel":
            problems, drawn = game.peel(played, cells, word_set())
            answer.update(problems=problems, drawn=drawn)
        elif move == "dump":
            answer["drawn"] = game.dump(played, fields.text("tile", "tile", "", limit=1) or "", random.Random())
        else:
            raise HTTPException(404, f"no move {move!r:.40} (check, peel or dump)")
        answer["valid"] = not answer.get("problems")
        if "problems" in answer:
            answer["marked"] = game.marked(cells, word_set()) if answer["problems"] else []
        return JSONResponse({**answer, **played.to_json(), "rack": game.rack(played, cells) if move != "dump" else None})

    @contextlib.asynccontextmanager
    async def lifespan(app):
        jobs.warm()
        yield
        await jobs.shutdown()

    routes = pages.routes({"limits": forms.limits()})
    routes += [Route("/api/status", status),
               Route("/api/jobs", start, methods=["POST"]),
               Route("/api/jobs/{id}", job_state),
               Route("/api/jobs/{id}/events", events),
               Route("/api/jobs/{id}/cancel", cancel, methods=["POST"]),
               Route("/api/banana/game", game_new, methods=["POST"]),
               Route("/api/banana/game/{id}/{move}", game_move, methods=["POST"]),
               Route("/api/{puzzle}", solve, methods=["POST"])]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts)), Middleware(_Headers),
                                Middleware(guard.SameOriginJson)],
                    exception_handlers={InputError: _bad_input, Busy: _busy, HTTPException: _http_error,
                                        Exception: _internal})
    app.state.jobs, app.state.games = jobs, games
    return app


async def _body(request: Request) -> dict:
    """The request's JSON object, at most MAX_BODY bytes (413 beyond; 400 when it is not a plain
    JSON object, cpmodel.web.guard.json_object); an empty body is the empty object."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_BODY:
        raise HTTPException(413, f"the request body may be at most {MAX_BODY:,} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise HTTPException(413, f"the request body may be at most {MAX_BODY:,} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    return guard.json_object(raw) if raw.strip() else {}


def _answer(result: dict) -> JSONResponse:
    """A finished job as an HTTP answer: its document, or the CLI's one-line error."""
    code = result.get("code")
    if code == 2:
        return JSONResponse({"error": _message(result), "code": code}, status_code=400)
    if result.get("doc") is None:
        status = 499 if result.get("cancelled") else 504 if code in (143, 130) else 500
        return JSONResponse({"error": _message(result) or f"the job ended with exit code {code}", "code": code},
                            status_code=status)
    return JSONResponse(result["doc"], headers={"X-Exit-Code": str(code)})


def _message(result: dict) -> str:
    message = result.get("message") or ""
    return message.removeprefix("error: ")


async def _result_unless_gone(request: Request, jobs: JobManager, job) -> dict | None:
    """The job's result, or None once the client has hung up (the job is then stopped at once:
    a solve nobody waits for must not hold a worker to its time limit)."""
    result = asyncio.ensure_future(jobs.result(job))
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({result, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if result.done():
        return result.result()
    result.cancel()
    jobs.cancel(job, "client-gone")
    return None


async def _disconnected(request: Request) -> None:
    """Returns when the client closes its connection (the body was read already: what
    the server receives next is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _event_stream(request: Request, jobs: JobManager, job):
    """Server-sent events: each of the job's events, then ``done``; a closed stream cancels the job."""
    finished = False
    stream = jobs.events(job).__aiter__()
    waiting = None  # the pending next event: kept across keepalives (cancelling it would end the stream)
    try:
        while True:
            waiting = waiting or asyncio.ensure_future(stream.__anext__())
            arrived, _ = await asyncio.wait({waiting}, timeout=KEEPALIVE)
            if not arrived:  # a quiet job (numba loading before the first progress line): keep the line open
                if await request.is_disconnected():
                    return
                yield ": still here\n\n"
                continue
            try:
                kind, data = waiting.result()
            except StopAsyncIteration:
                return
            waiting = None
            if kind == "done" and data.get("code") == 2:
                data = {**data, "error": _message(data)}
            yield f"event: {kind}\ndata: {json.dumps(data)}\n\n"
            if kind == "done":
                finished = True
                return
    finally:
        if waiting is not None:
            waiting.cancel()
        if not finished and job.state != DONE:
            jobs.cancel(job, "client-gone")


class _Headers:
    """Security headers on every answer: the content security policy and friends."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


async def _bad_input(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": str(exc).splitlines()[0] if str(exc) else "bad input"}, status_code=400)


async def _busy(request: Request, exc: Exception) -> JSONResponse:
    jobs = request.app.state.jobs
    return JSONResponse({"error": str(exc), "busy": True, **jobs.status()}, status_code=503,
                        headers={"Retry-After": "1"})


async def _http_error(request: Request, exc: HTTPException) -> JSONResponse:
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": f"internal error: {type(exc).__name__}"}, status_code=500)
