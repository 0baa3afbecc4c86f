"""The README's examples run as written: its Python API block, and every
command line of its shell blocks (in order, in a scratch folder, so that a
line that writes a file feeds the lines after it). Commands on the default
dictionary get ``--top`` (300 rectangles, 3000 otherwise) and a time limit of a second (a few for the
examples whose comment promises an answer), so the whole README runs in well under a minute. Each
line runs once, in a module fixture that the tests read: that each example is accepted and ends
with an answer (exit 0, or 3 for a ``--check`` that finds a broken rule), never a traceback, and
that the examples whose comments make a claim keep it."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys

import pytest

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()
SOLVING = ("rect", "wordscapes", "banana", "grid", "words", "lexicon", "explain")
TIMED = ("rect", "wordscapes", "banana", "grid")
TIME_LIMIT = 0.5  # seconds for a timed example: it ends, with an answer or unknown, which is all that is checked
# these examples' comments promise an answer, which a test checks: time enough on a loaded machine
# (--compact: and for compiling the exact fill, about 10 s, on a fresh install like CI's)
ANSWER_TIME_LIMIT = {"--compact": 20, "--solver backtrack,cp": 10, "cp_model_presolve": 10}

pytestmark = pytest.mark.xdist_group("readme")  # the module fixture runs the README once, on one worker


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def _command_lines() -> list[str]:
    lines = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()  # the comment after the command
            if line.startswith("cpmodel "):  # the installed command: the same as python -m cpmodel
                line = "python -m " + line
            if line.startswith(("python -m cpmodel", "printf")):
                lines.append(line)
    return lines


def _quick(line: str) -> str | None:
    """The line as the test runs it, or None to skip it (a placeholder address,
    an extra this install lacks)."""
    if "host:" in line or ("--plot" in line and not _has("matplotlib")):
        return None
    if not line.startswith("python -m cpmodel"):
        return line
    command, redirect = re.match(r"(.*?)(\s*[>|].*)?$", line).groups()
    words = shlex.split(command)
    puzzle = words[3]
    if puzzle == "serve":  # serve until a SIGTERM after a few seconds, on a free port; it must end with 143
        if not (_has("starlette") and _has("uvicorn")):
            return None
        options = words[4:]
        if "--port" in options:
            options[options.index("--port") + 1] = "0"
        return (f"timeout --preserve-status -s TERM 3 {sys.executable} -m cpmodel serve --port 0 "
                f"{shlex.join(options)}; test $? -eq 143")
    extra = []
    if puzzle in SOLVING and not {"--dict", "--row-dict", "--col-dict"} & set(words):
        extra += ["--top", "300" if puzzle == "rect" else "3000"]  # enough for "cats" in the layout examples
    if puzzle in TIMED:
        extra += ["--time-limit", str(next((t for flag, t in ANSWER_TIME_LIMIT.items() if flag in line), TIME_LIMIT))]
    if puzzle == "compare":
        extra += ["--quick"] * ("--quick" not in words)  # ~2 s; its --time-limit is the whole suite's
    return f"{sys.executable} -m cpmodel {shlex.join(words[3:] + extra)}{redirect or ''}"


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def test_the_readme_has_the_two_setup_commands_first():
    first = _blocks("bash")[0].splitlines()
    assert first[0].startswith("pip install -e .") and "python -m cpmodel rect 5x6" in first[0]
    assert first[1].startswith("pip install -e '.[test") and first[1].endswith("python -m pytest -q")
    assert first[1] in (ROOT / ".ci" / "run").read_text().splitlines()  # CI runs exactly this line


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every command line of the README as the tests run it → its process, each run once,
    in README order, in one scratch folder (a line that writes a file feeds the lines after it)."""
    folder = tmp_path_factory.mktemp("readme")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    runnables = list(dict.fromkeys(r for r in map(_quick, _command_lines()) if r is not None))
    # a server waits out its few seconds beside the other lines: it reads and writes no file
    servers = {r: subprocess.Popen(["bash", "-c", r], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env=env) for r in runnables if " serve " in r}
    done: dict[str, subprocess.CompletedProcess] = {}
    for runnable in runnables:
        if runnable not in servers:
            done[runnable] = subprocess.run(["bash", "-c", runnable], cwd=folder, capture_output=True, text=True,
                                            timeout=180, env=env)
    for runnable, server in servers.items():
        out, err = server.communicate(timeout=60)
        done[runnable] = subprocess.CompletedProcess(server.args, server.returncode, out, err)
    return done


