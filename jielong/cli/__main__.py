"""``python -m jielong.cli``: the ``jielong`` command."""

from jielong.cli import main

raise SystemExit(main())
