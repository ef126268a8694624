"""The ASGI application: ``create_app`` assembles the routes of the HTTP API
(one module per resource: ``tables``, ``tutorial``, ``profiles``, ``history``, ``replays``,
``sheets``, ``tournaments``, ``rules``, ``health``) and ``sockets.py`` (WebSockets) around
one :class:`~ligretto.server.web.lobby.Lobby` (and its tournaments' ``Director``), restores
the store's unfinished tables on start, and serves the static browser client where no
route answers (``clientfiles.py``: an unknown ``/api/`` address, a method a route does
not take and a failed answer are the API's JSON errors; no redirect names the ``Host``
header).

Every message to a client passes the lobby's :class:`~ligretto.server.web.outbox.Outbox`,
which releases it once the store has committed what happened before it.

A player's WebSocket, ``/ws``, goes straight to its endpoint (:class:`App`), not through
Starlette's layers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from ligretto.server.cluster.directory import Directory, Unavailable
from ligretto.server.ops import looplag
from ligretto.server.ops.heap import COLLECTOR
from ligretto.server.records.keeper import Keeper
from ligretto.server.web import http
from ligretto.server.web.clientfiles import ClientFiles, failed, not_routed, refused
from ligretto.server.web.director import Director
from ligretto.server.web.health import database_probe, healthz, metrics_endpoint, readyz
from ligretto.server.web.history import leaderboard, profile_matches, profile_stats
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.matchmaker import Matchmaker
from ligretto.server.web.profiles import claim_profile, claim_qr, create_profile, link_profile, my_profile
from ligretto.server.web.queuesocket import queue_endpoint
from ligretto.server.web.replays import replay_file, replay_round
from ligretto.server.web.rules import emotes, presets, rules_page
from ligretto.server.web.settings import Settings
from ligretto.server.web.sheets import LiveSheets, sheet_routes
from ligretto.server.web.sockets import READ_HEADERS, lobby_endpoint, websocket_endpoint
from ligretto.server.web.tables import get_table, people_now, table_qr, tables
from ligretto.server.web.tournaments import tournament_routes
from ligretto.server.web.tutorial import create_tutorial

__all__ = ["STATIC", "App", "create_app"]

STATIC = Path(__file__).parent.parent / "static"


TABLE_SOCKET = "/ws"
"""A player's WebSocket: one per player, open as long as the player plays."""


class App(Starlette):
    """Starlette, except that a WebSocket to :data:`TABLE_SOCKET` goes straight to its
    endpoint, ``sockets.websocket_endpoint``.  Through Starlette it would pass its error
    middleware, its exception middleware, the router, the route and the WebSocket session,
    ten coroutines suspended (with the closures they make) for as long as the socket is
    open: about 5 KiB a connection (issue 31, docs/benchmarks.md).  None of them does
    anything for this socket: the client's address (from a trusted proxy's header) is
    uvicorn's, outside the app; the endpoint admits it under the connection caps, reads the
    relay's header (the one header its scope keeps: ``sockets.READ_HEADERS``) and counts it
    in ``/metrics`` itself; and an exception it raises goes to uvicorn as before, which logs
    it and closes the socket (the error middleware lets a WebSocket's exceptions through;
    the exception middleware's handlers, of ``HTTPException`` and ``Unavailable``, answer
    with an HTTP response, which the endpoint never leaves to them).  The route stays in the
    router for a server under a ``root_path`` (tests/server/web/test_server_app.py)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == TABLE_SOCKET:
            scope["app"] = self
            # The proxy's headers are read (uvicorn's, before the app): the scope, which lives
            # as long as the socket, keeps only the ones the socket still reads.
            scope["headers"] = [header for header in scope["headers"] if header[0] in READ_HEADERS]
            await websocket_endpoint(WebSocket(scope, receive, send))
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, store: Any | None = None, directory: Directory | None = None) -> App:
    """Assemble the application; ``store`` (SQLite) restores its unfinished tables on start
    (``directory``: which process of a service owns which, ``server/cluster/``; default:
    this one, all of them)."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        lobby = Lobby(settings, store, directory=directory)
        app.state.lobby = lobby
        app.state.keeper = Keeper(None if store is None else store.sheets)
        app.state.director = None if store is None else Director(lobby, store.tournaments)
        app.state.database_probe = database_probe(store)
        lobby.directory.keep_sheets(LiveSheets(app.state.keeper))
        await lobby.directory.start(lobby)
        if app.state.director is not None:
            await app.state.director.resume()  # the tournaments whose tables were just restored
            if lobby.directory.process is not None:  # one of several processes: who directs which
                app.state.director.oversee()
        COLLECTOR.install()
        COLLECTOR.settle()  # what start-up and restoring built lives long: no collection needs to scan it
        app.state.matchmaker = matchmaker = Matchmaker(lobby, lobby.directory.make_queue())
        await matchmaker.queue.start()
        chores = [asyncio.create_task(COLLECTOR.run()), asyncio.create_task(lobby.sweep_forever())]
        chores += [asyncio.create_task(matchmaker.run()), asyncio.create_task(looplag.watch())]
        yield
        for chore in chores:
            chore.cancel()
        await matchmaker.stop()
        if app.state.director is not None:
            await app.state.director.stop()
        lobby.directory.leave()
        COLLECTOR.uninstall()
        for table in lobby.tables.values():
            table.close()
        if app.state.database_probe is not None:
            app.state.database_probe.close()
        if store is not None:
            store.close()
        await lobby.directory.stop()  # committed and closed first: then the tables are handed over

    routes = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics_endpoint),
        Route("/api/tables", tables, methods=["GET", "POST"]),
        Route("/api/tables/{code}", get_table),
        Route("/api/now", people_now),
        Route("/api/tables/{code}/qr.svg", table_qr),
        Route("/api/profiles/claim/qr.svg", claim_qr, methods=["POST"]),
        Route("/api/tutorial", create_tutorial, methods=["POST"]),
        Route("/api/profiles", create_profile, methods=["POST"]),
        Route("/api/profiles/me", my_profile, methods=["GET", "PATCH", "DELETE"]),
        Route("/api/profiles/me/link", link_profile, methods=["POST"]),
        Route("/api/profiles/claim", claim_profile, methods=["POST"]),
        Route("/api/profiles/{id}/matches", profile_matches),
        Route("/api/profiles/{id}/stats", profile_stats),
        Route("/api/leaderboard", leaderboard),
        Route("/api/replays/{token}", replay_round),
        Route("/api/replays/{token}/file", replay_file),
        Route("/api/presets", presets),
        Route("/api/emotes", emotes),
        Route("/api/rules/{lang}", rules_page),
        *sheet_routes(),
        *tournament_routes(),
        WebSocketRoute(TABLE_SOCKET, websocket_endpoint),  # (App takes it first)
        WebSocketRoute("/ws/lobby", lobby_endpoint),
        WebSocketRoute("/ws/queue", queue_endpoint),
    ]
    app = App(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: refused, Unavailable: http.try_again, Exception: failed},
    )
    # The client's files answer what no route does, so that an /api/ address with another
    # method is the route's 405 (a catch-all mount would answer it), and no slash redirect
    # names the Host header (an open redirect).
    files = ClientFiles(directory=STATIC, html=True) if STATIC.is_dir() else None
    app.router.default = not_routed(app.router, files)
    app.router.redirect_slashes = False
    app.state.stopping = lambda: False
    """Whether the server is shutting down (``serve.py`` tells): live streams then end."""
    return app
