"""The ASGI application: HTTP API, WebSocket endpoints, static browser client.

``create_app`` only assembles; tables live in :class:`Lobby`; each WebSocket
has a receiving loop.  Every client message is size-checked, rate-limited and
validated (``protocol.decode``) before it reaches a table.  Every message to a
client passes the lobby's :class:`~ligretto.server.outbox.Outbox`, which releases
it once the store has committed what happened before it; the connection then
writes it at once, or, if its client is slow to read, keeps it in a backlog that a
task sends (so a slow client never blocks a table).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import segno
from markdown_it import MarkdownIt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ligretto import rulebook
from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from ligretto.engine.rules import OPTIONS, PRESETS, RuleError, RuleSet
from ligretto.server import metrics, protocol
from ligretto.server.clock import Scheduler
from ligretto.server.heap import COLLECTOR
from ligretto.server.outbox import Outbox, start_eagerly
from ligretto.server.protocol import SILENCE_S, SILENT, ProtocolError
from ligretto.server.table import ABANDONED_S, DEFAULT_GRACE_S, Table, TableError, new_code
from ligretto.server.tutorial import LEARNER, TUTOR, TutorialTable, steps

log = logging.getLogger("ligretto.server")

_T = TypeVar("_T")

STATIC = Path(__file__).parent / "static"


@dataclass(slots=True)
class Settings:
    """Server settings (``ligretto serve`` options)."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: str = "ligretto.db"
    countdown_s: float = 3.0
    rate_per_s: float = 20.0
    """Sustained messages per second a connection may send."""
    burst: int = 40
    """Messages a connection may send at once before the rate applies."""
    abandoned_s: float = ABANDONED_S
    """Seconds after which a table nobody is connected to, with no match on, is closed and dropped."""
    silence_s: float = SILENCE_S
    """Seconds without any message from a client after which its connection counts as gone
    (within a quarter of it more, at most 1 s): it is closed (code 4002) and its seat is
    away, as for a closed socket (clients ping)."""


class Lobby:
    """Every table of this server, by invite code, and the store they write to."""

    def __init__(self, settings: Settings, store: Any | None = None, scheduler: Scheduler | None = None) -> None:
        """``scheduler`` runs the timers of every table (default: each its own on the event loop)."""
        self.settings = settings
        self.store = store
        self.scheduler = scheduler
        self.tables: dict[str, Table] = {}
        self.outbox = Outbox(None if store is None else store.commit)

    def _free_code(self) -> str:
        """An invite code no table of this lobby has."""
        code = new_code()
        while code in self.tables:
            code = new_code()
        return code

    def create(self, seats: int, rules: RuleSet, public: bool, grace_s: float) -> Table:
        code = self._free_code()
        table = Table(
            code,
            seats=seats,
            rules=rules,
            public=public,
            grace_s=grace_s,
            store=self.store,
            countdown_s=self.settings.countdown_s,
            scheduler=self.scheduler,
        )
        self.tables[code] = table
        if self.store is not None:
            self.store.save_table(table)
            self.store.commit()  # its code is about to be handed out
        metrics.OPEN_TABLES.set(len(self.tables))
        return table

    def create_tutorial(self, name: str) -> TutorialTable:
        """A private tutorial table (docs/protocol.md ``POST /api/tutorial``): not stored."""
        code = self._free_code()
        table = TutorialTable(code, name, countdown_s=self.settings.countdown_s, scheduler=self.scheduler)
        self.tables[code] = table
        metrics.OPEN_TABLES.set(len(self.tables))
        return table

    def public_tables(self) -> list[dict[str, Any]]:
        return [t.summary() for t in self.tables.values() if t.public and not t.closed]

    def sweep(self) -> list[str]:
        """Close and drop the abandoned tables (``Table.abandoned``); the store keeps them
        as dropped, so a restart does not bring them back.  Returns their codes."""
        gone = [table for table in self.tables.values() if table.abandoned(self.settings.abandoned_s)]
        for table in gone:
            table.drop()
            del self.tables[table.code]
            if self.store is not None and table.store is self.store:
                self.store.save_table(table)
        if gone:
            COLLECTOR.release(len(gone))
            metrics.OPEN_TABLES.set(len(self.tables))
            log.info("closed %d abandoned tables", len(gone))
        return [table.code for table in gone]

    async def sweep_forever(self) -> None:
        period = min(60.0, self.settings.abandoned_s / 4)
        while True:
            await asyncio.sleep(period)
            self.sweep()


