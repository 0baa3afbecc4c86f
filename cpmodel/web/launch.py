"""Start ``python -m cpmodel serve`` as a child process, for tests, benchmarks and scripts.

The server runs in a session of its own, so every process it ever starts
(the fork server, the workers, their engines) shares its session id, even
after being orphaned: :func:`session_processes` finds any that outlive it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


class Launched:
    def __init__(self, process: subprocess.Popen, url: str, log):
        self.process, self.url, self.log = process, url.rstrip("/"), log

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> tuple[int, float]:
        """Send ``sig`` and wait; the exit code and the seconds it took (kills it after ``timeout``)."""
        began = time.monotonic()
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            code = self.process.wait()
        return code, time.monotonic() - began

    def leftovers(self) -> list[int]:
        return session_processes(self.process.pid)

    def wait_until_warm(self, seconds: float = 30.0) -> bool:
        """Poll ``/api/status`` until the fork server has its words and trie loaded (else the
        first job pays for them); False if it is not warm within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with urllib.request.urlopen(self.url + "/api/status", timeout=5) as answer:
                if json.load(answer)["warm"]:
                    return True
            time.sleep(0.1)
        return False


def launch(*options: str, timeout: float = 30.0, env: dict | None = None) -> Launched:
    """``python -m cpmodel serve --port 0 OPTIONS``; returns once it has printed its address."""
    root = Path(__file__).resolve().parent.parent.parent
    environment = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}", **(env or {})}
    log = tempfile.TemporaryFile(mode="w+")  # stderr: a pipe nobody read could fill and block the server
    process = subprocess.Popen([sys.executable, "-m", "cpmodel", "serve", "--port", "0", *options],
                               stdout=subprocess.PIPE, stderr=log, text=True, env=environment,
                               start_new_session=True)
    deadline = time.monotonic() + timeout
    line = process.stdout.readline()
    if "http://" not in line or time.monotonic() > deadline:
        process.kill()
        log.seek(0)
        raise RuntimeError(f"serve did not start: {line!r} {log.read()[-2000:]}")
    url = line[line.index("http://"):].split()[0]
    return Launched(process, url, log)


def session_processes(session: int) -> list[int]:
    """Every live process in session ``session`` (Linux /proc; empty elsewhere)."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else []:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == session and fields[0] != "Z":  # state, ppid, pgrp, session
            found.append(int(entry.name))
    return found
