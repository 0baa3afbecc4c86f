"""The examples in the API docstrings run, as written, as doctests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["cpmodel", "cpmodel.core.lexicon", "cpmodel.core.specs", "cpmodel.show.render"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0, f"{name} has no doctest examples"
    assert failures == 0


def test_api_import_is_light():
    """``import cpmodel`` alone loads neither ortools nor the word list."""
    import subprocess
    import sys

    code = "import sys, cpmodel; print(cpmodel.__version__); print('ortools' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] and out[0] != "0+unknown" and out[1] == "False"
