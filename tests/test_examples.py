"""Every example runs with a small input and says what it should, so no example can rot."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT

CASES = [
    ("01_word_square_3x3.py", [], "agree"),
    ("02_rectangle_encodings.py", ["400"], "automaton"),
    ("03_side_constraints.py", ["300"], "most common words"),
    ("04_bananagrams_flow.py", [], "distinct layouts: 2"),
    ("05_exact_vs_heuristic.py", ["6", "1"], "found"),
]


@pytest.mark.parametrize("script,args,needle", CASES)
def test_example_runs(script, args, needle):
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert needle in proc.stdout, proc.stdout
