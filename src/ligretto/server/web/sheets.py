"""The score keeper's HTTP API (docs/protocol.md, "Score keeper"): a sheet made, read,
its rounds entered and corrected, the last change undone, a player's own profile linked to
their seat or unlinked (with its secret), its CSV, its share link's QR code, and its live
events (Server-Sent Events: ``event: sheet`` with the whole sheet at
once and after every change).  Bodies in and out are protocol structs; every score is the
engine's, computed here, never a client's.

Every change is decided on the sheet as the store has it, under its lock
(``Keeper.change``), so any process of a service may take any request; its watchers here
are told at once, the other processes' through the directory (``Directory.sheet_changed``,
``cluster/sheetfeed.py``), whose messages reach this process's watchers by
:class:`LiveSheets`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ligretto import protocol
from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS, Box, Symbol
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.engine.tally import BadEntry, standing
from ligretto.protocol import ProtocolError
from ligretto.server.records.keeper import (
    MAX_ROUNDS,
    Answer,
    Change,
    Conflict,
    Keeper,
    KeptPlayer,
    NoRound,
    SeatRefusal,
    Sheet,
)
from ligretto.server.records.keepercsv import sheet_csv
from ligretto.server.records.profiles import Profile, ProfileError
from ligretto.server.web import http
from ligretto.server.web.profiles import secret_of

__all__ = ["LiveSheets", "sheet_body", "sheet_routes"]

log = logging.getLogger("ligretto.keeper")

NO_SHEET = protocol.HttpError("no_sheet", "there is no score sheet with that code")
COLOURS = tuple(box.name.lower() for box in Box)
SYMBOLS = tuple(symbol.name.lower() for symbol in Symbol)
WATCHERS_PER_SHEET = 64
"""Live streams of one sheet at most (a table has 12 players)."""
POLL_S = 1.0
"""How often a live stream looks whether the server is stopping."""
KEEPALIVE_S = 15.0
"""A comment on a quiet live stream this often, so proxies keep it open."""
SEAT_STATUS = {"no_seat": 404, "seat_taken": 409, "already_seated": 409, "not_your_profile": 403}
"""The HTTP status of each :class:`SeatRefusal`."""


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _keeper(request: Request) -> Keeper:
    keeper: Keeper = request.app.state.keeper
    return keeper


def _sheet_of(request: Request) -> Sheet | None:
    return _keeper(request).get(request.path_params["code"])


def _entry_change(change: Change) -> protocol.SheetChange:
    return protocol.SheetChange(
        n=change.n,
        round=change.round,
        by=change.by,
        at=change.at,
        kind=change.kind,
        before=None if change.before is None else protocol.entry_of(change.before),
        after=None if change.after is None else protocol.entry_of(change.after),
        undoes=change.undoes,
        seat=change.seat,
        profile=change.profile,
    )


def sheet_body(sheet: Sheet) -> protocol.SheetBody:
    """The sheet as the API sends it: scores, end and places by the engine."""
    scores = sheet.score_sheet()
    now = standing(sheet.rules, scores)
    return protocol.SheetBody(
        code=sheet.code,
        created=sheet.created,
        rules=sheet.rules.to_dict(),
        players=[
            protocol.SheetPlayer(
                name=p.name, back=protocol.SheetBack(colour=p.colour, symbol=p.symbol), profile=p.profile
            )
            for p in sheet.players
        ],
        rounds=[
            protocol.KeptRound(n=n, entry=protocol.entry_of(tally), version=version)
            for n, (tally, version) in enumerate(zip(sheet.rounds, sheet.versions, strict=True), start=1)
        ],
        sheet=protocol.sheet_message(scores),
        over=now.over,
        winners=list(now.winners),
        places=list(now.places),
        version=sheet.version,
        changes=[_entry_change(change) for change in sheet.changes],
        creator=sheet.creator,
    )


def _players(request: Request, spec: protocol.CreateSheet) -> tuple[KeptPlayer, ...]:
    """The players of a new sheet, checked, the creator's profile on the ``me`` player
    (which makes it the sheet's creator, ``Sheet.creator``).  A profile is on a sheet only by its owner's consent: the
    creator's own, proven by its secret, is the only one a new sheet may name (a match
    filed in a profile's history is a write to it); the others link their own later
    (:func:`seat_profile`)."""
    count = len(spec.players)
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise Refused(400, "bad_players", f"a sheet has {MIN_PLAYERS}-{MAX_PLAYERS} players, not {count}")
    players = [_player(player) for player in spec.players]
    if spec.me is not None and not 0 <= spec.me < count:
        raise Refused(400, "bad_players", f"me is a player's index, 0-{count - 1}, not {spec.me}")
    named = [player for player in players if player.profile is not None]
    mine = None
    if spec.me is not None or named:
        mine = _owner(request).id
        for player in named:
            if player.profile != mine:
                raise Refused(
                    403,
                    "not_your_profile",
                    f"{player.name}: a sheet names no profile but its creator's own (its owner links it "
                    "with me and its secret)",
                )
        if spec.me is not None:
            me = players[spec.me]
            players[spec.me] = KeptPlayer(me.name, me.colour, me.symbol, mine)
    _distinct(players)
    return tuple(players)


def _player(player: protocol.SheetPlayer) -> KeptPlayer:
    """One player of a new sheet, its name and back checked."""
    try:
        name = protocol.check_name(player.name)
    except ProtocolError as error:
        raise Refused(400, error.code, error.message) from None
    back = player.back
    if back.colour not in COLOURS or back.symbol not in SYMBOLS:
        raise Refused(
            400,
            "bad_back",
            f"{name}: a back is a box colour ({', '.join(COLOURS)}) and a symbol ({', '.join(SYMBOLS)}), "
            f"not {back.colour!r} {back.symbol!r}",
        )
    return KeptPlayer(name, back.colour, back.symbol, player.profile)


def _owner(request: Request) -> Profile:
    """The profile whose secret the request carries (``Authorization: Bearer``)."""
    store = request.app.state.lobby.store
    if store is None:
        raise Refused(400, "no_profile", "this server keeps no profiles (it runs without a database)")
    try:
        profile: Profile = store.profiles.by_secret(secret_of(request))
    except ProfileError as error:
        raise Refused(error.status, error.code, error.message) from None
    return profile


def _distinct(players: list[KeptPlayer]) -> None:
    """No two players of a sheet share a name, a back or a profile."""
    for what, key in (
        ("name", lambda p: p.name.casefold()),
        ("back", lambda p: (p.colour, p.symbol)),
        ("profile", lambda p: p.profile),
    ):
        seen: dict[object, str] = {}
        for player in players:
            value = key(player)
            if value is None:
                continue
            if value in seen:
                raise Refused(400, "bad_players", f"{seen[value]} and {player.name} have the same {what}")
            seen[value] = player.name


async def create_sheet(request: Request) -> Response:
    """``POST /api/sheets``: a new sheet (201)."""
    spec = await http.body_of(request, protocol.CreateSheet)
    if isinstance(spec, Response):
        return spec
    try:
        rules = RuleSet.preset(spec.preset).replace(**spec.options)
        players = _players(request, spec)
    except RuleError as error:
        return http.error(400, "bad_rules", str(error))
    except Refused as refused:
        return http.error(refused.status, refused.code, refused.message)
    refusal = http.over_quota(request)
    if refusal is not None:
        return refusal.response()
    keeper = _keeper(request)
    try:
        sheet = keeper.create(rules, players)
    except keeper.errors:
        return http.error(503, "store_error", "the sheet could not be written: try again")
    return http.answer(sheet_body(sheet), 201)


async def get_sheet(request: Request) -> Response:
    """``GET /api/sheets/{code}``."""
    sheet = _sheet_of(request)
    return http.answer(NO_SHEET, 404) if sheet is None else http.answer(sheet_body(sheet))


def _by(name: str) -> str:
    try:
        return protocol.check_name(name)
    except ProtocolError as error:
        raise Refused(400, error.code, f"by: {error.message}") from None


@dataclass(frozen=True, slots=True)
class AsItIs:
    """Nothing to change (a change id applied already, a link made already): the sheet
    as it is now is the answer."""


def _made(
    request: Request, code: str, decide: Callable[[Sheet], Change | Answer]
) -> tuple[Sheet, Change | Answer] | Response:
    """Decide and make a change of the sheet ``code`` (``Keeper.change``); a change made is
    told to every watcher, here and in the other processes.  A response: it could not be."""
    keeper = _keeper(request)
    try:
        done = keeper.change(code, decide)
    except keeper.errors:
        return http.error(503, "store_error", "the change could not be written: nothing changed, try again")
    if done is None:
        return http.answer(NO_SHEET, 404)
    sheet, answer = done
    if isinstance(answer, Change):
        encoded = protocol.encode(sheet_body(sheet))
        keeper.tell(code, sheet.version, encoded)
        request.app.state.lobby.directory.sheet_changed(code, sheet.version, encoded)
    return done


def _conflict(text: str, spec: protocol.PutRound, result: Conflict) -> Response:
    """The 409 of an entry whose base is not the round's version: theirs and yours."""
    theirs = None if result.theirs is None else protocol.entry_of(result.theirs)
    if result.version is None:
        message = f"round {text} is not on the sheet any more (undone): send it again as a new round"
    else:
        since = "meanwhile" if spec.base is None else f"since version {spec.base}"
        message = (
            f"round {text} was written by someone else {since}: keep theirs, or send yours again "
            f"with base {result.version}"
        )
    conflict = protocol.SheetConflict(message=message, theirs=theirs, yours=spec.entry, version=result.version)
    return http.answer(conflict, 409)


async def put_round(request: Request) -> Response:
    """``PUT /api/sheets/{code}/rounds/{n}``: a new round (base ``null``) or a correction."""
    if _sheet_of(request) is None:
        return http.answer(NO_SHEET, 404)
    text = request.path_params["n"]
    spec = await http.body_of(request, protocol.PutRound)
    if isinstance(spec, Response):
        return spec
    number = http.whole_number(text, 1, MAX_ROUNDS + 1)  # one past a full sheet: the keeper says why not
    if number is None:
        return http.error(404, "no_round", f"round {text[:20]!r} is not a round of this sheet")
    try:
        by = _by(spec.by)
    except Refused as refused:
        return http.error(refused.status, refused.code, refused.message)
    tally, now = protocol.tally_of(spec.entry), _keeper(request).clock()

    def decide(sheet: Sheet) -> Change | Conflict | BadEntry | NoRound | AsItIs:
        if spec.id in sheet.ids:
            return AsItIs()  # a retry of a change already made
        return sheet.entry(number, tally, spec.base, by=by, client_id=spec.id, now=now)

    done = _made(request, request.path_params["code"], decide)
    if isinstance(done, Response):
        return done
    sheet, result = done
    if isinstance(result, NoRound):
        return http.error(404, "no_round", result.message)
    if isinstance(result, BadEntry):
        return http.error(400, "bad_entry", result.message)
    if isinstance(result, Conflict):
        return _conflict(text, spec, result)
    return http.answer(sheet_body(sheet))


async def undo(request: Request) -> Response:
    """``POST /api/sheets/{code}/undo``: the latest change not yet undone, undone."""
    if _sheet_of(request) is None:
        return http.answer(NO_SHEET, 404)
    spec = await http.body_of(request, protocol.UndoChange)
    if isinstance(spec, Response):
        return spec
    try:
        by = _by(spec.by)
    except Refused as refused:
        return http.error(refused.status, refused.code, refused.message)
    now = _keeper(request).clock()

    def decide(sheet: Sheet) -> Change | AsItIs:
        if spec.id in sheet.ids:
            return AsItIs()
        target = sheet.last_undoable()
        if target is None:
            raise Refused(400, "nothing_to_undo", "there is no change left to undo")
        if spec.change is not None and spec.change != target.n:
            raise Refused(409, "stale_undo", f"the last change is {target.n} now, not {spec.change}: nothing undone")
        change = sheet.undo(by, spec.id, now)
        assert change is not None
        return change

    try:
        done = _made(request, request.path_params["code"], decide)
    except Refused as refused:  # nothing written: the transaction rolled back
        return http.error(refused.status, refused.code, refused.message)
    return done if isinstance(done, Response) else http.answer(sheet_body(done[0]))


async def seat_profile(request: Request) -> Response:
    """``PUT /api/sheets/{code}/players/{seat}/profile``: the profile of the request's
    secret linked to the seat (its owner's claim: the finished match goes into its
    history, at once if it is over already); ``DELETE``: unlinked, by its owner (or the
    sheet's creator until the match is over).  Not a scoring change: undo passes it by."""
    if _sheet_of(request) is None:
        return http.answer(NO_SHEET, 404)
    text = request.path_params["seat"]
    seat = http.whole_number(text, 0, MAX_PLAYERS - 1)
    if seat is None:
        return http.error(404, "no_seat", f"seat {text[:20]!r} is not a seat of this sheet")
    try:
        owner = _owner(request)
    except Refused as refused:
        return http.error(refused.status, refused.code, refused.message)
    now, linking = _keeper(request).clock(), request.method == "PUT"

    def decide(sheet: Sheet) -> Change | SeatRefusal | AsItIs:
        seats = sheet.link if linking else sheet.unlink
        change = seats(seat, owner.id, by=owner.name, now=now)
        return AsItIs() if change is None else change

    done = _made(request, request.path_params["code"], decide)
    if isinstance(done, Response):
        return done
    sheet, result = done
    if isinstance(result, SeatRefusal):
        return http.error(SEAT_STATUS[result.code], result.code, result.message)
    return http.answer(sheet_body(sheet))


async def sheet_csv_file(request: Request) -> Response:
    """``GET /api/sheets/{code}/csv``: every round, one row per player."""
    sheet = _sheet_of(request)
    if sheet is None:
        return http.answer(NO_SHEET, 404)
    text = sheet_csv(sheet.rules, sheet.names, sheet.rounds)
    headers = {"Content-Disposition": f'attachment; filename="ligretto-{sheet.code}.csv"'}
    return Response(text, media_type="text/csv", headers=headers)


def keep_link(request: Request, code: str) -> str:
    """The share link of a sheet as the browser writes it (``#/keep/CODE``)."""
    return f"{str(request.base_url).rstrip('/')}/#/keep/{code}"


async def sheet_qr(request: Request) -> Response:
    """``GET /api/sheets/{code}/qr.svg``: the share link as a QR code."""
    sheet = _sheet_of(request)
    if sheet is None:
        return http.answer(NO_SHEET, 404)
    return http.qr_svg(keep_link(request, sheet.code), "Ligretto score sheet")


async def sheet_events(request: Request) -> Response:
    """``GET /api/sheets/{code}/events``: the sheet at once, then after every change."""
    sheet = _sheet_of(request)
    if sheet is None:
        return http.answer(NO_SHEET, 404)
    keeper = _keeper(request)
    if len(keeper.watchers.get(sheet.code, ())) >= WATCHERS_PER_SHEET:
        return http.error(429, "too_many_watchers", f"a sheet has at most {WATCHERS_PER_SHEET} live streams")
    stopping: Callable[[], bool] = getattr(request.app.state, "stopping", lambda: False)
    code = sheet.code
    watcher = keeper.watch(code)  # the sheet as stored just now: any later change is told after it
    watcher.tell(sheet.version, protocol.encode(sheet_body(sheet)))

    async def stream() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 1000\n\n"
            quiet = 0.0
            while not stopping():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(watcher.ready.wait(), POLL_S)
                body = watcher.take()
                if body is not None:
                    quiet = 0.0
                    yield b"event: sheet\ndata: " + body + b"\n\n"
                    continue
                quiet += POLL_S
                if quiet >= KEEPALIVE_S:
                    quiet = 0.0
                    yield b": keep-alive\n\n"
        finally:
            keeper.unwatch(code, watcher)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


class LiveSheets:
    """This process's live streams as the other processes' changes reach them
    (``Directory.keep_sheets``)."""

    def __init__(self, keeper: Keeper) -> None:
        self.keeper = keeper

    def hear(self, code: str, version: int, body: bytes) -> None:
        self.keeper.tell(code, version, body)

    def resync(self) -> None:
        """Every watched sheet as stored now, to its watchers (those that have it already are not told)."""
        for code in list(self.keeper.watchers):
            try:
                sheet = self.keeper.get(code)
            except self.keeper.errors as error:
                log.warning("could not read sheet %s again (%s)", code, error)
                continue
            if sheet is not None:
                self.keeper.tell(code, sheet.version, protocol.encode(sheet_body(sheet)))


def sheet_routes() -> list[Route]:
    """The routes of the score keeper."""
    return [
        Route("/api/sheets", create_sheet, methods=["POST"]),
        Route("/api/sheets/{code}", get_sheet),
        Route("/api/sheets/{code}/rounds/{n}", put_round, methods=["PUT"]),
        Route("/api/sheets/{code}/undo", undo, methods=["POST"]),
        Route("/api/sheets/{code}/players/{seat}/profile", seat_profile, methods=["PUT", "DELETE"]),
        Route("/api/sheets/{code}/csv", sheet_csv_file),
        Route("/api/sheets/{code}/qr.svg", sheet_qr),
        Route("/api/sheets/{code}/events", sheet_events),
    ]
