"""Benchmark: the compiled grid scorer and the best-board search, beside danvk's C++.

    python benchmarks/grid.py --dict ENABLE2K --danvk DIR [--boards 200000] [--seconds 60] [--seeds 1]
    python benchmarks/grid.py --dict ENABLE2K --danvk DIR --scoring-only   # part 1 alone, about 1 minute
    python benchmarks/grid.py --dict ENABLE2K --danvk DIR --quick          # about 3 minutes

``DIR`` is an extracted danvk/hybrid-boggle (``git archive``); its pybind11
module is built there as its ``build.sh`` does, when missing (needs a C++
compiler and ``pip install --target /tmp/pyb pybind11``; pass ``--pybind11
/tmp/pyb``). Nothing of it enters this project: it is only a yardstick.
Without ``--danvk`` its rows are left out. Run it alone on the machine
(``flock /tmp/cpmodel-bench.lock python benchmarks/grid.py ...``): the
whole-process runs use every core.

1. Scoring: one file of random 4×4 boards (uniform letters without q, so that
   danvk's one-letter q and our Qu tile cannot differ; fixed seed).
   a. The kernel alone, on one core (:class:`BatchScorer`, no threads), by the
      pure-Python reference (:func:`heuristics.grid.boggle_total`, on the
      first ``--reference-boards``) and by danvk's C++ ``Boggler`` (called per
      board from Python, as its ``boggle/perf.py`` does). Equal totals asserted.
   b. Whole processes, side by side, as a user runs them: ``python -m cpmodel
      grid --score-file FILE`` against ``python -m boggle.perf --size 44 N
      --input_file FILE``, each from start to exit, equal totals asserted.
      Cold: a run right after numba's cache of ``grid_kernel`` is cleared
      (it compiles, as the first run after install does); warm: the next
      run. Each trial runs ours cold, danvk's, ours warm, danvk's again;
      each figure is the median of ``--trials`` (5). With ``--memory-boards M``, the
      peak memory of ``grid --score-file`` on a file of M boards too.
2. Best boards: ``grid --best 4x4 --target 3625`` (every core: hill climber
   beside annealing) against danvk's ``boggle/hillclimb.py`` as its README
   runs it (20 runs, pool 250), one run per core, each until it reaches the
   proven optimum 3,625 or the cap (``--seconds``, 5 minutes), per seed
   (``--seeds``, 5): seconds to 3,625 for both, and their ratio. Other sizes
   run the whole cap. ``--scoring-only`` skips it and keeps the file's
   previous part 2.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cpmodel.core.lexicon import load_file  # noqa: E402
from cpmodel.core.scoring import score_table  # noqa: E402
from heuristics import grid, grid_kernel  # noqa: E402
from heuristics.words import build_trie  # noqa: E402

OPTIMUM_4X4 = 3625  # perslatgsineters on ENABLE2K (danvk, proven)
DANVK_RUNS, DANVK_POOL = 20, 250  # hillclimb.py as its README runs it: "hillclimb 20 --size 44 --pool_size 250"
TARGET_5X5 = 10000  # the first 5x5 mark
BEST_KNOWN_5X5 = 10406  # ligdrmanesietildsracsepes (danvk's hill climbing): 5x5 runs stop on reaching it


NO_Q = "abcdefghijklmnoprstuvwxyz"


def write_boards(path: Path, count: int, seed: int) -> list[str]:
    """``count`` random 4×4 boards, uniform letters without q, one per line."""
    rng = random.Random(seed)
    boards = ["".join(rng.choice(NO_Q) for _ in range(16)) for _ in range(count)]
    path.write_text("".join(b + "\n" for b in boards))
    return boards


def write_many_boards(path: Path, count: int, seed: int) -> None:
    """``count`` random boards like :func:`write_boards`, written a million at a time (numpy)."""
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(NO_Q.encode() + b"\n", np.uint8)
    with open(path, "wb") as out:
        for first in range(0, count, 10**6):
            rows = rng.integers(0, 25, (min(10**6, count - first), 17))
            rows[:, 16] = 25  # the newline
            out.write(letters[rows].tobytes())


def danvk_module(directory: Path | None, pybind11: str | None):
    """danvk's cpp_boggle, built in ``directory`` as its build.sh does when missing; None without it."""
    if directory is None:
        return None
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = directory / f"cpp_boggle{suffix}"
    if not target.exists():
        env = dict(os.environ, PYTHONPATH=pybind11 or "")
        includes = subprocess.run([sys.executable, "-m", "pybind11", "--includes"], env=env, capture_output=True,
                                  text=True, check=True).stdout.split()
        sources = ["cpp_boggle.cc", "trie.cc", "arena.cc", "eval_node.cc", "symmetry.cc"]
        subprocess.run(["c++", "-Wall", "-shared", "-std=c++20", "-fPIC", "-march=native", "-Wno-sign-compare", "-O3",
                        *includes, *sources, "-o", str(target)],
                       cwd=directory / "cpp", check=True)
    sys.path.insert(0, str(directory))
    import cpp_boggle

    return cpp_boggle


