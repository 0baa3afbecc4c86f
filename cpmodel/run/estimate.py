"""Sizing a search before running it: how many nodes, solutions and CPU-hours.

Two estimates, which check each other:

* **Knuth's Monte-Carlo estimate** (D. E. Knuth, "Estimating the efficiency
  of backtrack programs", Math. Comp. 29, 1975), for rectangles: walk from
  the root to a leaf, at each level taking one of the d candidates at random;
  d_0 + d_0·d_1 + d_0·d_1·d_2 + … is an unbiased estimate of the number of
  nodes Algorithm B visits, and d_0·…·d_{m-1} of its leaves. The mean of many
  probes converges; its standard error says how far to trust it (these trees
  are lopsided, so it can be large).
* **Sampled shards**: run the one-word shards of randomly chosen first-line
  words to the end, in this process, until a time budget is spent, and scale
  their mean nodes, solutions and seconds by the number of first-line words.
  This measures real seconds with the chosen engine.

Both count the same nodes: on a small search, every first-line word run whole
gives the exact total, and Knuth's mean converges to it. On a big one they
can differ by more than their error bars (1.55× was seen on 5x6): the tree is
lopsided, a few first-line words hold most of its nodes, and a standard error
from a few samples of such a spread understates it. :func:`nodes_agreement`
says whether they agree; the CPU-hours come from the words run whole, which
ran the real engine.

CPU time from Knuth's node count uses the node rate the sampled shards ran
at. "Workers for an hour" assumes the shards spread evenly, which the
30–100 shards per worker of cpmodel.run.shards are there to make true.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import replace

from cpmodel.core.control import Control, Request
from cpmodel.core.jobs import Job


def knuth_estimate(job: Job, probes: int = 2000, seed: int = 0) -> dict:
    """Mean and standard error of Knuth's estimator over ``probes`` random paths (rect only)."""
    from cpmodel.run.engines import fill_orientation
    from heuristics.rectangle import RectangleSearch, _members

    spec = job.spec
    orientation = fill_orientation(job.with_engine("backtrack"))  # the estimate is of the backtracker's tree
    assert orientation is not None  # the rect backtracker always has a fill order
    search = RectangleSearch(spec, Request(limit=None, count_only=True), Control(), orientation)
    root = _members(search.root())
    rng = random.Random(seed)
    samples = [search.probe(rng, root) for _ in range(probes)]
    nodes, leaves = [s[0] for s in samples], [s[1] for s in samples]
    return {"probes": probes, "seed": seed, "orientation": orientation,
            "nodes": statistics.fmean(nodes), "nodes_stderr": _stderr(nodes),
            "solutions": statistics.fmean(leaves), "solutions_stderr": _stderr(leaves)}


def sample_shards(job: Job, words: tuple[str, ...], budget: float = 10.0, seed: int = 0, at_least: int = 3) -> dict:
    """Run one-word shards of random first-line words for about ``budget`` seconds and scale up."""
    from cpmodel.run import engines
    from cpmodel.run.cuts import restrict

    if job.puzzle == "rect":  # build the engine's word tables before the clock starts
        engines.run(restrict(job, ()))
    order = list(words)
    random.Random(seed).shuffle(order)
    seconds: list[float] = []
    nodes: list[int] = []
    counts: list[int] = []
    started = time.perf_counter()
    for word in order:
        if len(seconds) >= at_least and time.perf_counter() - started >= budget:
            break
        shard = restrict(replace(job, request=replace(job.request, count_only=not job.request.best)), (word,))
        t0 = time.perf_counter()
        result = engines.run(shard)
        seconds.append(time.perf_counter() - t0)
        nodes.append(result.stats.get("nodes", result.stats.get("branches", 0)))
        counts.append(result.count)
    scale = len(words)
    return {"sampled": len(seconds), "words": scale, "seed": seed,
            "seconds": statistics.fmean(seconds) * scale, "seconds_stderr": _stderr(seconds) * scale,
            "nodes": statistics.fmean(nodes) * scale, "nodes_stderr": _stderr(nodes) * scale,
            "solutions": statistics.fmean(counts) * scale, "solutions_stderr": _stderr(counts) * scale,
            "node_rate": sum(nodes) / max(sum(seconds), 1e-9)}


def plan(job: Job, words: tuple[str, ...], probes: int = 2000, budget: float = 10.0, seed: int = 0) -> dict:
    """Both estimates and what they mean in CPU-hours and workers for one hour."""
    from cpmodel.run.cuts import pin_orientation

    job = pin_orientation(job)
    sampled = sample_shards(job, words, budget, seed)
    doc = {"first_line_words": len(words), "sampled_shards": sampled}
    cpu_seconds = sampled["seconds"]
    if job.puzzle == "rect":
        knuth = knuth_estimate(job, probes, seed)
        doc["knuth"] = knuth
        if job.engine == "backtrack" and sampled["node_rate"] > 0:
            knuth["seconds"] = knuth["nodes"] / sampled["node_rate"]
        doc["nodes_agreement"] = nodes_agreement(knuth, sampled)
    doc["cpu_hours"] = cpu_seconds / 3600
    doc["workers_for_one_hour"] = max(1, math.ceil(cpu_seconds / 3600))
    return doc


def nodes_agreement(knuth: dict, sampled: dict) -> dict | None:
    """Whether the two node estimates agree: their difference within two combined standard errors.

    Both count the same nodes (on a small search, every first-line word run whole gives
    the exact total, and Knuth's mean converges to it). When they differ beyond their
    errors, it is the tree: a few first-line words hold most of its nodes, and a
    standard error from few samples of such a spread understates it."""
    if not sampled["nodes"] or not knuth["nodes"]:
        return None
    spread = math.hypot(*(0.0 if math.isnan(e) else e for e in (knuth["nodes_stderr"], sampled["nodes_stderr"])))
    return {"ratio": knuth["nodes"] / sampled["nodes"],
            "within_error": abs(knuth["nodes"] - sampled["nodes"]) <= 2 * spread}


def _stderr(values: Sequence[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
