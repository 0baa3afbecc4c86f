"""The layout states the architecture: rooms, imported one way, without cycles.

Every import in ``cpmodel/`` and ``heuristics/`` is read with ``ast``,
including the ones inside functions (most of the project imports lazily, and
a lazy import is still a dependency). Each module belongs to a room; a room
may import its own modules and the rooms below it, top to bottom:

    commands (and web, the facade cpmodel/__init__.py, __main__.py)
    → teach → show → run → models → heuristics → core

On top of the order: no import cycle between modules, ``heuristics/`` and
``core/`` never import ortools, and ``core/`` imports no other room.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cpmodel", "heuristics")
# top to bottom; rooms on one line share a level
ORDER = [("commands", "web"), ("teach",), ("show",), ("run",), ("models",), ("heuristics",), ("core",)]
LEVEL = {room: k for k, rooms in enumerate(ORDER) for room in rooms}
TOP = ("cpmodel", "cpmodel.__main__")  # the API facade and ``python -m cpmodel`` sit with the commands


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Dotted name → file, for every module of the two packages."""
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def room_of(module: str) -> str | None:
    """The room a module lives in, or None for a module in no room."""
    if module in TOP:
        return "commands"
    parts = module.split(".")
    if parts[0] == "heuristics":
        return "heuristics"
    return parts[1] if len(parts) > 1 and parts[1] in LEVEL else None


def imported_names(module: str, path: Path, modules) -> list[tuple[str, int]]:
    """Every module an import statement in the file names, with its line: ``from a import b``
    names the module ``a.b`` when there is one, else ``a`` (``b`` is an attribute of it)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from ..core import y
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                name = f"{base}.{alias.name}"
                names.append((name if name in modules else base, node.lineno))
    return names


def import_graph() -> tuple[nx.DiGraph, dict[str, list[tuple[str, int]]]]:
    """Modules and the project modules each imports (edges carry the line), and every
    name each module imports (for the checks on ortools)."""
    modules = project_modules()
    graph = nx.DiGraph()
    for module, path in modules.items():
        graph.add_node(module, path=path.relative_to(ROOT))
    raw = {}
    for module, path in modules.items():
        raw[module] = imported_names(module, path, modules)
        for name, line in raw[module]:
            if name in modules and name != module:
                graph.add_edge(module, name, line=line)
    return graph, raw


def where(graph: nx.DiGraph, a: str, b: str) -> str:
    return f"{graph.nodes[a].get('path', a)}:{graph.edges[a, b]['line']}"


def layer_violations(graph: nx.DiGraph) -> list[str]:
    """Imports of a room above the importer's, and modules in no room."""
    problems = [f"{module} is in no room" for module in graph if room_of(module) is None]
    for a, b in graph.edges:
        room_a, room_b = room_of(a), room_of(b)
        if room_a and room_b and LEVEL[room_b] < LEVEL[room_a]:
            problems.append(f"{where(graph, a, b)}: {a} ({room_a}) imports {b} ({room_b}), a room above it")
    return problems


def import_cycles(graph: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(cycle) for cycle in nx.simple_cycles(graph))


def imports_of(raw, room: str, prefix: str) -> list[str]:
    return [f"{module} imports {name}" for module, names in raw.items() if room_of(module) == room
            for name, _ in names if name == prefix or name.startswith(prefix + ".")]


def levels(graph: nx.DiGraph) -> int:
    """How many levels the graph stands on: the longest chain of imports, counted in
    modules (a cycle counts as one node)."""
    dag = nx.condensation(graph)
    return nx.dag_longest_path_length(dag) + 1 if dag else 0


def test_every_module_sits_in_a_room_and_imports_only_its_own_or_lower_rooms():
    graph, _ = import_graph()
    assert layer_violations(graph) == []


def test_no_import_cycles():
    graph, _ = import_graph()
    assert import_cycles(graph) == []


def test_heuristics_and_core_never_import_ortools():
    _, raw = import_graph()
    assert imports_of(raw, "heuristics", "ortools") == []
    assert imports_of(raw, "core", "ortools") == []


def test_core_imports_no_other_room():
    graph, _ = import_graph()
    outside = [f"{where(graph, a, b)}: {a} imports {b}" for a, b in graph.edges
               if room_of(a) == "core" and room_of(b) != "core"]
    assert outside == []


def test_only_the_serve_command_imports_the_web_app():
    """The web app (cpmodel/web/, the optional web extra) sits beside the commands; nothing but the
    ``serve`` command reaches it, so the CLI and the API never need starlette or uvicorn."""
    graph, _ = import_graph()
    reaching = sorted(f"{where(graph, a, b)}: {a} imports {b}" for a, b in graph.edges
                      if room_of(b) == "web" and room_of(a) != "web" and a != "cpmodel.commands.serve")
    assert reaching == []


def test_the_api_function_run_outlives_the_room_of_the_same_name():
    """``cpmodel.run(job)`` is the API; importing the room cpmodel/run/ must not replace it."""
    import subprocess
    import sys

    code = ("import sys, cpmodel, cpmodel.run.engines; from cpmodel.run import portfolio; "
            "print(cpmodel.run.__module__, sys.modules['cpmodel.run'].__name__, "
            "cpmodel.solve_rect('2x2', cpmodel.load_lexicon('at to ta oa'), engine='backtrack', count=True).count)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.split() == ["cpmodel", "cpmodel.run", "5"]


def test_the_checks_catch_what_they_are_for():
    """The checks fail on a made-up graph that breaks each rule (they cannot pass by accident)."""
    bad = nx.DiGraph()
    bad.add_edge("cpmodel.core.specs", "cpmodel.run.engines", line=1)  # core reaching up
    bad.add_edge("cpmodel.run.shards", "cpmodel.run.estimate", line=2)  # a cycle inside a room
    bad.add_edge("cpmodel.run.estimate", "cpmodel.run.shards", line=3)
    bad.add_edge("heuristics.peel", "cpmodel.models.bananagrams", line=4)  # heuristics reaching up
    bad.add_node("cpmodel.flat")  # a module in no room
    assert [p.split(":")[0] for p in layer_violations(bad)] == [
        "cpmodel.flat is in no room", "cpmodel.core.specs", "heuristics.peel"]
    assert import_cycles(bad) == [["cpmodel.run.estimate", "cpmodel.run.shards"]]
    assert imports_of({"heuristics.x": [("ortools.sat.python", 1)]}, "heuristics", "ortools")
    assert levels(bad) == 2  # core.specs above engines; the shards/estimate cycle counts as one node


if __name__ == "__main__":  # python tests/test_layout.py: the figures
    graph, raw = import_graph()
    print(f"{graph.number_of_nodes()} files, {graph.number_of_edges()} imports, {levels(graph)} levels, "
          f"{len(import_cycles(graph))} cycles")
    for cycle in import_cycles(graph):
        print("cycle:", " ↔ ".join(cycle))
    for problem in layer_violations(graph):
        print(problem)
