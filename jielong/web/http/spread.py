"""Several server processes, each listening on a socket of its own.

uvicorn's process manager binds one socket and every worker process accepts
from it; asyncio accepts every pending connection (up to the backlog) each
time its process wakes, so a burst of connections all went to whichever
worker woke first (50 keep-alive connections opened at once went 50 to 0 or
39 to 11 over two workers), and a keep-alive connection stays where it was
accepted.  Here the manager's socket is bound with ``SO_REUSEPORT`` and never
listens; each worker binds the same address with ``SO_REUSEPORT`` and listens
on its own socket, and the kernel spreads new connections over the workers'
sockets (by a hash of the connection's addresses).  Linux only, as
``SO_REUSEPORT`` with that spread is.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys

from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.supervisors import multiprocess

logger = logging.getLogger("uvicorn.error")


def _reuse_port_socket(family: socket.AddressFamily, address: tuple[str, int]) -> socket.socket:
    # IPPROTO_TCP named, not left 0: asyncio sets TCP_NODELAY only on
    # connections accepted from a socket that says it is TCP
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    return sock


class OwnSocketWorker(multiprocess.Process):
    """A worker process that listens on its own socket bound to the address
    of the one it is given."""

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover
        own = []
        for shared in sockets or []:
            own.append(_reuse_port_socket(shared.family, shared.getsockname()[:2]))
            shared.close()
        super().target(own)


def run_workers(config: Config) -> None:
    """What ``uvicorn.run`` does for ``config.workers`` > 1, the workers on
    sockets of their own."""
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    try:
        # bound, not listening: it holds the address and gets no connection
        sock = _reuse_port_socket(family, (config.host, config.port))
    except OSError as exc:
        logger.error(exc)
        sys.exit(STARTUP_FAILURE)
    host = f"[{config.host}]" if family == socket.AF_INET6 else config.host
    logger.info(
        "Uvicorn running on http://%s:%d (Press CTRL+C to quit)", host, sock.getsockname()[1]
    )
    sock.set_inheritable(True)
    # the manager makes its workers by this name (uvicorn pinned: see pyproject)
    multiprocess.Process = OwnSocketWorker  # type: ignore[misc]
    with contextlib.suppress(KeyboardInterrupt):
        multiprocess.Multiprocess(config, sockets=[sock]).run()
