"""``/healthz`` and ``/metrics``: what an operator's probes and scrapers read."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.server.ops import metrics
from ligretto.server.web import http
from ligretto.server.web.lobby import Lobby, count_players


async def healthz(request: Request) -> Response:
    lobby: Lobby = request.app.state.lobby
    directory = lobby.directory
    return http.answer(protocol.Health("ok", len(lobby.tables), directory.process, directory.address))


async def metrics_endpoint(request: Request) -> Response:
    # Counted when scraped, not after every message: it walks every seat of every table.
    lobby = request.app.state.lobby
    metrics.OPEN_TABLES.set(len(lobby.tables))
    count_players(lobby)
    return Response(metrics.render(), media_type="text/plain; version=0.0.4")
