"""The web app (``python -m cpmodel serve``): pages and a JSON API over the command line's own pieces."""
