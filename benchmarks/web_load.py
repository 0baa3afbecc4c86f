"""Benchmark: the web app under load (issue 21): many small solves at once, no errors, no lost job.

    flock /tmp/cpmodel-bench.lock python benchmarks/web_load.py [--solves 200] [--hostile 200] [--at-once 20] [--quick]

Starts ``python -m cpmodel serve`` (localhost, its own session), sends
``--solves`` small solves from ``--at-once`` client threads through the
blocking JSON API (``POST /api/<puzzle>``), and checks every answer: HTTP 200,
status found, and the rectangle, word list or fill valid. A 503 (busy: the
queue is full) is retried after its Retry-After and counted. Reported: errors,
busy answers, latency percentiles per kind and overall (p50, p95, max), the
jobs the server still holds at the end (must be 0), then the SIGTERM: how
long the server took to stop, and how many of its processes were left (must
be 0). Rich table, and JSON in benchmarks/results/web_load[.quick].json.

Issue 30: ``--hostile`` bad requests are mixed in among the solves, in a fixed
shuffled order (seed 0): nested JSON 5,000 deep, huge numbers, NaN, wrong
types, NUL and lone surrogates, invalid UTF-8, duplicate keys, arrays, strings
and null as the body, a body that is not JSON, a cross-site Origin. Each must
get a 4xx with a one-line error; a 5xx (or an accepted hostile body) is
counted as an error. The latencies reported are the good solves'.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# the small solves, in turn: (kind, path, body)
CASES = [
    ("rect 3x3", "/api/rect", {"size": "3x3", "top": 300, "mode": "first", "solver": "backtrack"}),
    ("grid", "/api/grid", {"random": True}),
    ("rect 4x4", "/api/rect", {"size": "4x4", "top": 500, "mode": "first", "solver": "backtrack"}),
    ("words", "/api/words", {"letters": "retains"}),
    ("wordscapes", "/api/wordscapes", {"board": ".....\n.#.#.\n.....", "letters": "retains", "solver": "backtrack"}),
]


ENDPOINTS = ["/api/rect", "/api/grid", "/api/jobs", "/api/banana/game", "/api/wordscapes", "/api/explain", "/api/words"]
JSON = {"Content-Type": "application/json"}
HOSTILE = [  # (kind, body bytes, headers)
    ("deep arrays", b"[" * 5000 + b"]" * 5000, JSON),
    ("deep objects", b'{"a":' * 5000 + b"1" + b"}" * 5000, JSON),
    ("huge number", b'{"size": "3x3", "top": 1' + b"0" * 5000 + b"}", JSON),
    ("NaN", b'{"size": "3x3", "top": NaN}', JSON),
    ("Infinity", b'{"size": "3x3", "time_limit": Infinity}', JSON),
    ("wrong types", b'{"size": 5, "top": "many", "mode": [1], "solver": {}, "time_limit": true, "seed": "x", "bag": [1], '
                    b'"hand": 5, "letters": 7}', JSON),  # a field of every endpoint: one that reads none starts a game
    ("NUL", rb'{"size": "3x3\u0000", "letters": "ab\u0000c"}', JSON),
    ("lone surrogate", rb'{"size": "3x3", "letters": "\ud800"}', JSON),
    ("invalid UTF-8", b'{"size": "3x3\xff\xfe"}', JSON),
    ("duplicate keys", b'{"size": "3x3", "size": "4x4"}', JSON),
    ("array body", b"[1, 2, 3]", JSON),
    ("string body", b'"rect"', JSON),
    ("null body", b"null", JSON),
    ("not JSON", b"size=3x3", {"Content-Type": "application/x-www-form-urlencoded"}),
    ("text/plain", b'{"size": "3x3"}', {"Content-Type": "text/plain"}),
    ("cross-site", b'{"size": "3x3"}', {**JSON, "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}),
]


def hostile_request(k: int, client) -> dict:
    """Hostile request ``k``: its status must be a 4xx with a one-line error."""
    import httpx

    kind, body, headers = HOSTILE[k % len(HOSTILE)]
    path = ENDPOINTS[(k // len(HOSTILE)) % len(ENDPOINTS)]
    began = time.perf_counter()
    try:
        answer = client.post(path, content=body, headers=headers)
    except httpx.HTTPError as exc:
        return {"kind": "hostile", "what": kind, "error": f"{type(exc).__name__}: {exc}", "status": None,
                "seconds": time.perf_counter() - began}
    problem = None
    if not 400 <= answer.status_code < 500:
        problem = f"{kind} to {path}: HTTP {answer.status_code} {answer.text[:120]}"
    elif "\n" in answer.text.strip() or '"error"' not in answer.text:
        problem = f"{kind} to {path}: not a one-line error: {answer.text[:120]}"
    return {"kind": "hostile", "what": kind, "error": problem, "status": answer.status_code,
            "seconds": time.perf_counter() - began}


def check(kind: str, doc: dict) -> str | None:
    """What is wrong with an answer, or None."""
    if kind.startswith("rect"):
        if doc.get("status") != "found" or not doc.get("solutions"):
            return f"status {doc.get('status')}"
        rows = doc["solutions"][0]
        if len(rows) != doc["rows"] or any(len(r) != doc["cols"] for r in rows):
            return "wrong shape"
    elif kind == "grid":
        if not doc.get("words") or doc.get("count") != len(doc["words"]):
            return "no words"
    elif kind == "words":
        if not doc.get("words"):
            return "no words"
    elif doc.get("status") != "found":
        return f"status {doc.get('status')}"
    return None


def load(url: str, solves: int = 200, at_once: int = 20, retries: int = 50, hostile: int = 0) -> dict:
    """Send ``solves`` small solves and ``hostile`` bad requests, shuffled, ``at_once`` at a time;
    the report (errors, latencies of the solves, busy answers, the hostile answers' statuses)."""
    import random

    import httpx

    def one(k: int, client) -> dict:
        kind, path, body = CASES[k % len(CASES)]
        body = {**body, "seed": k} if kind == "grid" else body
        began = time.perf_counter()
        busy = 0
        for _ in range(retries):
            try:
                answer = client.post(path, json=body)
            except httpx.HTTPError as exc:
                return {"kind": kind, "error": f"{type(exc).__name__}: {exc}", "seconds": time.perf_counter() - began,
                        "busy": busy}
            if answer.status_code != 503:
                break
            busy += 1
            time.sleep(float(answer.headers.get("retry-after", "1")) / 4)
        problem = None if answer.status_code == 200 else f"HTTP {answer.status_code}: {answer.text[:200]}"
        problem = problem or check(kind, answer.json())
        return {"kind": kind, "error": problem, "seconds": time.perf_counter() - began, "busy": busy}

    requests = [("solve", k) for k in range(solves)] + [("hostile", k) for k in range(hostile)]
    random.Random(0).shuffle(requests)
    began = time.perf_counter()
    with httpx.Client(base_url=url, timeout=120) as client, ThreadPoolExecutor(at_once) as pool:
        done = list(pool.map(lambda r: one(r[1], client) if r[0] == "solve" else hostile_request(r[1], client),
                             requests))
        status = client.get("/api/status").json()
    wall = time.perf_counter() - began
    runs = [r for r in done if r["kind"] != "hostile"]
    bad = [r for r in done if r["kind"] == "hostile"]
    errors = [r for r in runs if r["error"]]
    report = {"solves": solves, "at_once": at_once, "completed": len(runs) - len(errors), "errors": len(errors),
              "error_samples": [r["error"] for r in errors[:5]], "busy_answers": sum(r["busy"] for r in runs),
              "wall_seconds": round(wall, 2), "solves_per_second": round(solves / wall, 2),
              "left_on_server": status["running"] + status["waiting"], "overall": latencies([r["seconds"] for r in runs]),
              "hostile": {"sent": len(bad), "errors": sum(1 for r in bad if r["error"]),
                          "server_errors_5xx": sum(1 for r in bad if (r["status"] or 0) >= 500),
                          "error_samples": [r["error"] for r in bad if r["error"]][:5],
                          "statuses": {str(s): sum(1 for r in bad if r["status"] == s)
                                       for s in sorted({r["status"] or 0 for r in bad})}}}
    report["by_kind"] = {kind: latencies([r["seconds"] for r in runs if r["kind"] == kind]) for kind, _, _ in CASES}
    return report


def latencies(seconds: list[float]) -> dict:
    if not seconds:
        return {}
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"n": len(ordered), "p50": round(statistics.median(ordered), 3), "p95": round(p95, 3),
            "max": round(ordered[-1], 3)}


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    from cpmodel.web.launch import launch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solves", type=int, default=200)
    parser.add_argument("--hostile", type=int, default=200, help="bad requests mixed in among the solves")
    parser.add_argument("--at-once", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="the server's workers")
    parser.add_argument("--quick", action="store_true", help="40 solves, 10 at a time")
    args = parser.parse_args()
    solves, at_once, hostile = (40, 10, 40) if args.quick else (args.solves, args.at_once, args.hostile)
    server = launch("--jobs", str(args.jobs), "--queue", str(max(32, at_once)))
    try:
        report = load(server.url, solves, at_once, hostile=hostile)
    finally:
        code, stop_seconds = server.stop()
    report.update(server_jobs=args.jobs, sigterm_exit_code=code, stop_seconds=round(stop_seconds, 2),
                  processes_left=len(server.leftovers()), load_average=os.getloadavg()[0], cores=os.cpu_count())
    console = Console()
    table = Table(title=f"web load: {solves} solves and {hostile} hostile requests, {at_once} at a time, "
                        f"{args.jobs} workers (latencies: the solves)")
    for column in ("kind", "n", "p50 s", "p95 s", "max s"):
        table.add_column(column, justify="right" if column != "kind" else "left")
    for kind, row in [*report["by_kind"].items(), ("all", report["overall"])]:
        table.add_row(kind, str(row["n"]), f"{row['p50']:.3f}", f"{row['p95']:.3f}", f"{row['max']:.3f}")
    console.print(table)
    console.print(f"errors {report['errors']} · completed {report['completed']}/{solves} · busy answers "
                  f"{report['busy_answers']} · {report['solves_per_second']} solves/s · left on the server "
                  f"{report['left_on_server']} · SIGTERM: exit {code} in {report['stop_seconds']} s, "
                  f"{report['processes_left']} processes left · load {report['load_average']:.2f}")
    bad = report["hostile"]
    console.print(f"hostile: {bad['sent']} sent · {bad['server_errors_5xx']} answered 5xx · {bad['errors']} errors "
                  f"(not a one-line 4xx) · statuses {bad['statuses']}")
    out = Path(__file__).parent / "results" / f"web_load{'.quick' if args.quick else ''}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    console.print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
