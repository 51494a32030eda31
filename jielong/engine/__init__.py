"""The engine: cards, deals, rules, solvers, hints and the deal catalogue.

This is the part of jielong that runs in two places: on the server, and in
the player's browser, in a Web Worker under Pyodide (CPython compiled to
WebAssembly).  So it imports the standard library and itself only
(tests/test_layout.py fails on anything else).  The one exception is
``solve.fcsolve``, the adapter of Freecell Solver's binding: the binding is
imported when a solve asks for it, and where it is missing (always in the
browser) the own solver answers.

Floors, bottom first: ``cards``, ``shuffles`` and ``data``; ``rules`` (with
``notation`` and ``textboard``); ``solve``; ``catalogue``.
"""
