"""The web app (``python -m cpmodel serve``): pages and a JSON API over the command line itself.

A room beside cpmodel/commands/, at the top of the import order: it may
import every room below (commands, teach, show, run, models, heuristics,
core), and only the ``serve`` command imports it (tests/test_layout.py), so
nothing else needs its extra (``pip install -e '.[web]'``: starlette,
uvicorn, jinja2). Each solve runs the CLI on a checked argv in a worker process
(forms → jobs → worker); app.py holds the routes, pages.py and templates/ the
pages, static/ their JS and CSS.
"""
