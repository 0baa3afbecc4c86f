"""Checkpoint and resume for sharded runs: an append-only JSONL file, verified, never trusted.

The first line names the run, ``{"checkpoint": 2, "key": ..., "shards": S}``,
where ``key`` hashes the puzzle, spec, mode and shard plan
(:func:`cpmodel.run.shards.job_key`). Each finished shard then adds one line,
``{"shard": id, "count": c, "solutions": [[row, ...], ...], "objective": [max, sum] | null,
"nodes": n, "sum": s}``, written whole, flushed and fsynced before the shard
counts as done, where ``s`` is a SHA-256 of the run's key and the record.
A run killed at any moment (Ctrl-C, SIGTERM, kill -9) therefore loses only
the shards in flight. Rerunning the same command with the same file skips
the recorded shards and re-emits their solutions.

A checkpoint is a file anyone can edit, copy or point at the wrong thing,
so opening one proves it before it is used:

* it must be a regular file (``/dev/null`` is not), and it is locked
  (``flock``): a second run on the same file is refused, not interleaved;
* nothing is written or cut until the header proves the file is a checkpoint
  of *this* plan; anything else is refused untouched (exit 2);
* every record must carry its checksum, name a shard of the plan once, and
  hold solutions that pass the puzzle's validator on that shard's spec, a
  count that matches them and (``--best``) the objective they score;
* a torn last line (no newline: killed mid-write) is cut off and its shard
  runs again; any other damage is an error naming the line.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os

from cpmodel.core.errors import InputError
from cpmodel.core.files import MAX_CHECKPOINT, open_regular, read_fd
from cpmodel.core.result import FOUND, NONE, SolveResult

FORMAT = 2  # 2: every record carries "sum"; files are locked while in use
WHAT = "checkpoint"


class Checkpoint:
    """An open, locked, verified checkpoint of one plan (a list of shards, ids 0..S-1)."""

    def __init__(self, path: str, key: str, plan: list):
        self.path, self.key, self.plan = path, key, plan
        self.fd = open_regular(path, WHAT, os.O_RDWR | os.O_CREAT)
        try:
            _lock(self.fd, path)
            self.records = self._load()
        except BaseException:
            os.close(self.fd)
            raise

    def _load(self) -> dict[int, SolveResult]:
        """The finished shards recorded so far, each verified, as results; writes the header
        into an empty file, and cuts a torn last line only once the file is proven ours."""
        data = read_fd(self.fd, self.path, WHAT, MAX_CHECKPOINT)
        if not data:
            self._append({"checkpoint": FORMAT, "key": self.key, "shards": len(self.plan)})
            return {}
        whole, torn = data, b""
        if not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            whole, torn = data[:cut], data[cut:]
        lines = whole.split(b"\n")[:-1]
        if not lines:  # one unfinished line: ours only if it is a torn header of this very plan
            self._check_torn_header(torn)
            lines = []
        else:
            self._check_header(lines[0])
        records = {}
        for number, line in enumerate(lines[1:], start=2):
            shard_id, result = self._verify(line, number)
            if shard_id in records:
                raise InputError(self._where(number, f"shard {shard_id} is recorded twice"))
            records[shard_id] = result
        if torn:  # proven ours: drop the line a kill cut short; its shard runs again
            os.ftruncate(self.fd, len(whole))
            if not lines:
                self._append({"checkpoint": FORMAT, "key": self.key, "shards": len(self.plan)})
        return records

    def _check_header(self, line: bytes) -> None:
        header = _json(line)
        if not isinstance(header, dict) or "checkpoint" not in header or "key" not in header:
            raise InputError(f"{self.path} is not a cpmodel checkpoint; it was left untouched")
        if header.get("checkpoint") != FORMAT:
            raise InputError(f"checkpoint {self.path} has format {header.get('checkpoint')!r}, this cpmodel "
                             f"writes {FORMAT}; use a new file to start afresh")
        if header.get("key") != self.key or header.get("shards") != len(self.plan):
            raise InputError(f"checkpoint {self.path} was made for another puzzle, spec, mode or --shards; "
                             "use a new file to start afresh")

    def _check_torn_header(self, torn: bytes) -> None:
        header = json.dumps({"checkpoint": FORMAT, "key": self.key, "shards": len(self.plan)},
                            separators=(",", ":")).encode()
        holds_key = len(torn) >= header.index(self.key.encode()) + len(self.key)
        if not (holds_key and header.startswith(torn)):
            raise InputError(f"{self.path} is not a cpmodel checkpoint of this run; it was left untouched")

    def _verify(self, line: bytes, number: int) -> tuple[int, SolveResult]:
        """One record line as (shard id, its result), or InputError naming the line and the damage."""
        record = _json(line)
        if not isinstance(record, dict) or set(record) != {"shard", "count", "solutions", "objective", "nodes", "sum"}:
            raise InputError(self._where(number, "not a shard record"))
        claimed = record.pop("sum")
        if claimed != record_sum(self.key, record):
            raise InputError(self._where(number, "its checksum does not match (the line was edited or damaged)"))
        shard_id, count, solutions = record["shard"], record["count"], record["solutions"]
        if type(shard_id) is not int or not 0 <= shard_id < len(self.plan):
            raise InputError(self._where(number, f"shard {shard_id!r} is not in the plan of {len(self.plan)} shards"))
        if type(count) is not int or count < 0 or type(record["nodes"]) is not int:
            raise InputError(self._where(number, "count and nodes must be whole numbers"))
        if not isinstance(solutions, list) or not all(isinstance(rows, list) and all(isinstance(r, str) for r in rows)
                                                      for rows in solutions):
            raise InputError(self._where(number, "solutions must be lists of rows"))
        result = SolveResult("checkpoint", FOUND if count else NONE, True, count,
                             [tuple(rows) for rows in solutions], stats={"nodes": record["nodes"]})
        problem = _problem(self.plan[shard_id].job, result, record["objective"])
        if problem:
            raise InputError(self._where(number, f"shard {shard_id}: {problem}"))
        result.objective = tuple(record["objective"]) if record["objective"] else None
        return shard_id, result

    def _where(self, number: int, problem: str) -> str:
        return f"checkpoint {self.path} line {number}: {problem}; fix or remove the file"

    def _append(self, doc: dict) -> None:
        os.lseek(self.fd, 0, os.SEEK_END)
        data = (json.dumps(doc, separators=(",", ":")) + "\n").encode()
        while data:
            data = data[os.write(self.fd, data):]
        os.fsync(self.fd)

    def record(self, shard_id: int, result: SolveResult) -> None:
        """Record one finished shard (call only for complete results)."""
        record = {"shard": shard_id, "count": result.count, "solutions": [list(r) for r in result.solutions],
                  "objective": list(result.objective) if result.objective else None,
                  "nodes": int(result.stats.get("nodes", 0))}
        self._append({**record, "sum": record_sum(self.key, record)})

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # releases the lock
            self.fd = -1


def _lock(fd: int, path: str) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError(f"checkpoint {path} is in use by another run; wait for it to end or use another file") from None
    except OSError as exc:
        raise InputError(f"cannot lock checkpoint {path}: {exc.strerror}") from None


def _json(line: bytes):
    try:
        return json.loads(line, parse_constant=lambda name: None)
    except (ValueError, RecursionError):
        return None


def record_sum(key: str, record: dict) -> str:
    """The checksum of a record: SHA-256 of the run's key and the record's canonical JSON."""
    text = key + "\n" + json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _problem(job, result: SolveResult, objective) -> str | None:
    """What is wrong with a recorded shard result for ``job`` (None: nothing): every
    solution valid on the shard's spec and distinct, the count matching them, the optimum scored."""
    from cpmodel.core.validate import (
        rank_objective,
        rectangle_problems,
        wordscapes_problems,
    )

    problems_of = rectangle_problems if job.puzzle == "rect" else wordscapes_problems
    for rows in result.solutions:
        problems = problems_of(job.spec, rows)
        if problems:
            return f"recorded solution {list(rows)} is invalid: {problems[0]}"
    if len(set(result.solutions)) != len(result.solutions):
        return "a solution is recorded twice"
    request = job.request
    if request.count_only:
        return "a --count record holds solutions" if result.solutions else None
    if not request.best:
        return None if result.count == len(result.solutions) else "its count differs from its solutions"
    if len(result.solutions) > 1 or result.count != len(result.solutions):
        return "a --best record holds at most one solution, counted once"
    if not result.solutions:
        return None if objective is None else "an objective without a solution"
    rows = result.solutions[0]
    scored = rank_objective(job.spec, rows) if job.puzzle == "rect" else job.spec.fill_objective(rows)
    if objective != list(scored):
        return f"its objective {objective!r} is not the solution's {list(scored)}"
    return None