def timed(score_all) -> tuple[list[int], float]:
    started = time.perf_counter()
    totals = score_all()
    return [int(t) for t in totals], time.perf_counter() - started


def kernel_alone(words, dict_path: str, boards: list[str], reference_count: int, danvk) -> list[dict]:
    """1a: the kernel, the C++ and the Python reference, each on one core, nothing else timed."""
    table = score_table("boggle")
    rows = []
    alphabet = grid_kernel.build_alphabet_trie(words)
    batch = grid_kernel.BatchScorer(alphabet, 4, 4, table)
    codes = np.array([[ord(c) - 97 for c in b] for b in boards], np.int8)
    batch.scores(codes[:10])  # load the compiled code before the clock starts
    kernel, seconds = timed(lambda: batch.scores(codes))
    rows.append({"method": "kernel (numba, BatchScorer, one core)", "boards": len(boards), "seconds": seconds,
                 "totals": kernel})
    if danvk is not None:
        their_trie = danvk.Trie.create_from_file(dict_path)  # the Boggler keeps a raw pointer: keep it alive
        boggler = danvk.Boggler44(their_trie)
        theirs, seconds = timed(lambda: [boggler.score(b) for b in boards])
        rows.append({"method": "danvk C++ Boggler (pybind11, one core)", "boards": len(boards), "seconds": seconds,
                     "totals": theirs})
        assert theirs == kernel, "the kernel and danvk's C++ disagree"
    trie = build_trie(words)
    adjacent, points = grid.neighbours(4, 4), grid.points_by_length(table, 33)
    subset = boards[:reference_count]
    reference, seconds = timed(lambda: [grid.boggle_total(list(b), adjacent, trie, points) for b in subset])
    rows.append({"method": "Python reference (dict trie)", "boards": len(subset), "seconds": seconds,
                 "totals": reference})
    assert reference == kernel[:len(subset)], "the kernel and the Python reference disagree"
    for r in rows:
        r["boards_per_s"] = round(r["boards"] / r["seconds"])
    c = next((r for r in rows if r["method"].startswith("danvk")), None)
    for r in rows:
        r["vs_danvk"] = round(r["boards_per_s"] / c["boards_per_s"], 3) if c else None
        r["seconds"] = round(r["seconds"], 3)
        r["total_score"] = sum(r.pop("totals"))
    return rows


def clear_numba_cache() -> int:
    """Remove numba's cache of the --score-file kernels (heuristics/grid_kernel.py): the next run compiles."""
    files = glob.glob(str(ROOT / "heuristics" / "__pycache__" / "grid_kernel.*.nb[ic]"))
    for name in files:
        os.remove(name)
    return len(files)


def run_ours(board_file: Path, dict_path: str) -> tuple[float, int]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cpmodel", "grid", "--score-file", str(board_file), "--dict", dict_path],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    return time.perf_counter() - started, sum(int(line) for line in proc.stdout.split())


def run_theirs(directory: Path, board_file: Path, dict_path: str, count: int) -> tuple[float, int]:
    env = dict(os.environ, PYTHONPATH=str(directory))
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "boggle.perf", "--size", "44", str(count), "--input_file",
                           str(board_file), "--dictionary", dict_path], capture_output=True, text=True, cwd=directory,
                          env=env, check=True)
    seconds = time.perf_counter() - started
    return seconds, int(re.search(r"total_score=(\d+)", proc.stdout).group(1))