def test_every_command_line_runs(ran):
    lines = _command_lines()
    assert len(lines) > 20
    for line in lines:
        runnable = _quick(line)
        if runnable is None:
            continue
        proc = ran[runnable]
        allowed = (0, 3) if "--check" in line else (0,)
        assert proc.returncode in allowed and "Traceback" not in proc.stderr, (line, proc.returncode, proc.stderr[-600:])


def test_the_python_api_example_prints_what_its_comments_say():
    (block,) = [b for b in _blocks("python") if "import cpmodel" in b]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, "README.md", "exec"), {})
    output = printed.getvalue().splitlines()
    prints = [line for line in block.splitlines() if line.startswith("print(")]
    assert len(output) == len(prints)  # each print is one line
    for source, line in zip(prints, output, strict=True):
        expected = source.split("  # ", 1)[1] if "  # " in source else ""
        if expected[:1].isdigit() or expected.startswith(("found", "[", "('")):  # a literal output, not prose
            assert line == expected.split(":")[0], (expected, line)


def _example(needle: str) -> tuple[str, str]:
    """The README's command line holding ``needle``, and its comment."""
    for block in _blocks("bash"):
        for line in block.splitlines():
            if needle in line:
                command, _, comment = line.partition("  # ")
                return command.strip(), comment.strip()
    raise AssertionError(f"no README example holds {needle!r}")


def _run_example(needle: str, ran) -> tuple[subprocess.CompletedProcess, str]:
    """The README example holding ``needle`` as the fixture ran it, and its comment."""
    command, comment = _example(needle)
    if command.startswith("cpmodel "):
        command = "python -m " + command
    proc = ran[_quick(command)]
    assert "Traceback" not in proc.stderr, proc.stderr[-600:]
    return proc, comment


def test_the_changed_examples_do_what_their_comments_say(ran):
    """Issue 18: each of these examples was useless or said something false."""
    proc, comment = _run_example("--solver backtrack,cp", ran)  # was 4x4 --top 3000: 16M rectangles as boxes
    assert "6,774 squares" in comment and "identical sets" in comment
    assert proc.returncode == 0 and "identical solution sets" in proc.stdout and "6,774 rectangles" in proc.stdout
    assert "21 shown" not in proc.stdout  # a pipe: 20 pictures, then one line per square
    proc, _ = _run_example("--param cp_model_presolve", ran)  # auto's race on 2 cores ran no CP-SAT: "ignored"
    assert proc.returncode == 0 and "ignored" not in proc.stderr and "cpsat" in proc.stdout, proc.stderr
    _run_example("> mine.txt", ran)
    proc, comment = _run_example("--check mine.txt", ran)
    assert "valid" in comment and proc.returncode == 0 and "✓ valid layout" in proc.stdout
    _run_example("> broken.txt", ran)
    proc, comment = _run_example("--check broken.txt", ran)  # the old example checked a valid layout
    assert "which rule fails, and where" in comment and proc.returncode == 3
    assert "rule 3: 'ato' down at row 0, column 1 is not a word" in proc.stdout, proc.stdout
    proc, comment = _run_example("--draw 21 --compact", ran)
    assert re.search(r"~\d+ s", comment), comment  # a stated time
    assert proc.returncode == 0 and "compacted:" in proc.stdout
    assert "cross-check" not in proc.stdout and "faster than" not in proc.stdout  # no race-against-compaction table
    proc, comment = _run_example("cpmodel rect 5x6 --limit 1", ran)
    assert "installed command" in comment and proc.returncode == 0 and "rectangle" in proc.stdout  # --top 300: none


def test_examples_that_write_files_run_in_a_scratch_folder():
    (rect_block,) = [block for block in _blocks("bash") if "cpmodel rect 5x6 " in block and "--limit 1" in block]
    first = rect_block.splitlines()[0]
    assert first.startswith('cd "$(mktemp -d)"'), first
    writers = [line for line in _command_lines() if re.search(r"(>|--svg|--export|--plot|--checkpoint) ", line)]
    assert writers and all("/" not in re.split(r"(?:>|--svg|--export|--plot|--checkpoint) ", line)[1].split()[0]
                           for line in writers)  # relative names: they land in the scratch folder
