"""The HTTP API (docs/protocol.md): tables (create, list, one table's details, its
invite QR code), the tutorial, the engine's rule options and presets, the emotes, the rule
book as HTML, ``/healthz`` and ``/metrics``.  Bodies in and out are protocol structs."""

from __future__ import annotations

import io
import re
import time
from typing import TypeVar

import msgspec
import segno
from markdown_it import MarkdownIt
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response

from ligretto import protocol, rulebook
from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.protocol import ProtocolError
from ligretto.server import metrics
from ligretto.server.admission import Refusal, address_of
from ligretto.server.lobby import Lobby, count_players
from ligretto.server.replayaccess import check_replays
from ligretto.server.seats import check_fairness, check_grace, check_seats
from ligretto.server.table import Table, TableError
from ligretto.server.timing import DEFAULT_GRACE_S
from ligretto.server.tutorial import LEARNER, SCRIPT, TUTOR

_T = TypeVar("_T")


async def _body(request: Request, kind: type[_T]) -> _T | Response:
    """An HTTP request's JSON body as ``kind`` (a protocol struct; empty means ``{}``), or
    the error answer: too large, not JSON at all (``malformed``, as on the WebSocket) or
    JSON of the wrong shape (``invalid``)."""
    try:
        body = await request.body()
    except ClientDisconnect:  # gone, or cut off by the request deadline: nobody to answer
        return Response(status_code=400)
    if len(body) > protocol.MAX_MESSAGE_BYTES:
        return _error(413, "too_large", "request too large")
    try:
        return msgspec.json.decode(body or b"{}", type=kind)
    except msgspec.ValidationError as error:  # a DecodeError too: first
        return _error(400, "invalid", str(error))
    except msgspec.DecodeError as error:
        return _error(400, "malformed", f"malformed JSON: {error}")


def _answer(body: msgspec.Struct, status_code: int = 200) -> Response:
    """A typed body of the HTTP API (``protocol.http``) as JSON; an error answer counted
    in ``/metrics`` by its code."""
    if isinstance(body, protocol.HttpError):
        metrics.BAD_REQUESTS.labels(body.error).inc()
    return Response(protocol.encode(body), status_code=status_code, media_type="application/json")


def _error(status_code: int, code: str, message: str) -> Response:
    return _answer(protocol.HttpError(code, message), status_code)


def _over_quota(request: Request) -> Refusal | None:
    """Count one more table from the request's address (``Settings.tables_per_minute``);
    the 429 answer if it is one too many."""
    lobby: Lobby = request.app.state.lobby
    refusal = lobby.quota.allow(address_of(request.client), time.monotonic())
    if refusal is not None:
        metrics.REFUSED.labels(refusal.code).inc()
    return refusal


async def create_table(request: Request) -> Response:
    """``POST /api/tables``: a new table, with bots already seated if asked (play now)."""
    lobby: Lobby = request.app.state.lobby
    placed = await lobby.directory.place(request)  # made by the least-loaded process of the service
    if placed is not None:
        return placed
    spec = await _body(request, protocol.CreateTable)
    if isinstance(spec, Response):
        return spec
    try:
        rules = RuleSet.preset(spec.preset).replace(**spec.options)
        grace_s = check_grace(DEFAULT_GRACE_S if spec.grace_s is None else spec.grace_s)
        fairness = check_fairness(spec.arbitration, spec.window_ms)
        replays = check_replays(spec.replays)
        check_seats(spec.seats)
        bots = _bots_for(spec)
        refusal = _over_quota(request)
        if refusal is not None:
            return refusal.response()
        # Rated by default: public tables and play now (a table that starts when you join).
        rated = spec.public or spec.start if spec.rated is None else spec.rated
        code = await lobby.reserve_code()
        table = lobby.create(spec.seats, rules, spec.public, grace_s, fairness, rated=rated, replays=replays, code=code)
    except RuleError as error:
        return _error(400, "bad_rules", str(error))
    except TableError as error:
        return _error(400, error.code, error.message)
    for bot in bots:
        table.seat_bot(bot)
    table.start_on_join = spec.start
    return _answer(table.summary(), 201)


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


async def create_tutorial(request: Request) -> Response:
    """A tutorial table for one learner: its code, the learner's seat token and the script."""
    lobby: Lobby = request.app.state.lobby
    spec = await _body(request, protocol.CreateTutorial)
    if isinstance(spec, Response):
        return spec
    try:
        name = protocol.check_name(spec.name)
    except ProtocolError as error:
        return _error(400, error.code, error.message)
    refusal = _over_quota(request)
    if refusal is not None:
        return refusal.response()
    table = lobby.create_tutorial(name, await lobby.reserve_code(stored=False))
    return _answer(protocol.tutorial_created(table.code, table.token, LEARNER, TUTOR, SCRIPT), 201)


async def list_tables(request: Request) -> Response:
    """The lobby list: the public tables, capped (``Lobby.public_listing``)."""
    return _answer(request.app.state.lobby.public_listing())


