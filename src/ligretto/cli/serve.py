"""``ligretto serve``: the multiplayer server (``ligretto.server.web.serve``) with its
settings, admission limits included, as options."""

from __future__ import annotations

import argparse

from ligretto.cli.numbers import PORT, decimal, whole
from ligretto.cli.options import Commands, UsageError
from ligretto.protocol.limits import HELLO_S, LOBBY_TABLES, QUEUE_COUNTDOWN_S
from ligretto.server.table.timing import COUNTDOWN_S
from ligretto.server.web import limits

LIMITS: tuple[tuple[str, str, type[int] | type[float], float, str], ...] = (
    ("--hello-timeout", "hello_s", float, HELLO_S, "seconds a connection has to join a table"),
    ("--max-connections", "max_connections", int, limits.MAX_CONNECTIONS, "open WebSockets in all"),
    (
        "--connections-per-address",
        "connections_per_address",
        int,
        limits.CONNECTIONS_PER_ADDRESS,
        "open WebSockets from one address",
    ),
    (
        "--tables-per-minute",
        "tables_per_minute",
        int,
        limits.TABLES_PER_MINUTE,
        "tables one address may create a minute",
    ),
    ("--lobby-tables", "lobby_tables", int, LOBBY_TABLES, "tables in a lobby list at most"),
    (
        "--request-timeout",
        "request_timeout_s",
        float,
        limits.REQUEST_TIMEOUT_S,
        "seconds an HTTP request may take to arrive whole",
    ),
)
"""``ligretto serve``'s admission limits (docs/protocol.md, Limits): option, ``Settings``
field, type, default, help.  0 turns a limit off."""


def add_parser(commands: Commands) -> None:
    serve = commands.add_parser("serve", help="run the multiplayer server (WebSocket, HTTP API, browser client)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=PORT, default=8000, help="port, 1-65535 (default 8000)")
    serve.add_argument(
        "--db",
        default="ligretto.db",
        help="the store: an SQLite file, created on first start (default ligretto.db), "
        "or a PostgreSQL database by URL (postgresql://USER:PASSWORD@HOST:PORT/NAME), which processes may share",
    )
    serve.add_argument(
        "--countdown",
        type=decimal(),
        default=COUNTDOWN_S,
        help=f"seconds of countdown before a round (default {COUNTDOWN_S:g})",
    )
    serve.add_argument(
        "--queue-countdown",
        type=decimal(),
        default=QUEUE_COUNTDOWN_S,
        help="seconds a table of the matchmaking queue waits for people at most before bots fill it"
        f" (default {QUEUE_COUNTDOWN_S:g})",
    )
    serve.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    serve.add_argument(
        "--redis",
        metavar="URL",
        help="redis://HOST:PORT/N: one of several processes serving as one service (docs/deploy.md)",
    )
    serve.add_argument(
        "--advertise",
        metavar="URL",
        help="with --redis: the address the other processes reach this one at (default http://HOST:PORT)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        default="127.0.0.1",
        help="comma-separated addresses (or *) of the proxies and fellow processes whose X-Forwarded-For"
        " is believed: the per-address limits then count the client's own address (default 127.0.0.1)",
    )
    for option, field, kind, default, text in LIMITS:
        serve.add_argument(
            option,
            dest=field,
            type=whole() if kind is int else decimal(),
            default=default,
            help=f"{text} (default {default:g}; 0: no limit)",
        )
    serve.add_argument(
        "--log-format", default="text", choices=("text", "json"), help="json: one JSON object per line (default text)"
    )


def run(args: argparse.Namespace) -> int:
    from ligretto.server.web import serve
    from ligretto.server.web.settings import Settings

    given = {field: getattr(args, field) for _, field, _, _, _ in LIMITS}
    settings = Settings(
        args.host,
        args.port,
        args.db,
        countdown_s=args.countdown,
        queue_countdown_s=args.queue_countdown,
        redis=args.redis,
        advertise=args.advertise,
        forwarded_allow_ips=args.forwarded_allow_ips,
        **given,
    )
    # what the text alone shows wrong is refused before anything starts (exit code 2); a
    # port in use, a database or a Redis that does not answer ends serve.run (exit code 1)
    try:
        serve.check(settings)
    except serve.BadSettings as error:
        raise UsageError(str(error)) from None
    serve.run(settings, args.log_level, args.log_format)
    return 0
