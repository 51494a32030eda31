"""The solvers' compiled copies: which modules each solver is compiled from,
and the one loader that puts a copy's entry points in place of the plain
ones.

``scripts/build_native.py`` compiles each group of :data:`GROUPS` with mypyc
into ``jielong.engine.solve.searches._native_*`` (reading this file by its
path, so the build imports no package).  Each copy carries the SHA-256 of
the sources it came from; :func:`use_compiled` takes a copy only when that
hash matches the sources' text, so an edited source never runs stale
compiled code.  Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path
from types import ModuleType

GROUPS: dict[str, tuple[str, ...]] = {
    "klondike": (
        "klondike_state",
        "klondike_keys",
        "klondike_replay",
        "klondike_relax",
        "klondike_search",
        "klondike_unseen",
        "klondike_sample",
        "klondike_hint",
    ),
    "freecell": ("freecell_state", "freecell_line", "freecell_search"),
}
"""Each solver's modules, compiled together, in the order their hash reads them."""

PREFIX = "_native_"
"""What a compiled copy's module name starts with."""

PACKAGE = "jielong.engine.solve.searches"
"""Where the solvers' modules and their compiled copies are."""
HERE = Path(__file__).parent / "solve" / "searches"


def source_sha256(group: str) -> str:
    """The SHA-256 of a group's modules, in the order of :data:`GROUPS`."""
    digest = hashlib.sha256()
    for part in GROUPS[group]:
        digest.update((HERE / f"{part}.py").read_bytes())
    return digest.hexdigest()


def compiled_modules(group: str) -> dict[str, ModuleType] | None:
    """A group's compiled copies by part, when they were built from these
    very sources and ``JIELONG_PURE_PYTHON`` is not set; else ``None``."""
    if os.environ.get("JIELONG_PURE_PYTHON"):
        return None
    try:
        found = {p: importlib.import_module(f"{PACKAGE}.{PREFIX}{p}") for p in GROUPS[group]}
    except ImportError:
        return None
    sha = source_sha256(group)
    if any(getattr(m, "SOURCE_SHA256", None) != sha for m in found.values()):
        return None  # built from another version of these files: never run stale code
    return found


def use_compiled(group: str, entry_points: dict[str, str], into: dict[str, object]) -> None:
    """Put the compiled entry points (each name and the part that defines
    it) into a module's namespace ``into``, when :func:`compiled_modules`
    finds them."""
    found = compiled_modules(group)
    if found is not None:
        into.update({name: getattr(found[part], name) for name, part in entry_points.items()})
