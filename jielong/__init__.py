"""jielong: Klondike and FreeCell with exact rules and real solvers.

The house has five rooms, bottom floor first (a module imports only from its
own floor and those below; tests/test_layout.py checks it, docs/design.md
says more): ``engine`` (cards, deals, rules, solvers, hints, the deal
catalogue; the standard library alone, so it runs in the browser too);
``session`` (a game being played); ``store`` (persistence); ``web`` (the
site); ``cli`` (the command line).  ``testing`` holds the helpers of the
tests and benchmarks, which the site never imports.
"""

__version__ = "0.1.0"
