"""Every example runs and says what it should, so no example can rot."""

import subprocess
import sys

from conftest import ROOT


def test_word_square_example_runs_and_agrees():
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "word_square_3x3.py")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "bit ice ten" in proc.stdout
    assert "the two solution sets agree" in proc.stdout
