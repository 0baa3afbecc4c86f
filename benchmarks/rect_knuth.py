"""Benchmark: the project's word-rectangle backtracker against Knuth's BACK-MXN-WORDS-NEW.

    python benchmarks/rect_knuth.py [--knuth PATH] [--fill FILE] [--cross FILE] [--shape 5x6]
                                    [--sizes 1000 2000] [--jobs 1 2] [--repeat 3]
                                    [--reference] [--baseline DIR] [--quick] [--out FILE]

Knuth's setup WORDS(N) (TAOCP 7.2.2, exercise 24): the first N words of a
frequency-ordered list of m-letter words (--fill; the Stanford GraphBase's
sgb-words.txt in Knuth's runs) as columns, and every n-letter word of a second
list (--cross; the 15,727 six-letter words of OSPD4) as rows: m×n rectangles.
--shape m×n picks the word lengths out of the files (default 5x6). Without
--fill/--cross the project's own lexicon stands in (its m- and n-letter words,
most common first), so the benchmark runs anywhere.

Both programs get the same two files (written to a temporary directory) and
count every rectangle as whole processes, one after the other, --repeat times
in alternation; the table shows each one's best wall and CPU seconds (user +
system, children included) and the project/Knuth ratios. The counts must agree
and the nodes per level are printed side by side: Knuth's profile line k+1
counts the nodes with k columns filled, the project's level k-1.

--knuth PATH  a built back-mxn-words-new (ctangle back-mxn-words-new.w; gcc -O2).
              Without it only the project's numbers are reported.
--reference   also run the pure-Python reference search (in-process, timed
              without the interpreter start) on the same lists.
--baseline D  also run the CLI from another checkout D (e.g. main) on the
              issue's two CLI targets, side by side with this tree.
--quick       about 2 minutes: N = 1000, --jobs 1, --repeat 2, no 7×7 target.

The search is deterministic (no seeds are involved); seconds drift on a shared
machine, so compare ratios from one run, and nodes, which do not drift.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# -- running programs ------------------------------------------------------------------


def run_process(command: list[str], env: dict | None = None) -> dict:
    """Run a whole process; its wall seconds, CPU seconds and output.

    CPU is user + system time of the process and of every process started in
    its session: a sharded run's pool workers are forked by a forkserver that
    is never waited for, so the kernel's children totals miss them. They are
    sampled from /proc every 20 ms instead (the last 20 ms of a worker may be
    missed)."""
    before = os.times()
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
    seen: dict[int, float] = {}
    sampler = threading.Thread(target=_sample_session, args=(child, seen), daemon=True)
    sampler.start()
    stdout, stderr = child.communicate()
    wall = time.perf_counter() - started
    sampler.join()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    cpu += sum(seconds for pid, seconds in seen.items() if pid != child.pid)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({child.returncode}): {stderr.strip()[-500:]}")
    return {"wall": wall, "cpu": cpu, "stdout": stdout, "stderr": stderr}


def _sample_session(child: subprocess.Popen, seen: dict[int, float]) -> None:
    """Record the CPU seconds of every process in the child's session until it ends."""
    tick = os.sysconf("SC_CLK_TCK")
    while child.poll() is None:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == child.pid:  # the session id (field 6 of /proc/PID/stat)
                seen[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
        time.sleep(0.02)


def knuth_run(binary: str, fill: Path, cross: Path) -> dict:
    """BACK-MXN-WORDS-NEW: the count and nodes per level from its stderr."""
    out = run_process([binary, str(fill), str(cross)])
    count = int(re.search(r"Altogether (\d+) solutions", out["stderr"]).group(1))
    lines = out["stderr"].split("Profile:", 1)[1].splitlines()[1:]  # the root line carries no count
    profile = [int(line.split()[0]) for line in lines if line.strip()]
    return {"count": count, "profile": profile, "wall": out["wall"], "cpu": out["cpu"]}


def project_env(tree: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def project_run(tree: Path, args: list[str]) -> dict:
    """``python -m cpmodel ... --json`` from a checkout, as a whole process."""
    out = run_process([sys.executable, "-m", "cpmodel", *args, "--json"], env=project_env(tree))
    doc = json.loads(out["stdout"])
    stats = doc.get("stats", {})
    return {"count": doc["count"], "status": doc["status"], "profile": stats.get("profile"),
            "nodes": stats.get("nodes"), "orientation": stats.get("orientation"), "kernel": stats.get("kernel"),
            "shards": stats.get("shards"), "wall": out["wall"], "cpu": out["cpu"],
            "solutions": doc.get("solutions", [])[:1]}


def reference_run(fill: Path, cross: Path, m: int, n: int) -> dict:
    """The pure-Python search in this process (the readable reference)."""
    from cpmodel.core.control import Request
    from cpmodel.core.lexicon import load_file
    from cpmodel.core.specs import rectangle_spec
    from heuristics import rectangle as backtrack

    spec = rectangle_spec(m, n, load_file(cross), load_file(fill))
    cpu, started = time.process_time(), time.perf_counter()
    result = backtrack.solve(spec, Request(limit=None, count_only=True), kernel="python")
    return {"count": result.count, "profile": result.stats["profile"], "orientation": result.stats["orientation"],
            "wall": time.perf_counter() - started, "cpu": time.process_time() - cpu}


def best_of(runs: list[dict]) -> dict:
    """The fastest of repeated runs (fewest CPU seconds), with every time kept."""
    best = dict(min(runs, key=lambda r: r["cpu"]))
    best["walls"] = [round(r["wall"], 3) for r in runs]
    best["cpus"] = [round(r["cpu"], 3) for r in runs]
    return best


# -- word lists ---------------------------------------------------------------------------


def read_words(path: str | None, length: int) -> list[str]:
    """The a-z words of one length, in file order (or the project's lexicon's rank order)."""
    if path is None:
        from cpmodel.core.lexicon import load_default

        return list(load_default().of_length(length))
    words = [w.strip().lower() for w in Path(path).read_text(encoding="utf-8", errors="replace").splitlines()]
    words = [w for w in words if re.fullmatch(r"[a-z]+", w)]
    if not words:
        raise SystemExit(f"{path}: no a-z words")
    return list(dict.fromkeys(w for w in words if len(w) == length))


# -- cases -----------------------------------------------------------------------------------


def words_case(size: int, fill_words, cross_file: Path, workdir: Path, args) -> dict:
    """WORDS(size): Knuth's program and the project, side by side, one list pair."""
    fill_file = workdir / f"fill-{size}.txt"
    fill_file.write_text("\n".join(fill_words[:size]) + "\n")
    m, n = len(fill_words[0]), len(cross_file.read_text().split("\n", 1)[0])
    case = {"case": f"WORDS({size})", "size": size, "m": m, "n": n, "fill_words": min(size, len(fill_words))}
    knuth, project = [], {jobs: [] for jobs in args.jobs}
    for _ in range(args.repeat):
        if args.knuth:
            knuth.append(knuth_run(args.knuth, fill_file, cross_file))
        for jobs in args.jobs:
            project[jobs].append(project_run(ROOT, ["rect", f"{m}x{n}", "--dict", str(cross_file), "--col-dict",
                                                    str(fill_file), "--count", "--solver", "backtrack",
                                                    "--jobs", str(jobs)]))
    case["knuth"] = best_of(knuth) if knuth else None
    case["project"] = {jobs: best_of(runs) for jobs, runs in project.items()}
    if args.reference:
        case["reference"] = reference_run(fill_file, cross_file, m, n)
    counts = {r["count"] for r in [*case["project"].values(), *([case["knuth"]] if knuth else []),
                                   *([case["reference"]] if args.reference else [])]}
    case["counts_agree"] = len(counts) == 1
    one_job = case["project"][args.jobs[0]]
    case["profiles_agree"] = None if not knuth else one_job["profile"] == case["knuth"]["profile"]
    return case


def cli_targets(args) -> list[dict]:
    """The issue's two CLI targets, this tree (and --baseline's) as whole processes."""
    commands = [("5x6 --top 5000 --count, 1 job", ["rect", "5x6", "--top", "5000", "--count", "--solver", "backtrack",
                                                    "--jobs", "1"], 6.0)]
    if not args.quick:
        commands.append(("7x7 first solution", ["rect", "7x7", "--solver", "backtrack", "--limit", "1"], 10.0))
    trees = [("this tree", ROOT)] + ([("baseline", Path(args.baseline))] if args.baseline else [])
    rows = []
    for label, argv, target in commands:
        runs = {name: [] for name, _ in trees}
        for _ in range(args.repeat):
            for name, tree in trees:
                runs[name].append(project_run(tree, argv))
        for name, _ in trees:
            best = best_of(runs[name])
            rows.append({"case": label, "tree": name, "target_seconds": target, **{k: best[k] for k in (
                "count", "status", "nodes", "profile", "kernel", "orientation", "wall", "cpu", "walls", "cpus",
                "solutions")}})
    return rows


# -- output ------------------------------------------------------------------------------------


def ratio(a: float | None, b: float | None) -> str:
    return "–" if not a or not b else f"{a / b:.2f}×"


def show(cases: list[dict], targets: list[dict], console: Console) -> None:
    table = Table(title="WORDS(N): the project's backtracker vs Knuth's BACK-MXN-WORDS-NEW (whole processes, best of runs)")
    for header in ("case", "program", "count", "nodes", "wall s", "CPU s", "wall / Knuth", "CPU / Knuth"):
        table.add_column(header, justify="left" if header in ("case", "program") else "right")
    for case in cases:
        knuth = case["knuth"]
        if knuth:
            table.add_row(case["case"], "Knuth C (gcc -O2)", f"{knuth['count']:,}", f"{sum(knuth['profile']):,}",
                          f"{knuth['wall']:.2f}", f"{knuth['cpu']:.2f}", "1.00×", "1.00×")
        for jobs, run in case["project"].items():
            table.add_row(case["case"], f"cpmodel --jobs {jobs} ({run['kernel'] or 'sharded'}, {run['orientation'] or '-'})",
                          f"{run['count']:,}", f"{run['nodes']:,}" if run["nodes"] else "–",
                          f"{run['wall']:.2f}", f"{run['cpu']:.2f}",
                          ratio(run["wall"], knuth and knuth["wall"]), ratio(run["cpu"], knuth and knuth["cpu"]))
        if "reference" in case:
            ref = case["reference"]
            table.add_row(case["case"], "pure-Python reference (in-process)", f"{ref['count']:,}",
                          f"{sum(ref['profile']):,}", f"{ref['wall']:.2f}", f"{ref['cpu']:.2f}",
                          ratio(ref["wall"], knuth and knuth["wall"]), ratio(ref["cpu"], knuth and knuth["cpu"]))
    console.print(table)
    for case in cases:
        profiles = Table(title=f"{case['case']}: nodes per level (k columns filled)")
        profiles.add_column("k", justify="right")
        sources = ([("Knuth", case["knuth"]["profile"])] if case["knuth"] else []) + \
                  [("cpmodel", case["project"][min(case["project"])]["profile"])] + \
                  ([("reference", case["reference"]["profile"])] if "reference" in case else [])
        sources = [(name, p) for name, p in sources if p]
        for name, _ in sources:
            profiles.add_column(name, justify="right")
        for level in range(max(len(p) for _, p in sources)):
            profiles.add_row(str(level + 1), *(f"{p[level]:,}" if level < len(p) else "–" for _, p in sources))
        profiles.caption = f"counts agree: {case['counts_agree']} · profiles agree: {case['profiles_agree']}"
        console.print(profiles)
    if targets:
        table = Table(title="The issue's CLI targets (whole processes, best of runs)")
        for header in ("case", "tree", "count", "nodes", "wall s", "CPU s", "target s", "kernel"):
            table.add_column(header, justify="left" if header in ("case", "tree", "kernel") else "right")
        for row in targets:
            table.add_row(row["case"], row["tree"], f"{row['count']:,}", f"{row['nodes']:,}" if row["nodes"] else "–",
                          f"{row['wall']:.2f}", f"{row['cpu']:.2f}", f"{row['target_seconds']:.0f}", row["kernel"] or "-")
        console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knuth", help="path to a built back-mxn-words-new")
    parser.add_argument("--fill", help="m-letter words, most common first (default: the project's five-letter words)")
    parser.add_argument("--cross", help="n-letter words (default: the project's six-letter words)")
    parser.add_argument("--shape", default="5x6", help="m x n: m-letter fill words, n-letter cross words")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000], help="N: how many fill words")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="project runs with these --jobs")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each program, alternating; the best is shown")
    parser.add_argument("--reference", action="store_true", help="also time the pure-Python reference search")
    parser.add_argument("--baseline", metavar="DIR", help="another checkout to run the CLI targets from")
    parser.add_argument("--no-targets", action="store_true", help="skip the two CLI targets")
    parser.add_argument("--quick", action="store_true", help="about 2 minutes: N=1000, --jobs 1, --repeat 2")
    parser.add_argument("--out", help="JSON results (default: results/rect_knuth[.quick].json)")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.jobs, args.repeat = [1000], [1], 2
    if args.knuth and not os.access(args.knuth, os.X_OK):
        parser.error(f"--knuth {args.knuth} is not an executable file")
    out = Path(args.out or ROOT / "benchmarks" / "results" / f"rect_knuth{'.quick' if args.quick else ''}.json")
    console = Console(width=120)

    m, n = (int(side) for side in args.shape.lower().split("x"))
    fill_words = read_words(args.fill, m)
    with tempfile.TemporaryDirectory(prefix="rect-knuth-") as tmp:
        workdir = Path(tmp)
        cross_words = read_words(args.cross, n)
        cross_file = workdir / "cross.txt"
        cross_file.write_text("\n".join(cross_words) + "\n")
        cases = [words_case(size, fill_words, cross_file, workdir, args) for size in args.sizes]
    targets = [] if args.no_targets else cli_targets(args)
    show(cases, targets, console)
    lists = {"fill": args.fill or f"cpmodel default lexicon, {m} letters",
             "cross": args.cross or f"cpmodel default lexicon, {n} letters", "cross_words": len(cross_words)}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"lists": lists, "knuth": args.knuth, "repeat": args.repeat, "cases": cases,
                               "targets": targets, "machine": {"cpus": os.cpu_count(), "load": os.getloadavg()}},
                              indent=2, default=str))
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()
