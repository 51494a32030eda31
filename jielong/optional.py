"""The optional parts of the package (its extras) and a clear error when a
feature that needs one is used without it."""

from __future__ import annotations

from importlib.util import find_spec

EXTRAS = {
    "postgres": ("psycopg", "PostgreSQL databases (--database postgresql://...)"),
    "survey": ("distributed", "surveys on a Dask cluster (jielong survey --dask)"),
    "native": ("mypyc", "compiling the Klondike solver (scripts/build_native.py)"),
}
"""Each extra: the module that shows it is installed, and what it is for."""


class MissingExtra(RuntimeError):
    """A feature was asked for whose extra is not installed."""

    def __init__(self, extra: str) -> None:
        module, feature = EXTRAS[extra]
        super().__init__(
            f"{feature} need the {module} package, which is not installed: "
            f"pip install 'jielong[{extra}]'"
        )
        self.extra = extra


def installed(extra: str) -> bool:
    module = EXTRAS[extra][0]
    try:
        return find_spec(module) is not None
    except ImportError:
        return False


def require(extra: str) -> None:
    """Raise :class:`MissingExtra` unless ``extra`` is installed."""
    if not installed(extra):
        raise MissingExtra(extra)
