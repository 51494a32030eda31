"""Child processes that end with their parent, however the parent ends.

A server process killed outright (SIGKILL, the OOM killer) runs no clean-up:
without this its worker processes would go on serving the port and a restart
would find the address in use.  On Linux the kernel sends each child a signal
when its parent dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere the hint
workers' own watch of their parent remains (:mod:`jielong.web.services.hintpool`).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM, parent: int | None = None) -> bool:
    """Ask for ``sig`` when the parent process ends (Linux); True if asked.
    ``parent``: the pid expected as parent; if it is already gone (we were
    re-parented before asking), the signal is sent at once."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), sig)
    return True


def server_worker_started() -> None:
    """In a server worker process that ``jielong serve --workers N`` started:
    end (SIGTERM: a graceful stop) when the supervising process dies.  The
    single server process of ``--workers 1`` is left alone: its parent is the
    shell or service manager, whose exit must not stop it."""
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid is not None:
        die_with_parent(signal.SIGTERM, parent.pid)
