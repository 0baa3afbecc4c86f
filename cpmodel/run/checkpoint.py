"""Checkpoint and resume for sharded runs: an append-only JSONL file.

The first line names the run, ``{"checkpoint": 1, "key": ..., "shards": S}``,
where ``key`` hashes the puzzle, spec, mode and shard plan
(:func:`cpmodel.run.shards.job_key`). Each finished shard then adds one line,
``{"shard": id, "count": c, "solutions": [[row, ...], ...], "objective": [max, sum] | null,
"nodes": n}``, written whole, flushed and fsynced before the shard counts as
done. A run killed at any moment (Ctrl-C, SIGTERM, kill -9) therefore loses
only the shards in flight; a torn last line is cut off when the file is
opened again. Rerunning the same command with the same file skips the
recorded shards and re-emits their solutions.
"""

from __future__ import annotations

import json
import os

from cpmodel.core.errors import InputError
from cpmodel.core.result import FOUND, NONE, SolveResult

FORMAT = 1


class Checkpoint:
    def __init__(self, path: str, key: str, shards: int):
        self.path = path
        self.records = self._load(key, shards)
        try:
            self.file = open(path, "a", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write checkpoint {path}: {exc.strerror}") from None
        if os.path.getsize(path) == 0:
            self._append({"checkpoint": FORMAT, "key": key, "shards": shards})

    def _load(self, key: str, shards: int) -> dict[int, dict]:
        """The finished shards recorded so far; refuses a file made for another run."""
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return {}
        except IsADirectoryError:
            raise InputError(f"checkpoint {self.path} is a directory") from None
        except OSError as exc:
            raise InputError(f"cannot read checkpoint {self.path}: {exc.strerror}") from None
        if data and not data.endswith(b"\n"):  # killed mid-write: drop the torn line
            data = data[: data.rfind(b"\n") + 1]
            with open(self.path, "r+b") as f:
                f.truncate(len(data))
        lines = data.decode("utf-8", errors="replace").splitlines()
        if not lines:
            return {}
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = {}
        if not isinstance(header, dict) or header.get("checkpoint") != FORMAT:
            raise InputError(f"{self.path} is not a cpmodel checkpoint")
        if header.get("key") != key or header.get("shards") != shards:
            raise InputError(f"checkpoint {self.path} was made for another puzzle, spec, mode or --shards; "
                             "use a new file to start afresh")
        records = {}
        for line in lines[1:]:
            record = json.loads(line)
            records[record["shard"]] = record
        return records

    def _append(self, doc: dict) -> None:
        self.file.write(json.dumps(doc, separators=(",", ":")) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def record(self, shard_id: int, result: SolveResult) -> None:
        """Record one finished shard (call only for complete results)."""
        self._append({"shard": shard_id, "count": result.count, "solutions": [list(r) for r in result.solutions],
                      "objective": list(result.objective) if result.objective else None,
                      "nodes": result.stats.get("nodes", 0)})

    def close(self) -> None:
        self.file.close()


def recorded_result(record: dict, solver: str) -> SolveResult:
    """A checkpoint line as the shard's result again."""
    objective = tuple(record["objective"]) if record.get("objective") else None
    return SolveResult(solver, FOUND if record["count"] else NONE, True, record["count"],
                       [tuple(rows) for rows in record["solutions"]], objective=objective,
                       stats={"nodes": record.get("nodes", 0)})