def whole_process(board_file: Path, count: int, dict_path: str, directory: Path | None, trials: int) -> dict:
    """1b: both tools as whole processes, equal totals asserted. Each trial runs ours
    cold (numba's cache cleared first: it compiles), danvk's beside it, then ours
    warm and danvk's again; each column is the median of ``trials``."""
    runs: dict[str, list] = {"ours_cold": [], "theirs_cold": [], "ours_warm": [], "theirs_warm": []}
    cleared = 0
    for _ in range(trials):
        cleared += clear_numba_cache()
        for kind in ("cold", "warm"):
            runs[f"ours_{kind}"].append(run_ours(board_file, dict_path))
            if directory is not None:
                runs[f"theirs_{kind}"].append(run_theirs(directory, board_file, dict_path, count))
    totals = {total for values in runs.values() for _, total in values}
    assert len(totals) == 1, f"the totals differ: {runs}"
    out = {"boards": count, "total_score": totals.pop(), "numba_cache_files_cleared": cleared,
           "trials": trials, "cores": os.cpu_count()}
    for key, values in runs.items():
        if values:
            seconds = sorted(s for s, _ in values)
            out[key] = {"seconds": [round(s, 3) for s, _ in values], "median": round(seconds[len(seconds) // 2], 3)}
    if directory is not None:
        for kind in ("cold", "warm"):  # > 1: cpmodel is faster
            out[f"speed_vs_danvk_{kind}"] = round(out[f"theirs_{kind}"]["median"] / out[f"ours_{kind}"]["median"], 3)
    return out


def peak_memory(board_file: Path, count: int, dict_path: str) -> dict:
    """grid --score-file's peak resident memory (a wrapper process reads its only child's)."""
    wrapper = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
               "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
               "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    proc = subprocess.run([sys.executable, "-c", wrapper, sys.executable, "-m", "cpmodel", "grid", "--score-file",
                           str(board_file), "--dict", dict_path], capture_output=True, text=True, cwd=ROOT, check=True)
    seconds, kib = proc.stdout.split()
    return {"boards": count, "file_mb": round(board_file.stat().st_size / 2**20, 1), "seconds": round(float(seconds), 2),
            "peak_rss_mb": round(int(kib) / 1024, 1)}


def ours(dict_path: str, size: str, seconds: float, seed: int, stop_at: int | None = None) -> dict:
    """``grid --best`` as a user runs it (``--target``: until it reaches ``stop_at``); the
    history is its own (seconds since the search began)."""
    started = time.perf_counter()
    target = ["--target", str(stop_at)] if stop_at else []
    proc = subprocess.run([sys.executable, "-m", "cpmodel", "grid", "--best", size, "--time-limit", str(seconds),
                           "--seed", str(seed), "--dict", dict_path, "--json", *target],
                          capture_output=True, text=True, cwd=ROOT, timeout=seconds + 300)
    doc = json.loads(proc.stdout)
    return {"method": "grid --best (hill climber + annealing)", "size": size, "seed": seed, "best": doc["total"],
            "board": doc["board"], "evaluations": doc["evaluations"], "history": doc["history"],
            "wall_seconds": round(time.perf_counter() - started, 1)}


def theirs(directory: Path, dict_path: str, size: str, seconds: float, seed: int, threads: int,
           stop_at: int | None = None) -> dict:
    """danvk's hillclimb.py with the settings its README documents (20 runs, pool 250),
    ``threads`` runs at once (one per core), for ``seconds`` or until a board reaches
    ``stop_at``; its improvements timed as its output arrives."""
    env = dict(os.environ, PYTHONPATH=str(directory), PYTHONUNBUFFERED="1")
    work = tempfile.mkdtemp(prefix="hillclimb-")  # it writes hillclimb-*.txt where it runs
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "boggle.hillclimb", str(DANVK_RUNS), "--size", size.replace("x", ""),
                             "--pool_size", str(DANVK_POOL), "--num_threads", str(threads),
                             "--random_seed", str((seed - 1) * threads + 1),  # run k of seed s: (s−1)·threads + 1 + k, never shared
                             "--dictionary", dict_path], cwd=work, env=env, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)  # its own process group: its pool workers end with it
    history, best = [], 0

    def read() -> None:  # a thread: lines are timed as they arrive
        nonlocal best
        for line in proc.stdout:
            match = re.search(r"max\(scores\)=\((\d+), '(\w+)'\)", line)
            if match and int(match.group(1)) > best:
                best = int(match.group(1))
                history.append([round(time.perf_counter() - started, 2), best])

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while time.perf_counter() - started < seconds and proc.poll() is None and not (stop_at and best >= stop_at):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for leftover in glob.glob(os.path.join(work, "hillclimb*.txt")):
        os.remove(leftover)
    os.rmdir(work)
    return {"method": f"danvk hillclimb.py (pool {DANVK_POOL}, {threads} runs at once)", "size": size, "seed": seed,
            "best": best, "history": history, "wall_seconds": round(time.perf_counter() - started, 1)}