class Connection:
    """One WebSocket: its seat (if any), its table, its rate limit, and its messages on
    their way out."""

    def __init__(self, websocket: WebSocket, settings: Settings, outbox: Outbox) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.table: Table | None = None
        self.outbox = outbox
        self.backlog: deque[str] | None = None
        """Messages waiting behind a send the client was slow to take (``None``: none is)."""
        self.sender: asyncio.Task[None] | None = None
        """The task that sends the backlog, while there is one."""
        self.closed = False
        self.allowance = float(settings.burst)
        self.rate = settings.rate_per_s
        self.burst = settings.burst
        self.last = time.monotonic()
        self.reactions = protocol.ReactionLimit()

    def send(self, message: dict[str, Any]) -> None:
        """Encode (a broadcast once for all its listeners) and hand to the outbox."""
        self.outbox.post(self.write, protocol.wire(message))

    def detach(self) -> None:
        """Another connection took this one's seat: forget the table and close."""
        self.table = None
        self.outbox.post(self.write, "")  # the close marker, after what was sent before

    def write(self, text: str) -> None:
        """Put one message (``""``: the close) on the socket now; if the client is slow to
        read, it waits in the backlog, behind the others, and a task sends it."""
        if self.closed:
            return
        if self.backlog is not None:
            self.backlog.append(text)
            return
        try:
            rest = start_eagerly(self._write(text))
        except Exception:  # the client is gone: its receiving loop ends the connection
            self.closed = True
            return
        if rest is not None:
            self.backlog = deque()
            self.sender = asyncio.create_task(self._drain(rest))

    async def _write(self, text: str) -> None:
        if text:
            await self.websocket.send_text(text)
        else:
            self.closed = True
            await self.websocket.close(code=4001, reason="replaced")

    async def _drain(self, rest: asyncio.Task[None]) -> None:
        try:
            await rest
            while self.backlog and not self.closed:
                await self._write(self.backlog.popleft())
        except Exception:  # as in write
            self.closed = True
        finally:
            self.backlog = None
            self.sender = None

    def within_rate(self) -> bool:
        """Token bucket: ``burst`` messages at once, ``rate`` per second after that."""
        now = time.monotonic()
        self.allowance = min(self.burst, self.allowance + (now - self.last) * self.rate)
        self.last = now
        if self.allowance < 1:
            return False
        self.allowance -= 1
        return True


async def websocket_endpoint(websocket: WebSocket) -> None:
    lobby: Lobby = websocket.app.state.lobby
    await websocket.accept()
    conn = Connection(websocket, lobby.settings, lobby.outbox)
    metrics.CONNECTIONS.inc()
    loop = asyncio.get_running_loop()
    silence_s = lobby.settings.silence_s
    # Moving the deadline costs about as much as a small message: it moves only when it is
    # within silence_s, by a slack more, so at most a few times a second per connection.
    slack = min(1.0, silence_s / 4)
    silent = False
    try:
        # A client that says nothing for silence_s (no message, not even a ping) is gone as
        # far as the table is concerned: a stalled network closes no socket by itself.
        async with asyncio.timeout(silence_s + slack) as deadline:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                now = loop.time()
                if (deadline.when() or 0.0) < now + silence_s:
                    deadline.reschedule(now + silence_s + slack)
                raw = message.get("text")
                if raw is None:
                    raw = (message.get("bytes") or b"").decode("utf-8", "replace")
                if not conn.within_rate():
                    _bad(conn, "rate_limited", "too many messages: the connection is closed")
                    await asyncio.sleep(0.05)
                    await websocket.close(code=1008)
                    break
                handle(lobby, conn, raw)
    except TimeoutError:
        silent = True
    except WebSocketDisconnect:
        pass
    finally:
        # The seat is away (and its grace period runs) before anything else: closing a
        # silent socket may wait for a client that does not answer.
        if conn.table is not None:
            conn.table.disconnected(conn)
        metrics.CONNECTIONS.dec()
        COLLECTOR.release()
        conn.closed = True  # the client is gone: nothing more to send
        if conn.sender is not None:
            conn.sender.cancel()
    if silent:
        log.info("closing silent connection from %s", websocket.client)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(websocket.close(code=SILENT, reason="silent"), 2.0)


