"""Helpers for the test suite and the benchmarks: the app served for real (in
a thread or as a ``jielong serve`` process), a throw-away PostgreSQL cluster
and the Chromium that browser checks drive. Nothing in the site imports them."""
