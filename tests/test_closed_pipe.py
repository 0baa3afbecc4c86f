"""``lexicon | head -1`` exits 141 like every other command whose reader leaves early (issue 23);
one big write used to hide the closed pipe and exit 0."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_lexicon_into_head_exits_141():
    for _ in range(3):
        proc = subprocess.run(f"{sys.executable} -m cpmodel lexicon | head -1; exit ${{PIPESTATUS[0]}}", shell=True,
                              executable="/bin/bash", cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 141 and proc.stdout == "the\n", (proc.returncode, proc.stdout, proc.stderr)
        assert proc.stderr == ""


def test_lexicon_to_a_file_is_whole(tmp_path):
    out = tmp_path / "words.txt"
    with open(out, "w") as f:
        proc = subprocess.run([sys.executable, "-m", "cpmodel", "lexicon", "--length", "4"], cwd=ROOT, stdout=f,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    words = out.read_text().splitlines()
    assert proc.returncode == 0 and len(words) > 4096 and all(len(w) == 4 for w in words)
    assert len(set(words)) == len(words)