def _bad(conn: Connection, code: str, text: str, id: str | int | None = None) -> None:
    metrics.BAD_MESSAGES.labels(code).inc()
    log.info("refused message from %s: %s (%s)", conn.websocket.client, code, text)
    conn.send(protocol.error_message(code, text, id))


def handle(lobby: Lobby, conn: Connection, raw: str) -> None:
    """Validate one message and hand it to the connection's table."""
    try:
        message = protocol.decode(raw)
    except ProtocolError as error:
        _bad(conn, error.code, error.message)
        return
    client_id = getattr(message, "id", None)
    try:
        _dispatch(lobby, conn, message)
    except ProtocolError as error:
        _bad(conn, error.code, error.message, client_id)
    except TableError as error:
        _bad(conn, error.code, error.message, client_id)


def _dispatch(lobby: Lobby, conn: Connection, message: protocol.ClientMessage) -> None:
    if isinstance(message, protocol.Ping):
        conn.send({"type": "pong", "t": message.t, "server_t": time.time()})
        return
    if isinstance(message, protocol.Hello):
        _hello(lobby, conn, message)
        return
    table = conn.table
    if table is None:
        raise ProtocolError("not_joined", "say hello first: join a table by its code")
    if isinstance(message, protocol.Act):
        if conn.seat is None:
            raise TableError("not_seated", "spectators cannot play")
        table.act(conn.seat, protocol.to_action(conn.seat, message.action), message.id)
    elif isinstance(message, protocol.Ready):
        table.ready(conn.seat)
    elif isinstance(message, protocol.AddBot):
        table.add_bot(conn.seat, f"{message.strategy}:{message.level}")
    elif isinstance(message, protocol.RemoveSeat):
        table.remove_seat(conn.seat, message.seat)
    elif isinstance(message, protocol.SetRules):
        table.set_rules(
            conn.seat,
            preset=message.preset,
            options=dict(message.options),
            seats=message.seats,
            public=message.public,
            grace_s=message.grace_s,
        )
    elif isinstance(message, protocol.Start):
        table.start(conn.seat)
    elif isinstance(message, protocol.React):
        _react(table, conn, message)
    elif isinstance(message, protocol.Leave) and conn.seat is not None:
        table.leave(conn.seat)


def _react(table: Table, conn: Connection, message: protocol.React) -> None:
    """An emote: from a seat, one of the list, within the connection's reaction limit."""
    if conn.seat is None:
        raise TableError("not_seated", "spectators cannot react")
    emote = protocol.check_emote(message.emote)
    if not conn.reactions.allow(time.monotonic()):
        raise ProtocolError("too_fast", "at most 1 reaction a second and 5 in 10 seconds")
    table.react(conn.seat, emote)


def _hello(lobby: Lobby, conn: Connection, message: protocol.Hello) -> None:
    if conn.table is not None:
        raise ProtocolError("already_joined", "this connection has already joined a table")
    if message.v != protocol.VERSION:
        raise ProtocolError("bad_version", f"this server speaks protocol version {protocol.VERSION}")
    table = lobby.tables.get(message.code)
    if table is None or table.closed:
        raise ProtocolError("no_table", "there is no table with that code")
    if message.watch:
        table.watch(conn)
    elif message.token is not None:
        table.rejoin(conn, message.token)
    else:
        table.join(conn, protocol.check_name(message.name))
    conn.table = table