def reached(history, target) -> float | None:
    return next((t for t, s in history if s >= target), None)


def scoring_part(args, words, console) -> dict:
    """Part 1: the kernel alone, then the whole processes (and memory), tables printed."""
    danvk = danvk_module(args.danvk, args.pybind11)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        board_file = Path(tmp) / "boards.txt"
        boards = write_boards(board_file, args.boards, args.seed)
        results["scoring"] = kernel_alone(words, args.dict, boards, args.reference_boards, danvk)
        results["whole_process"] = whole_process(board_file, args.boards, args.dict, args.danvk, args.trials)
        if args.memory_boards:
            big = Path(tmp) / "many.txt"
            write_many_boards(big, args.memory_boards, args.seed)
            results["memory"] = peak_memory(big, args.memory_boards, args.dict)
    t1 = Table(title=f"the kernel alone: {args.boards:,} random 4×4 boards (no q, seed {args.seed}), one core, "
                     "equal totals asserted")
    for h in ("method", "boards", "seconds", "boards/s", "× danvk C++", "total score"):
        t1.add_column(h, justify="left" if h == "method" else "right")
    for r in results["scoring"]:
        t1.add_row(r["method"], f"{r['boards']:,}", f"{r['seconds']:.2f}", f"{r['boards_per_s']:,}",
                   "" if r["vs_danvk"] is None else f"{r['vs_danvk']:.2f}", f"{r['total_score']:,}")
    console.print(t1)
    w = results["whole_process"]
    t2 = Table(title=f"whole process, start to exit: {w['boards']:,} boards, total {w['total_score']:,} "
                     f"(equal), {w['cores']} cores; median of {w['trials']} trials")
    for h in ("", "cpmodel grid --score-file", "danvk boggle.perf", "× danvk (> 1: faster)"):
        t2.add_column(h, justify="left" if not h else "right")
    for kind in ("cold", "warm"):
        theirs = w.get(f"theirs_{kind}")
        t2.add_row(kind + (" (numba compiles)" if kind == "cold" else ""), f"{w[f'ours_{kind}']['median']:.2f} s",
                   f"{theirs['median']:.2f} s" if theirs else "", f"{w.get(f'speed_vs_danvk_{kind}', '')}")
    console.print(t2)
    if "memory" in results:
        m = results["memory"]
        console.print(f"memory: grid --score-file on {m['boards']:,} boards ({m['file_mb']:,} MB): "
                      f"peak {m['peak_rss_mb']:,} MB, {m['seconds']} s", highlight=False)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dict", required=True, help="word list (ENABLE2K: hybrid-boggle's wordlists/enable2k.txt)")
    parser.add_argument("--danvk", type=Path, help="an extracted danvk/hybrid-boggle")
    parser.add_argument("--pybind11", help="a folder holding pybind11 (for building danvk's module)")
    parser.add_argument("--boards", type=int, default=200000)
    parser.add_argument("--reference-boards", type=int, default=2000)
    parser.add_argument("--trials", type=int, default=5, help="whole-process trials (ours cold and warm, theirs twice)")
    parser.add_argument("--memory-boards", type=int, default=0, help="also the peak memory on a file of this many boards")
    parser.add_argument("--seconds", type=float, default=300.0, help="per best-board run: its cap (4x4 runs stop at 3,625)")
    parser.add_argument("--seeds", type=int, default=5, help="best-board runs per method")
    parser.add_argument("--size", default="4x4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-scoring", action="store_true", help="part 2 only; the file keeps its part 1")
    parser.add_argument("--scoring-only", action="store_true", help="part 1 only; the file keeps its part 2")
    parser.add_argument("--skip-theirs", action="store_true", help="best boards: our search only (e.g. many seeds)")
    parser.add_argument("--quick", action="store_true", help="20,000 boards, one 30 s run each")
    parser.add_argument("--out", default=None, help="JSON results (default: results/grid.json)")
    args = parser.parse_args()
    if args.quick:
        args.boards, args.reference_boards, args.seconds, args.seeds, args.trials = 20000, 500, 30.0, 1, 1
    name = "grid" + (".quick" if args.quick else "") + ("" if args.size == "4x4" else f".{args.size}")
    out = Path(args.out or Path(__file__).parent / "results" / f"{name}.json")
    words = load_file(args.dict).words
    console = Console(width=160)
    results = {"dict": os.path.basename(args.dict), "words": len(words), "seed": args.seed, "cores": os.cpu_count()}
    if (args.scoring_only or args.skip_scoring) and out.exists():
        results = {**json.loads(out.read_text()), **results}  # the part not run, as it was
    if not args.skip_scoring:
        results.update(scoring_part(args, words, console))
    if not args.scoring_only:
        results["best_board"] = best_boards(args, console)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    console.print(f"wrote {out}")


def best_boards(args, console) -> dict:
    """Part 2: grid --best against danvk's hill climber, per seed."""
    runs = []
    stop_at = {"4x4": OPTIMUM_4X4, "5x5": BEST_KNOWN_5X5}.get(args.size)  # both stop on reaching the best known
    for k in range(args.seeds):
        seed = args.seed + k
        runs.append(ours(args.dict, args.size, args.seconds, seed, stop_at))
        if args.danvk is not None and not args.skip_theirs:
            runs.append(theirs(args.danvk, args.dict, args.size, args.seconds, seed, os.cpu_count() or 1, stop_at))
        for r in runs[-2:] if not args.skip_theirs and args.danvk else runs[-1:]:  # as each run ends: a stopped benchmark keeps them
            print(json.dumps({key: r[key] for key in ("method", "seed", "best", "history")}), flush=True)
    target = {"4x4": OPTIMUM_4X4, "5x5": TARGET_5X5}.get(args.size)  # the targets
    for r in runs:
        r["seconds_to_target"] = reached(r["history"], target) if target else None
        if stop_at and stop_at != target:
            r["seconds_to_best_known"] = reached(r["history"], stop_at)
        if stop_at == target and r["method"].startswith("grid") and r["best"] >= stop_at:  # both timed whole process:
            r["search_seconds_to_target"] = r["seconds_to_target"]  # ours from its own search's start,
            r["seconds_to_target"] = r["wall_seconds"]  # and from launch to exit (it stops on reaching it)
    best_board = {"size": args.size, "seconds": args.seconds, "target": target, "best_known": stop_at, "runs": runs}
    t2 = Table(title=f"best {args.size} board in {args.seconds:.0f} s, {os.cpu_count()} cores, points reached")
    marks = [3000, target or 10000] + ([stop_at] if stop_at and stop_at != target else [])
    for h in ("method", "seed", "best", "s to first", *(f"s to {m:,}" for m in marks), "board"):
        t2.add_column(h, justify="left" if h in ("method", "board") else "right")
    for r in runs:
        t2.add_row(r["method"], str(r["seed"]), f"{r['best']:,}", str(r["history"][0][0] if r["history"] else None),
                   *(str(reached(r["history"], m)) for m in marks), r.get("board", ""))
    console.print(t2)
    summary = {}
    for method in sorted({r["method"] for r in runs}):
        mine = [r for r in runs if r["method"] == method]
        hits = sum(1 for r in mine if target and r["best"] >= target)
        times = sorted(r["seconds_to_target"] if r["seconds_to_target"] is not None else float("inf") for r in mine)
        median_time = times[len(times) // 2] if len(times) % 2 else (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
        summary[method] = {"runs": len(mine), "reached_target": hits, "median_best": sorted(r["best"] for r in mine)[len(mine) // 2],
                           "median_seconds_to_target": None if median_time == float("inf") else round(median_time, 2)}
        if stop_at and stop_at != target:
            summary[method]["reached_best_known"] = sum(1 for r in mine if r["best"] >= stop_at)
            console.print(f"{method}: {summary[method]['reached_best_known']}/{len(mine)} runs reached {stop_at:,}",
                          highlight=False)
        console.print(f"{method}: {hits}/{len(mine)} runs reached {target or 'the target'}; "
                      f"median best {summary[method]['median_best']:,}; median seconds to it "
                      f"{summary[method]['median_seconds_to_target']}", highlight=False)
    medians = [v["median_seconds_to_target"] for k, v in summary.items()]
    if len(summary) == 2 and all(medians):
        ours_median = next(v for k, v in summary.items() if k.startswith("grid"))["median_seconds_to_target"]
        theirs_median = next(v for k, v in summary.items() if k.startswith("danvk"))["median_seconds_to_target"]
        best_board["speed_vs_danvk"] = round(theirs_median / ours_median, 2)
        console.print(f"median time to {target:,}: danvk / ours = {best_board['speed_vs_danvk']}×", highlight=False)
    best_board["summary"] = summary
    return best_board


if __name__ == "__main__":
    main()
