"""The HTML pages, rendered from one Jinja2 layout, and the static files they load.

Every page extends ``templates/base.html``, which holds the head (the icon, the
stylesheet, the scripts) and the header's links, built from :data:`PAGES`: a
new page or a renamed link is one line here. The JS and CSS are plain static
files, read once at start-up into a fixed table, so no request names a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jinja2
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml",
         ".png": "image/png"}  # the static files served; a page is a template, never a static file
ICON = "favicon.svg"  # linked from every page's head, and served at /favicon.ico too
NO_CACHE = {"Cache-Control": "no-cache"}  # a page or a file changes with the package: always revalidate


@dataclass(frozen=True)
class Page:
    path: str  # where it is served, and the header link's target
    name: str  # its template, templates/NAME.html, and its script, static/NAME.js (when it has one)
    title: str  # the <title> and the header link's text
    script: bool = True


PAGES = (Page("/", "index", "Home", script=False), Page("/rect", "rect", "Rectangles"),
         Page("/grid", "grid", "Grid games"), Page("/banana", "banana", "Bananagrams"),
         Page("/wordscapes", "wordscapes", "Wordscapes"), Page("/learn", "learn", "Learn"))


def static_files() -> dict[str, tuple[bytes, str]]:
    """Every file shipped in cpmodel/web/static, read once: name → (bytes, content type)."""
    folder = resources.files("cpmodel.web").joinpath("static")
    return {entry.name: (entry.read_bytes(), TYPES.get(Path(entry.name).suffix, "application/octet-stream"))
            for entry in folder.iterdir() if entry.is_file() and Path(entry.name).suffix in TYPES}


def templates() -> Jinja2Templates:
    """The templates shipped in the package (cpmodel/web/templates), escaped by default;
    a name the page does not pass is an error, not an empty string."""
    environment = jinja2.Environment(loader=jinja2.PackageLoader("cpmodel.web", "templates"),
                                     autoescape=True, undefined=jinja2.StrictUndefined,
                                     trim_blocks=True, lstrip_blocks=True)
    return Jinja2Templates(env=environment)


def routes(context: dict) -> list[Route]:
    """A route for each page, one for the static files and one for the icon; ``context`` (this
    server's limits) is given to every template."""
    files = static_files()
    rendering = templates()
    nav = [page for page in PAGES if page.path != "/"]

    def page_route(page: Page) -> Route:
        def render(request: Request) -> Response:
            return rendering.TemplateResponse(request, f"{page.name}.html", {**context, "page": page, "nav": nav},
                                              headers=NO_CACHE)
        return Route(page.path, render, name=page.name)

    def static(request: Request) -> Response:
        return _file(files, request.path_params["name"])

    def icon(request: Request) -> Response:  # for what asks the old way, with no page's <link rel="icon">
        return _file(files, ICON)

    return [page_route(page) for page in PAGES] + [Route("/static/{name}", static), Route("/favicon.ico", icon)]


def _file(files: dict, name: str) -> Response:
    if name not in files:
        raise HTTPException(404, "not found")
    content, kind = files[name]
    return Response(content, media_type=kind, headers=NO_CACHE)