def _count_players(lobby: Lobby) -> None:
    metrics.CONNECTED_PLAYERS.set(
        sum(1 for t in lobby.tables.values() for s in t.seats if s is not None and s.human and s.connected)
    )


async def lobby_endpoint(websocket: WebSocket) -> None:
    """The live list of public tables: sent on connect and whenever it changes."""
    lobby: Lobby = websocket.app.state.lobby
    await websocket.accept()
    gone = asyncio.ensure_future(_until_closed(websocket))  # notices a client that left at once
    last: list[dict[str, Any]] | None = None
    try:
        while not gone.done():
            tables = lobby.public_tables()
            if tables != last:
                await websocket.send_text(protocol.encode({"type": "lobby", "tables": tables}).decode())
                last = tables
            await asyncio.wait({gone}, timeout=0.5)
    except (WebSocketDisconnect, RuntimeError):
        return
    finally:
        gone.cancel()


async def _until_closed(websocket: WebSocket) -> None:
    """Read (and ignore) what a lobby client sends until it disconnects."""
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass


async def _body(request: Request, kind: type[_T]) -> _T | Response:
    """An HTTP request's JSON body as ``kind`` (a protocol struct; empty means ``{}``), or
    the error answer: too large, not JSON at all (``malformed``, as on the WebSocket) or
    JSON of the wrong shape (``invalid``)."""
    body = await request.body()
    if len(body) > protocol.MAX_MESSAGE_BYTES:
        return JSONResponse({"error": "too_large", "message": "request too large"}, status_code=413)
    try:
        return msgspec.json.decode(body or b"{}", type=kind)
    except msgspec.ValidationError as error:  # a DecodeError too: first
        return JSONResponse({"error": "invalid", "message": str(error)}, status_code=400)
    except msgspec.DecodeError as error:
        return JSONResponse({"error": "malformed", "message": f"malformed JSON: {error}"}, status_code=400)


async def create_table(request: Request) -> Response:
    """``POST /api/tables``: a new table, with bots already seated if asked (play now)."""
    lobby: Lobby = request.app.state.lobby
    spec = await _body(request, protocol.CreateTable)
    if isinstance(spec, Response):
        return spec
    try:
        rules = RuleSet.preset(spec.preset).replace(**spec.options)
        grace_s = DEFAULT_GRACE_S if spec.grace_s is None else spec.grace_s
        if not 0 <= grace_s <= 3600:
            raise TableError("bad_grace", "the grace period is 0-3600 seconds")
        if not MIN_PLAYERS <= spec.seats <= MAX_PLAYERS:
            raise TableError("bad_seats", f"a table has {MIN_PLAYERS}-{MAX_PLAYERS} seats, not {spec.seats}")
        bots = _bots_for(spec)
        table = lobby.create(spec.seats, rules, spec.public, grace_s)
    except RuleError as error:
        return JSONResponse({"error": "bad_rules", "message": str(error)}, status_code=400)
    except TableError as error:
        return JSONResponse({"error": error.code, "message": error.message}, status_code=400)
    for bot in bots:
        table.seat_bot(bot)
    table.start_on_join = spec.start
    return JSONResponse({"code": table.code, **table.summary()}, status_code=201)


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
        return JSONResponse({"error": error.code, "message": error.message}, status_code=400)
    table = lobby.create_tutorial(name)
    answer = {"code": table.code, "token": table.token, "seat": LEARNER, "tutor": TUTOR, "steps": steps()}
    return JSONResponse(answer, status_code=201)


async def list_tables(request: Request) -> Response:
    return JSONResponse({"tables": request.app.state.lobby.public_tables()})


