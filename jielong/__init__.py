"""jielong: Klondike and FreeCell with exact rules and real solvers.

Architecture, bottom floor first (a module imports only from its own floor
and those below; tests/test_layout.py checks it, docs/design.md says more):
cards and shuffles; rules (variants as records, core, the two families, the
variant registry); solve; catalogue (deal ids, daily and winnable deals);
session (the game, typed by its position); store; web (errors, gamestate,
routers, app); the command line and the testing helpers.
"""

__version__ = "0.1.0"
