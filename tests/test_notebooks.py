"""The lesson notebooks: stored with their outputs, their figures computed, run by the test command.

Executing them is nbmake's job (``--nbmake`` in pyproject's pytest options
collects every ``docs/notebooks/*.ipynb`` as a test). These tests check what
an execution cannot: that the stored copy is a clean top-to-bottom run, that
no figure is pasted in, that each lesson asks the reader to try something,
and that the README and the guide lead to every notebook.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re

import pytest

from tests.conftest import ROOT

NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
OPEN_COMMAND = "pip install -e '.[lab]' && jupyter lab docs/notebooks"


def _cells(path, kind: str) -> list[dict]:
    return [cell for cell in json.loads(path.read_text())["cells"] if cell["cell_type"] == kind]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def test_there_are_notebooks():
    assert NOTEBOOKS, "docs/notebooks holds no notebook"


def test_the_test_command_runs_every_notebook_with_nbmake(request):
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "docs/notebooks" in project["tool"]["pytest"]["ini_options"]["testpaths"]
    extras = project["project"]["optional-dependencies"]
    for package in ("ipykernel", "matplotlib", "nbmake"):
        assert package in " ".join(extras["notebooks"])
    assert "jupyterlab" not in " ".join(extras["notebooks"]) and "jupyterlab" in " ".join(extras["lab"])  # to read them
    readme_test_line = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0].splitlines()[1]
    assert "notebooks" in readme_test_line.split("&&")[0]  # the test command installs the extra
    loaded = any(str(getattr(plugin, "__file__", "")).endswith("docs/notebooks/conftest.py")
                 for plugin in request.config.pluginmanager.get_plugins())
    if loaded and importlib.util.find_spec("nbmake"):  # the run includes the notebooks: nbmake is on, short
        assert request.config.option.nbmake and os.environ["CPMODEL_LESSONS"] in ("quick", "full")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_lesson_reads_its_scale_from_the_environment(path):
    """CPMODEL_LESSONS=quick (the test run) shrinks what a lesson measures; its first code cell reads it."""
    code = _cells(path, "code")
    slow = any(re.search(r"\bQUICK\b", _source(cell)) for cell in code[1:])
    assert not slow or 'os.environ.get("CPMODEL_LESSONS") == "quick"' in _source(code[0]), path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_is_stored_as_one_clean_run(path):
    code = _cells(path, "code")
    counts = [cell["execution_count"] for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: not one top-to-bottom run: {counts}"
    errors = [o for cell in code for o in cell["outputs"] if o["output_type"] == "error"]
    assert not errors, f"{path.name}: stored with an error: {errors[0].get('ename')}"
    assert json.loads(path.read_text())["metadata"]["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_is_computed_in_the_notebook(path):
    drawn = [cell for cell in _cells(path, "code")
             if any("image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {}) for o in cell["outputs"])]
    assert drawn, f"{path.name}: no figure"
    for cell in drawn:
        assert re.search(r"plt\.|matplotlib|SVG\(", _source(cell)), _source(cell)[:200]
    for cell in _cells(path, "markdown"):
        text = _source(cell)
        assert "![" not in text and "<img" not in text and not cell.get("attachments"), f"{path.name}: a pasted image"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_lesson_builds_on_cpmodel_and_asks_the_reader(path):
    code = "\n".join(_source(cell) for cell in _cells(path, "code"))
    assert re.search(r"^(import cpmodel|from cpmodel)", code, re.M)
    prose = "\n".join(_source(cell) for cell in _cells(path, "markdown"))
    assert "Try it" in prose and "redict" in prose, f"{path.name}: asks the reader nothing"


@pytest.mark.parametrize("document", ["README.md", "docs/modelling.md"])
def test_the_readme_and_the_guide_link_every_notebook(document):
    text = (ROOT / document).read_text()
    assert OPEN_COMMAND in text
    for path in NOTEBOOKS:
        assert f"notebooks/{path.name})" in text, f"{document} does not link {path.name}"
