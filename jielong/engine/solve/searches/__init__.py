"""The solvers' searches on compact states, the modules
``scripts/build_native.py`` compiles (:data:`jielong.engine.native.GROUPS`):
the Klondike solver and its hint over the unseen cards (``klondike_*``), and
the own FreeCell solver (``freecell_*``).  They are used through
:mod:`jielong.engine.solve.klondike` and :mod:`jielong.engine.solve.freecell`,
which export their entry points, the compiled ones when they were built from
these very sources."""
