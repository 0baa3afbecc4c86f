"""Benchmark: how fast the web app lets go (issue 30): a client that leaves, and a SIGTERM.

    flock /tmp/cpmodel-bench.lock python benchmarks/web_lifecycle.py [--trials 5] [--quick]

Two measurements, each repeated ``--trials`` times on a fresh ``python -m
cpmodel serve --jobs 2`` (its own session):

- **client gone**: a plain ``POST /api/rect`` with a long count (30 s limit) is
  given up by its client after 1.5 s (a read time-out closes the connection);
  the seconds from the hang-up until ``/api/status`` shows no job running.
  Target: 1 s.
- **SIGTERM**: two long counts run with their event streams open; the seconds
  from SIGTERM until the server has exited, its exit code (143), whether each
  stream heard ``shutdown`` and a last document with ``stopped_by: shutdown``,
  the processes of its session left behind, and any traceback on stderr.
  Target: 2 s, none left, no traceback.

Rich table, and JSON in benchmarks/results/web_lifecycle[.quick].json.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cpmodel.web.launch import launch  # noqa: E402

LONG_COUNT = {"size": "5x6", "top": 5000, "mode": "count", "solver": "backtrack", "time_limit": 30}


def warm_server():
    """A server whose fork server has its words loaded (the first job would otherwise pay for it)."""
    server = launch("--jobs", "2", "--queue", "4")
    server.wait_until_warm()
    return server


def client_gone(server) -> float:
    """Seconds from a plain POST's hang-up until no job runs."""
    try:
        httpx.post(f"{server.url}/api/rect", json=LONG_COUNT, timeout=1.5)
    except httpx.ReadTimeout:
        pass
    left = time.monotonic()
    with httpx.Client(base_url=server.url) as client:
        while client.get("/api/status").json()["running"] and time.monotonic() - left < 30:
            time.sleep(0.01)
    return time.monotonic() - left


def listen(url: str, heard: list[str]) -> None:
    """Read an event stream to its end, keeping its event and data lines."""
    try:
        with httpx.stream("GET", url, timeout=60) as stream:
            heard.extend(line for line in stream.iter_lines() if line.startswith(("event: ", "data: ")))
    except httpx.HTTPError:
        heard.append("(the stream broke)")


def sigterm(server) -> dict:
    """SIGTERM with two long counts running and their streams open."""
    streams: list[list[str]] = []
    threads = []
    with httpx.Client(base_url=server.url) as client:
        for _ in range(2):
            job = client.post("/api/jobs", json={"puzzle": "rect", **LONG_COUNT}).json()
            heard: list[str] = []
            streams.append(heard)
            threads.append(threading.Thread(target=listen, args=(server.url + job["events"], heard), daemon=True))
            threads[-1].start()
    time.sleep(1.5)
    code, seconds = server.stop(signal.SIGTERM)
    for thread in threads:
        thread.join(5)
    time.sleep(0.5)  # what is left half a second after the server exited
    stderr = server.stderr()
    return {"seconds": round(seconds, 3), "exit_code": code, "left_behind": len(server.leftovers()),
            "streams_told_shutdown": sum("event: shutdown" in heard for heard in streams),
            "streams_stopped_by_shutdown": sum(bool(heard) and '"stopped_by": "shutdown"' in heard[-1]
                                               for heard in streams),
            "traceback": "Traceback" in stderr or "ERROR" in stderr}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="two trials")
    args = parser.parse_args()
    trials = 2 if args.quick else args.trials
    gone, stops = [], []
    for _ in range(trials):
        server = warm_server()
        try:
            gone.append(round(client_gone(server), 3))
            stops.append(sigterm(server))
        finally:
            if server.process.poll() is None:
                server.stop(signal.SIGKILL)
    report = {"benchmark": "web_lifecycle", "trials": trials,
              "client_gone_seconds": gone, "client_gone_max": max(gone), "client_gone_median": statistics.median(gone),
              "sigterm": stops, "sigterm_max_seconds": max(s["seconds"] for s in stops),
              "targets": {"client_gone_seconds": 1.0, "sigterm_seconds": 2.0}}
    table = Table(title=f"web app lifecycle ({trials} trials, a fresh server each)")
    for column in ("trial", "client gone → worker free (s)", "SIGTERM → exit (s)", "exit", "told shutdown",
                   "stopped_by shutdown", "left behind", "traceback"):
        table.add_column(column)
    for number, (seconds, stop) in enumerate(zip(gone, stops, strict=True), 1):
        table.add_row(str(number), f"{seconds:.2f}", f"{stop['seconds']:.2f}", str(stop["exit_code"]),
                      f"{stop['streams_told_shutdown']}/2", f"{stop['streams_stopped_by_shutdown']}/2",
                      str(stop["left_behind"]), "yes" if stop["traceback"] else "no")
    Console().print(table)
    out = ROOT / "benchmarks" / "results" / f"web_lifecycle{'.quick' if args.quick else ''}.json"
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"client gone: max {report['client_gone_max']:.2f} s (target 1 s); "
          f"SIGTERM: max {report['sigterm_max_seconds']:.2f} s (target 2 s); written {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
