"""The lessons run as tests, short: nbmake when it is installed, a skip that says why when not.

``--nbmake`` is not in pyproject's ``addopts`` (plain ``pytest`` would refuse to
start without the plugin). Instead this file turns it on when nbmake is there,
and the test run sets ``CPMODEL_LESSONS=quick`` (unless the caller set it):
each lesson then measures on smaller inputs and shorter limits. The stored
outputs are the full run: ``CPMODEL_LESSONS=full python -m pytest docs/notebooks
-p no:xdist --overwrite`` refreshes them, and ``benchmarks/lessons.py`` times it.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

HAVE_NBMAKE = importlib.util.find_spec("nbmake") is not None


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("CPMODEL_LESSONS", "quick")  # the kernels nbmake starts inherit it
    if HAVE_NBMAKE:
        config.option.nbmake = True
        config.option.nbmake_timeout = 180


class _Missing(pytest.Item):
    def runtest(self) -> None:
        pytest.skip("nbmake is not installed: pip install -e '.[notebooks]' runs the lessons")


def pytest_collect_file(file_path, parent):
    if not HAVE_NBMAKE and file_path.suffix == ".ipynb":
        return _NotebookFile.from_parent(parent, path=file_path)
    return None


class _NotebookFile(pytest.File):
    def collect(self):
        yield _Missing.from_parent(self, name=self.path.name)
