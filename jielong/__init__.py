"""jielong: Klondike and FreeCell with exact rules and real solvers."""

__version__ = "0.1.0"
