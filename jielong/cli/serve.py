"""``jielong serve``: the site on http://127.0.0.1:8000."""

from __future__ import annotations

import argparse
import os
import sys

from jielong.cli.doctor import startup_notes


def cmd_serve(args: argparse.Namespace) -> int:
    # The web stack loads here, not with this module: every server worker
    # process starts by importing the command line (its __main__) and must
    # answer uvicorn's health check within seconds; FastAPI and SQLAlchemy
    # take that long to import on a busy machine.
    import uvicorn

    from jielong.store import Store
    from jielong.web.app import Settings
    from jielong.web.http.security import player_key

    settings = Settings(
        database=args.database,
        hint_workers=args.hint_workers,
        hint_queue=args.hint_queue,
        hint_seconds=args.hint_seconds,
        docs=args.docs,
        expire_days=args.expire_days,
    )
    # create the schema and the player key once here, not in each worker
    # process at the same time
    store = Store(settings.database)
    player_key(store.engine)
    store.close()
    for note in startup_notes():
        print(f"jielong: {note}", file=sys.stderr)
    # worker processes build the app from the environment
    os.environ.update(settings.to_env())
    os.environ["JIELONG_READ_SECONDS"] = str(args.read_timeout)
    os.environ["JIELONG_MAX_CONNECTIONS"] = str(args.max_connections)
    os.environ["JIELONG_MAX_ADDRESS_CONNECTIONS"] = str(args.max_address_connections)
    from jielong.web.http.connections import MAX_HEAD_BYTES
    from jielong.web.http.telemetry import log_config, share_metrics

    share_metrics(args.workers)
    options = dict(
        factory=True,
        # httptools with a deadline for each request, a bound on its head and
        # caps on open connections per process and per address
        http="jielong.web.http.connections:GuardedHttpToolsProtocol",
        # the same bound should h11 ever be chosen
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        host=args.host,
        port=args.port,
        workers=args.workers,
        # jielong.access logs each request as one JSON line, game ids hashed
        access_log=False,
        log_config=log_config(args.access_log),
        # X-Forwarded-Proto/-For are believed from these addresses only: the
        # player cookie is marked Secure when the proxy says HTTPS
        proxy_headers=True,
        forwarded_allow_ips=args.forwarded_allow_ips,
        log_level="info",
        # a stop (or the supervisor's death) waits this long for answers in flight
        timeout_graceful_shutdown=5,
    )
    app = "jielong.web.app:create_app_from_env"
    if args.workers > 1:
        from jielong.web.http.spread import run_workers

        run_workers(uvicorn.Config(app, **options))  # each worker on a socket of its own
    else:
        uvicorn.run(app, **options)
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError("must be between 0 and 600 seconds")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("serve", help="serve the site and its JSON API")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--database",
        default=None,
        metavar="URL",
        help="sqlite:///path or postgresql://user@host/db "
        "(default: SQLite in the user's data directory)",
    )
    p.add_argument("--workers", type=_positive, default=1, help="server processes (default 1)")
    p.add_argument(
        "--hint-workers", type=_positive, default=2, help="hint processes per server process"
    )
    p.add_argument(
        "--hint-queue", type=int, default=8, help="hints waiting for a worker before 503"
    )
    p.add_argument(
        "--hint-seconds",
        type=_seconds,
        default=2.0,
        help="hint deadline (default 2 s; Klondike: 1 s at most)",
    )
    p.add_argument(
        "--access-log",
        action="store_true",
        help="log every request on standard output, one JSON line each (game ids hashed)",
    )
    p.add_argument(
        "--forwarded-allow-ips",
        default="127.0.0.1",
        metavar="ADDRESSES",
        help="proxies whose X-Forwarded-For/-Proto headers are trusted, comma-separated "
        "(default 127.0.0.1; '*' trusts every client, only behind a proxy)",
    )
    p.add_argument(
        "--read-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="time a client has to send a whole request (default 10 s)",
    )
    p.add_argument(
        "--max-connections",
        type=_positive,
        default=2000,
        help="open connections per server process before new ones are closed (default 2000)",
    )
    p.add_argument(
        "--max-address-connections",
        type=_positive,
        default=64,
        help="open connections per client address before new ones are closed (default 64; "
        "a trusted proxy's are counted per process only)",
    )
    p.add_argument(
        "--expire-days",
        type=float,
        default=30.0,
        metavar="DAYS",
        help="delete unfinished games untouched this long; statistics stay (default 30, 0: never)",
    )
    p.add_argument(
        "--docs",
        action="store_true",
        help="serve the interactive API docs at /docs (their scripts come from a CDN)",
    )
    p.set_defaults(func=cmd_serve)
