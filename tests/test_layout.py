"""The package's import graph, read from the source (nothing is imported):
no circle, no import running back up a floor, and no import tucked inside a
function to get round a circle.

The floors, bottom first.  A module may import from its own floor and the
floors below it; within a floor the graph must still be free of circles.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jielong"

FLOORS: tuple[tuple[str, ...], ...] = (
    # the package itself and its extras
    ("jielong", "jielong.optional"),
    # the engine, which runs in the browser too: cards and the shuffles first
    ("jielong.engine", "jielong.engine.cards", "jielong.engine.shuffles", "jielong.engine.data"),
    # the rules of the game families, the variants and their registry
    ("jielong.engine.rules", "jielong.engine.notation", "jielong.engine.textboard"),
    # the solvers and hints, and the record of each game family beside them
    ("jielong.engine.solve", "jielong.engine.families"),
    # the deal catalogue: deal ids, unsolvable lists, daily and winnable deals
    ("jielong.engine.catalogue",),
    # a game being played
    ("jielong.session",),
    # the game as the player sees it, on the server and in the browser's worker
    ("jielong.play",),
    # persistence
    ("jielong.store",),
    # the site
    ("jielong.web",),
    # the command line and the helpers of tests and benchmarks
    ("jielong.cli", "jielong.testing"),
)


def floor_of(module: str) -> int:
    """The floor of ``module``: that of the longest listed prefix (the root
    package ``jielong`` stands for itself alone)."""
    best, found = -1, None
    for level, prefixes in enumerate(FLOORS):
        for prefix in prefixes:
            inside = prefix != "jielong" and module.startswith(prefix + ".")
            if (module == prefix or inside) and len(prefix) > best:
                best, found = len(prefix), level
    if found is None:
        raise AssertionError(f"{module} is on no floor: add it to FLOORS")
    return found


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    inner: bool
    """Written inside a function (runs when called, not on import)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The package module ``name`` stands for (its longest known prefix)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool) -> None:
        self.module = module
        self.package = module if is_package else module.rpartition(".")[0]
        self.depth = 0
        self.found: list[tuple[str, int, bool]] = []

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function
    visit_Lambda = _function

    def _add(self, name: str, line: int) -> None:
        self.found.append((name, line, self.depth > 0))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        for alias in node.names:
            # `from pkg import mod` imports the module pkg.mod when there is one
            self._add(f"{prefix}.{alias.name}", node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        # importlib.import_module("jielong.x") is an import all the same
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if (
            name == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            self._add(node.args[0].value, node.lineno)
        self.generic_visit(node)


def import_edges() -> list[Edge]:
    known = _modules()
    edges: list[Edge] = []
    for module, path in known.items():
        visitor = _Imports(module, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for name, line, inner in visitor.found:
            target = _resolve(name, known) if name.startswith("jielong") else None
            if target is None or target == module:
                continue
            edges.append(Edge(module, target, line, inner))
            # importing a.b.c runs the packages a and a.b first (but a module
            # inside a package has run that package's __init__ already)
            parent = target.rpartition(".")[0]
            while parent and parent != module and not module.startswith(parent + "."):
                edges.append(Edge(module, parent, line, inner))
                parent = parent.rpartition(".")[0]
    return edges


def _reaches(edges: list[Edge], start: str, goal: str) -> list[str] | None:
    """A path of imports from ``start`` to ``goal``, if there is one."""
    following: dict[str, list[str]] = {}
    for e in edges:
        following.setdefault(e.source, []).append(e.target)
    came: dict[str, str] = {start: start}
    todo = [start]
    while todo:
        at = todo.pop()
        if at == goal:
            path = [at]
            while at != start:
                at = came[at]
                path.append(at)
            return path[::-1]
        for nxt in following.get(at, ()):
            if nxt not in came:
                came[nxt] = at
                todo.append(nxt)
    return None


def _circles(edges: list[Edge]) -> Iterator[list[str]]:
    for e in edges:
        back = _reaches(edges, e.target, e.source)
        if back is not None:
            yield [e.source, *back]


def test_every_module_is_on_a_floor() -> None:
    for module in _modules():
        floor_of(module)


def test_the_graph_is_read() -> None:
    # the check below means something only if it sees the imports
    edges = {(e.source, e.target) for e in import_edges()}
    assert ("jielong.engine.rules.freecell", "jielong.engine.shuffles") in edges
    assert ("jielong.session.game", "jielong.engine.rules.core") in edges
    assert ("jielong.web.app", "jielong.store") in edges


ENGINE_OPTIONAL = {"jielong.engine.solve.fcsolve": {"freecell_solver", "typing_extensions"}}
"""What the engine may import beyond the standard library and itself: only
Freecell Solver's adapter, the binding inside the function that uses it and
its types for the type checker alone."""


class _TopLevel(ast.NodeVisitor):
    """The imports that run when a module is imported: not those inside a
    function or under ``if TYPE_CHECKING``."""

    def __init__(self) -> None:
        self.found: list[tuple[str, int]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        return

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for inner in node.orelse:
                self.visit(inner)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [(alias.name, node.lineno) for alias in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not node.level:
            self.found.append((node.module or "", node.lineno))


def _all_imports(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.append((node.module or "", node.lineno))
    return found


def test_the_engine_imports_the_standard_library_and_itself_only() -> None:
    # the browser's Pyodide has the standard library and the engine, nothing more
    foreign = []
    engine = PACKAGE / "engine"
    for path in sorted(engine.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        at_import = _TopLevel()
        at_import.visit(tree)
        allowed = ENGINE_OPTIONAL.get(module, set())
        for name, line in _all_imports(tree):
            top = name.split(".")[0]
            if name == "jielong.engine" or name.startswith("jielong.engine."):
                continue
            if top in sys.stdlib_module_names or top == "__future__":
                continue
            if top in allowed and (name, line) not in at_import.found:
                continue
            foreign.append(f"{module}:{line} imports {name}")
    assert foreign == []


def test_the_engine_check_sees_a_foreign_import() -> None:
    tree = ast.parse("import orjson\nif TYPE_CHECKING:\n    import typing_extensions\n")
    at_import = _TopLevel()
    at_import.visit(tree)
    assert at_import.found == [("orjson", 1)]


def test_no_import_runs_up_a_floor() -> None:
    upward = [
        f"{e.source} (floor {floor_of(e.source)}) imports {e.target} "
        f"(floor {floor_of(e.target)}) at line {e.line}"
        for e in import_edges()
        if floor_of(e.target) > floor_of(e.source)
    ]
    assert upward == []


def test_no_circle() -> None:
    # inner imports count too: a circle closed at call time is a circle
    circles = {" -> ".join(c) for c in _circles(import_edges())}
    assert sorted(circles) == []


def test_no_inner_import_dodges_a_circle() -> None:
    edges = import_edges()
    outer = [e for e in edges if not e.inner]
    dodges = []
    for e in edges:
        if e.inner:
            back = _reaches(outer, e.target, e.source)
            if back is not None:
                dodges.append(f"{e.source}:{e.line} imports {e.target}, which imports it back")
    assert dodges == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import jielong.session\n", "jielong.session"),
        ("from jielong.engine.solve import api\n", "jielong.engine.solve.api"),
        ("from . import core\n", "jielong.engine.rules.core"),
        ("def f():\n    import_module('jielong.store')\n", "jielong.store"),
    ],
)
def test_imports_are_recognised(source: str, expected: str) -> None:
    visitor = _Imports("jielong.engine.rules.freecell", False)
    visitor.visit(ast.parse(source))
    names = [_resolve(name, _modules()) for name, _, _ in visitor.found]
    assert names == [expected]


# -- sizes ---------------------------------------------------------------------

MODULE_LINES = 500
"""Lines of a module at most."""
FOLDER_MODULES = 15
"""Modules in one folder at most (``__init__.py`` included)."""
FUNCTION_LINES = 80
"""Lines of a function at most, from its ``def`` to its last line."""

LONG_MODULES: set[str] = set()
"""Modules still over :data:`MODULE_LINES`, each to be split; one that is no
longer long must leave this list, so that it only shrinks."""


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def module_lines() -> dict[str, int]:
    return {
        _relative(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules().values()
    }


def folder_modules() -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in _modules().values():
        folder = _relative(path.parent)
        counts[folder] = counts.get(folder, 0) + 1
    return counts


def function_lines(source: str) -> dict[str, int]:
    """Every function's and method's length by name (nested ones too)."""
    lengths: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            lengths[f"{node.name}:{node.lineno}"] = end - node.lineno + 1
    return lengths


def test_no_module_is_too_long() -> None:
    lines = module_lines()
    long = {m for m, n in lines.items() if n > MODULE_LINES}
    assert sorted(long - LONG_MODULES) == []
    assert sorted(LONG_MODULES - long) == [], "no longer long: take it off LONG_MODULES"


def test_no_folder_holds_too_many_modules() -> None:
    crowded = {f: n for f, n in folder_modules().items() if n > FOLDER_MODULES}
    assert crowded == {}


def test_no_function_is_too_long() -> None:
    long = [
        f"{_relative(path)}:{name} ({n} lines)"
        for path in _modules().values()
        for name, n in function_lines(path.read_text(encoding="utf-8")).items()
        if n > FUNCTION_LINES
    ]
    assert long == []


def test_the_size_checks_count_what_they_say() -> None:
    source = (
        "def f():\n    x = 1\n\n    return x\n\n\nclass C:\n    async def g(self):\n        pass\n"
    )
    assert function_lines(source) == {"f:1": 4, "g:8": 2}
    assert module_lines()["jielong/engine/solve/searches/klondike_sample.py"] > 100
    assert folder_modules()["jielong/engine/solve"] >= 2
