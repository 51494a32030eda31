"""A game as the player sees it, wherever the engine runs: its JSON, a hint
and an analysis as answers, a game played on the device and replayed by the
server, and the entry point of the browser's engine worker.

It imports the standard library, the engine and the session only, so the
browser's worker runs it unchanged.
"""
