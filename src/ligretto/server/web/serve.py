"""``ligretto serve``: the server in one process (uvicorn), with its store (an SQLite file, or
a PostgreSQL database by URL); with ``--redis``, one process of a service of several
(``server/cluster/``, docs/deploy.md).  Its port is bound first: a process that cannot
listen exits at once, before it opens its store or joins a service; then its service's
Redis is asked to answer, then its store is opened.  Each that fails ends the process
with one line, ``ligretto serve: ...``, and exit status 1 (docs/deploy.md)."""

from __future__ import annotations

import socket
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

import uvicorn

from ligretto import protocol
from ligretto.server.db.database import DatabaseError, is_postgres, sqlite_file
from ligretto.server.db.migrations import SchemaTooNew
from ligretto.server.ops import logs
from ligretto.server.records.store import Store
from ligretto.server.web.app import create_app
from ligretto.server.web.httpdeadline import deadline_protocol
from ligretto.server.web.settings import Settings
from ligretto.server.web.wsprotocol import WebSocketProtocol

REDIS_SCHEMES = ("redis", "rediss", "unix")
"""The URLs of a Redis (redis-py's ``from_url``)."""


class BadSettings(ValueError):
    """Settings that cannot be a server's, as their text shows (``ligretto serve`` refuses
    them before anything starts: exit code 2)."""


def check(settings: Settings) -> None:
    """Refuse (:class:`BadSettings`) a ``db`` URL that names no database, a ``redis`` URL that
    names no Redis, an ``advertise`` address without ``redis``; passwords never shown."""
    if not is_postgres(settings.db):
        try:
            sqlite_file(settings.db)
        except DatabaseError as error:
            raise BadSettings(f"--db: {error}") from None
    if settings.redis is not None and urlsplit(settings.redis).scheme not in REDIS_SCHEMES:
        shown = logs.without_password(settings.redis)
        raise BadSettings(f"--redis: a Redis is redis://HOST:PORT/N (or rediss://, unix://), not {shown!r}")
    if settings.advertise is not None and settings.redis is None:
        raise BadSettings("--advertise is for a process of a service: give --redis too")


def run(settings: Settings, log_level: str = "info", log_format: str = "text") -> None:
    """Serve until interrupted; the database file is created on first start.  Every log
    line, uvicorn's too, goes to standard error as text or JSON (``server/ops/logs.py``).
    ``settings.db``: an SQLite file or ``sqlite:///FILE``, or ``postgresql://…``."""
    logs.configure(log_level, log_format)
    listener = listening(settings.host, settings.port)
    if settings.redis is not None:
        # Redis's client is loaded by a process of a service only: a lone server starts
        # without its twentieth of a second of imports.
        from ligretto.server.cluster.redisdirectory import NoRedis, RedisDirectory, reach  # noqa: PLC0415

        try:
            reach(settings.redis)
        except NoRedis as error:
            listener.close()
            raise SystemExit(f"ligretto serve: {error}") from None
    try:
        store = Store(settings.db)
    except (DatabaseError, SchemaTooNew) as error:
        listener.close()
        raise SystemExit(f"ligretto serve: {error}") from None
    directory, joined = None, ""
    if settings.redis is not None:
        advertise = settings.advertise or f"http://{settings.host}:{settings.port}"
        directory = RedisDirectory(settings.redis, advertise, start_grace_s=settings.start_grace_s)
        joined = f", process {directory.process} of the service at {logs.without_password(settings.redis)}"
    app = create_app(settings, store, directory)
    print(
        f"ligretto: serving on http://{settings.host}:{settings.port}/ (database {store.db.name}{joined})", flush=True
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=log_level,
        # uvicorn times only idle keep-alive connections: a request that never arrives
        # whole is cut off by the protocol's own deadline (docs/protocol.md, Limits).
        http=deadline_protocol(settings.request_timeout_s, settings.max_header_bytes),
        # uvicorn's, parsing as the app reads, a closed connection read no further than
        # needed, a refusal before the upgrade a finished handshake (server/web/wsprotocol.py)
        ws=WebSocketProtocol,
        timeout_keep_alive=settings.keep_alive_s,
        # The client's own address from a trusted proxy's or relaying process's header.
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        log_config=None,  # logs.configure set up the one handler
        ws_max_size=protocol.MAX_FRAME_BYTES,
        # No permessage-deflate: messages are a few hundred bytes, compressing them cost a
        # seventh of the server's time and its zlib state half of each connection's memory.
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )
    server = Server(config, app)
    # A live stream (the score keeper's events) never ends by itself: it ends when the
    # server is told to stop, so that uvicorn's graceful shutdown does not wait for it.
    app.state.stopping = lambda: server.should_exit
    server.run(sockets=[listener])


def listening(host: str, port: int) -> socket.socket:
    """The server's socket, bound to ``host:port`` (uvicorn listens on it): an address in
    use, or not this machine's, ends the process with a one-line error naming it (exit
    status 1), so that a supervisor sees it fail.  (uvicorn binds only after the app's
    start-up, which opens the store and joins the service, and with Redis its background
    tasks kept a failed process alive.)"""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise SystemExit(f"ligretto serve: cannot listen on {host}:{port}: {error.strerror or error}") from None
    return listener


class Server(uvicorn.Server):
    """uvicorn's server, which tells the service at once when it is told to stop (SIGTERM,
    SIGINT): the process drains (``Directory.drain``) through uvicorn's graceful shutdown,
    which lasts as long as its last requests, instead of taking over the tables of the
    processes stopped with it that finish first."""

    def __init__(self, config: uvicorn.Config, app: Any) -> None:
        super().__init__(config)
        self.app = app

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        lobby = getattr(self.app.state, "lobby", None)  # none before the app's start-up
        if lobby is not None:
            lobby.directory.drain()
        super().handle_exit(sig, frame)