def _table_of(request: Request) -> Table | None:
    table: Table | None = request.app.state.lobby.tables.get(request.path_params["code"])
    return None if table is None or table.closed else table


NO_TABLE = protocol.HttpError("no_table", "there is no table with that code")


async def _elsewhere(request: Request) -> Response:
    """The answer of the process that owns the table, or ``no_table``."""
    forwarded = await request.app.state.lobby.directory.forward(request, request.path_params["code"])
    return _answer(NO_TABLE, 404) if forwarded is None else forwarded


async def get_table(request: Request) -> Response:
    """One table's summary and who sits where (the invite page shows it before joining):
    public information only, as in the ``table`` message."""
    table = _table_of(request)
    if table is None:
        return await _elsewhere(request)
    return _answer(table.details())


def invite_link(request: Request, code: str) -> str:
    """The invite link of a table as the browser client writes it (``lobby.js`` ``inviteLink``)."""
    return f"{str(request.base_url).rstrip('/')}/#/t/{code}"


QR_SCALE = 8
"""Pixels per module of the QR code's SVG (its own size; the page scales it)."""
QR_BORDER = 4
"""The quiet zone around the code, in modules (the QR standard asks for 4)."""


def qr_code(link: str) -> segno.QRCode:
    """The QR code of an invite link: error correction M (15 %: a phone still reads it off a
    scratched or glaring screen), the smallest version that holds it."""
    return segno.make_qr(link, error="m", boost_error=False)


def qr_svg(link: str, title: str) -> Response:
    """A link as the SVG of its QR code (white background, the standard quiet zone)."""
    buffer = io.BytesIO()
    qr_code(link).save(buffer, kind="svg", scale=QR_SCALE, border=QR_BORDER, xmldecl=False, title=title, light="#fff")
    return Response(buffer.getvalue(), media_type="image/svg+xml")


async def table_qr(request: Request) -> Response:
    """``GET /api/tables/{code}/qr.svg``: the table's invite link as a QR code (segno), so
    a phone at the same table can join by its camera."""
    table = _table_of(request)
    if table is None:
        return await _elsewhere(request)
    return qr_svg(invite_link(request, table.code), "Ligretto invite")


CLAIM_CODE = re.compile(r"[A-Za-z0-9_-]{4,32}")
"""What a one-time code of a profile may look like (``server/profiles.py`` makes url-safe ones)."""


def claim_link(request: Request, code: str) -> str:
    """The link that puts a profile on another device, as the browser writes it
    (``profile.js`` ``claimLink``)."""
    return f"{str(request.base_url).rstrip('/')}/#/claim/{code}"


async def claim_qr(request: Request) -> Response:
    """``POST /api/profiles/claim/qr.svg`` {code}: the claim link of a one-time code as a QR
    code, for the other device's camera.  The code goes in the body, so no address (and no
    access log) carries it; the answer encodes the link only (whether the code is good is
    for the claim to say)."""
    spec = await _body(request, protocol.ClaimProfile)
    if isinstance(spec, Response):
        return spec
    if not CLAIM_CODE.fullmatch(spec.code):
        return _error(400, "bad_code", "a one-time code is 4 to 32 letters, digits, - or _")
    return qr_svg(claim_link(request, spec.code), "Ligretto profile link")


RULE_OPTIONS_BODY = protocol.encode(protocol.presets_body())
"""The body of ``GET /api/presets``, encoded once: the rules never change while the server runs."""


EMOTES_BODY = protocol.encode(protocol.Emotes(list(protocol.EMOTES)))
"""The body of ``GET /api/emotes``: the reactions a player may send, encoded once."""


async def emotes(request: Request) -> Response:
    """The fixed list of reactions (``protocol.EMOTES``), so no client keeps a copy of it."""
    return Response(EMOTES_BODY, media_type="application/json")


async def presets(request: Request) -> Response:
    """The rule options and presets of the engine, so no client keeps a copy of them."""
    return Response(RULE_OPTIONS_BODY, media_type="application/json")


async def rules_page(request: Request) -> Response:
    """The rule book in one language as HTML (the browser client's rules page)."""
    lang = request.path_params["lang"]
    if lang not in rulebook.LANGUAGES:
        return _error(404, "no_language", f"no rules in language {lang!r}")
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(rulebook.text(lang))
    return HTMLResponse(html)


async def healthz(request: Request) -> Response:
    lobby: Lobby = request.app.state.lobby
    directory = lobby.directory
    return _answer(protocol.Health("ok", len(lobby.tables), directory.process, directory.address))


async def metrics_endpoint(request: Request) -> Response:
    # Counted when scraped, not after every message: it walks every seat of every table.
    lobby = request.app.state.lobby
    metrics.OPEN_TABLES.set(len(lobby.tables))
    count_players(lobby)
    return Response(metrics.render(), media_type="text/plain; version=0.0.4")