def _table_of(request: Request) -> Table | None:
    table: Table | None = request.app.state.lobby.tables.get(request.path_params["code"])
    return None if table is None or table.closed else table


NO_TABLE = {"error": "no_table", "message": "there is no table with that code"}


async def get_table(request: Request) -> Response:
    """One table's summary and who sits where (the invite page shows it before joining):
    public information only, as in the ``table`` message."""
    table = _table_of(request)
    if table is None:
        return JSONResponse(NO_TABLE, status_code=404)
    return JSONResponse({**table.summary(), "players": table.players()})


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


async def table_qr(request: Request) -> Response:
    """``GET /api/tables/{code}/qr.svg``: the table's invite link as a QR code (segno), so
    a phone at the same table can join by its camera."""
    table = _table_of(request)
    if table is None:
        return JSONResponse(NO_TABLE, status_code=404)
    buffer = io.BytesIO()
    qr_code(invite_link(request, table.code)).save(
        buffer, kind="svg", scale=QR_SCALE, border=QR_BORDER, xmldecl=False, title="Ligretto invite", light="#fff"
    )
    return Response(buffer.getvalue(), media_type="image/svg+xml")


def rule_options() -> dict[str, Any]:
    """Every rule option (its values and classic default) and every preset as a full rule
    set, classic first: what a client needs to build its rule form (docs/protocol.md)."""
    return {
        "options": [option.to_dict() for option in OPTIONS.values()],
        "presets": [{"name": name, "rules": RuleSet.preset(name).to_dict()} for name in PRESETS],
    }


RULE_OPTIONS_BODY = protocol.encode(rule_options())
"""The body of ``GET /api/presets``, encoded once: the rules never change while the server runs."""


EMOTES_BODY = protocol.encode({"emotes": list(protocol.EMOTES)})
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
        return JSONResponse({"error": "no_language", "message": f"no rules in language {lang!r}"}, status_code=404)
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(rulebook.text(lang))
    return HTMLResponse(html)


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok", "tables": len(request.app.state.lobby.tables)})


async def metrics_endpoint(request: Request) -> Response:
    # Counted when scraped, not after every message: it walks every seat of every table.
    lobby = request.app.state.lobby
    metrics.OPEN_TABLES.set(len(lobby.tables))
    _count_players(lobby)
    return Response(metrics.render(), media_type="text/plain; version=0.0.4")


def create_app(settings: Settings | None = None, store: Any | None = None) -> Starlette:
    """Assemble the application; ``store`` (SQLite) restores its unfinished tables on start."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        lobby = Lobby(settings, store)
        app.state.lobby = lobby
        if store is not None:
            for table in store.load_tables(countdown_s=settings.countdown_s):
                lobby.tables[table.code] = table
                table.resume()
            metrics.OPEN_TABLES.set(len(lobby.tables))
        COLLECTOR.install()
        COLLECTOR.settle()  # what start-up and restoring built lives long: no collection needs to scan it
        chores = [asyncio.create_task(COLLECTOR.run()), asyncio.create_task(lobby.sweep_forever())]
        yield
        for chore in chores:
            chore.cancel()
        COLLECTOR.uninstall()
        for table in lobby.tables.values():
            table.close()
        if store is not None:
            store.close()

    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics_endpoint),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables", list_tables, methods=["GET"]),
        Route("/api/tables/{code}", get_table),
        Route("/api/tables/{code}/qr.svg", table_qr),
        Route("/api/tutorial", create_tutorial, methods=["POST"]),
        Route("/api/presets", presets),
        Route("/api/emotes", emotes),
        Route("/api/rules/{lang}", rules_page),
        WebSocketRoute("/ws", websocket_endpoint),
        WebSocketRoute("/ws/lobby", lobby_endpoint),
    ]
    if STATIC.is_dir():
        routes.append(Mount("/", StaticFiles(directory=STATIC, html=True), name="static"))
    return Starlette(routes=routes, lifespan=lifespan)
