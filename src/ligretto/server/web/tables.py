"""The HTTP API of tables (docs/protocol.md): ``/api/tables`` (create, list), one table's
details and its invite QR code, and who is playing now (``/api/now``).  Bodies in and out are protocol structs."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.server.cluster.directory import Directory
from ligretto.server.table.replayaccess import check_replays
from ligretto.server.table.seats import check_fairness, check_grace, check_ready, check_seats
from ligretto.server.table.table import Table, TableError
from ligretto.server.table.timing import DEFAULT_GRACE_S, READY_S
from ligretto.server.web import http
from ligretto.server.web.lobby import Lobby


async def create_table(request: Request) -> Response:
    """``POST /api/tables``: a new table, with bots already seated if asked (play now)."""
    lobby: Lobby = request.app.state.lobby
    placed = await lobby.directory.place(request)  # made by the least-loaded process of the service
    if placed is not None:
        return placed
    spec = await http.body_of(request, protocol.CreateTable)
    if isinstance(spec, Response):
        return spec
    try:
        rules = RuleSet.preset(spec.preset).replace(**spec.options)
        grace_s = check_grace(DEFAULT_GRACE_S if spec.grace_s is None else spec.grace_s)
        ready_s = check_ready(READY_S if spec.ready_s is None else spec.ready_s)
        fairness = check_fairness(spec.arbitration, spec.window_ms)
        replays = check_replays(spec.replays)
        check_seats(spec.seats)
        bots = _bots_for(spec)
        refusal = http.over_quota(request)
        if refusal is not None:
            return refusal.response()
        # Rated by default: public tables and play now (a table that starts when you join).
        rated = spec.public or spec.start if spec.rated is None else spec.rated
        code = await lobby.reserve_code()
        table = lobby.create(
            spec.seats, rules, spec.public, grace_s, fairness, rated=rated, replays=replays, ready_s=ready_s, code=code
        )
    except RuleError as error:
        return http.error(400, "bad_rules", str(error))
    except TableError as error:
        return http.error(400, error.code, error.message)
    for bot in bots:
        table.seat_bot(bot)
    table.start_on_join = spec.start
    return http.answer(table.summary(), 201)


def _bots_for(spec: protocol.CreateTable) -> list[BotSpec]:
    """The bots a new table's body asks for, checked before the table is made: known
    specifications, a seat left for the person, and someone to play against if it starts
    at once."""
    try:
        bots = [BotSpec.parse(text) for text in spec.bots]
    except BotSpecError as error:
        raise TableError("bad_bot", str(error)) from None
    if len(bots) >= spec.seats:
        raise TableError("bad_bot", f"{spec.seats} seats take at most {spec.seats - 1} bots: one seat is yours")
    if spec.start and not bots:
        raise TableError("too_few", "a table that starts when you join needs at least one bot")
    return bots


async def list_tables(request: Request) -> Response:
    """The lobby list: the public tables, capped (``Lobby.public_listing``)."""
    return http.answer(request.app.state.lobby.public_listing())


async def people_now(request: Request) -> Response:
    """``GET /api/now``: who is playing now in the whole service (``Lobby.people``; the
    lobby's sockets are sent the same in every ``lobby`` message, no polling needed)."""
    return http.answer(request.app.state.lobby.people())


async def tables(request: Request) -> Response:
    """``/api/tables``: ``POST`` creates a table, ``GET`` lists them (one route, so that
    another method is answered 405 with both in ``Allow``)."""
    return await (create_table(request) if request.method == "POST" else list_tables(request))


def _table_of(request: Request) -> Table | None:
    table: Table | None = request.app.state.lobby.tables.get(request.path_params["code"])
    return None if table is None or table.closed else table


NO_TABLE = protocol.HttpError("no_table", "there is no table with that code")


async def _located(request: Request) -> Table | Response:
    """The table of the request's code if this process has it, or takes it over now (a
    stored table nobody holds: ``Directory.forward`` restores it here, as a ``hello``
    does); else the answer of the process that owns it, or ``no_table``."""
    table = _table_of(request)
    if table is not None:
        return table
    directory: Directory = request.app.state.lobby.directory
    forwarded = await directory.forward(request, request.path_params["code"])
    if forwarded is not None:
        return forwarded
    table = _table_of(request)  # taken over here by the lookup
    return http.answer(NO_TABLE, 404) if table is None else table


async def get_table(request: Request) -> Response:
    """One table's summary and who sits where (the invite page shows it before joining):
    public information only, as in the ``table`` message."""
    table = await _located(request)
    return table if isinstance(table, Response) else http.answer(table.details())


def invite_link(request: Request, code: str) -> str:
    """The invite link of a table as the browser client writes it (``lobby.js`` ``inviteLink``)."""
    return f"{str(request.base_url).rstrip('/')}/#/t/{code}"


async def table_qr(request: Request) -> Response:
    """``GET /api/tables/{code}/qr.svg``: the table's invite link as a QR code (segno), so
    a phone at the same table can join by its camera."""
    table = await _located(request)
    return table if isinstance(table, Response) else http.qr_svg(invite_link(request, table.code), "Ligretto invite")
