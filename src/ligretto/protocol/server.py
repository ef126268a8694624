"""Server messages: every message the server sends over ``/ws`` and ``/ws/lobby``.

Each is a typed msgspec struct tagged by ``type`` (docs/protocol.md, Server messages),
built by the functions below from the table's and the engine's values (seats, views,
events, results, scores).  A message that every listener of a table receives alike is
wrapped in a :class:`Broadcast`, encoded once for all of them.  :func:`decode_server`
reads any server message back into its struct: for clients and tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol

import msgspec

from ligretto.engine import events as ev
from ligretto.engine.events import Refused
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import RoundScore, ScoreSheet
from ligretto.engine.tempo import Flag
from ligretto.engine.views import RoundView
from ligretto.protocol.errors import ProtocolError
from ligretto.protocol.game import EventMsg, ScoreLine, SheetMsg, ViewMsg, event_messages, score_lines, sheet_message
from ligretto.protocol.game import view_message as _view_message
from ligretto.protocol.http import Now, TableList, TableSummary
from ligretto.protocol.limits import VERSION
from ligretto.protocol.phase import Phase
from ligretto.protocol.queue import Party, Queued, Seated
from ligretto.protocol.tournaments import LobbyTournament, TableTournament

Rules = dict[str, str | int | bool]
"""A rule set as ``RuleSet.to_dict`` writes it: every option by name."""


class _Server(msgspec.Struct, forbid_unknown_fields=True, tag_field="type"):
    pass


class Welcome(_Server, tag="welcome"):
    """The answer to ``hello`` (or a new seat number after ``start`` closed the gaps)."""

    v: int
    code: str
    seat: int | None
    token: str | None


class SeatEntry(msgspec.Struct, forbid_unknown_fields=True):
    """One taken seat of the ``table`` message."""

    seat: int
    name: str
    bot: str | None
    connected: bool
    stand_in: bool
    ready: bool


class TableState(_Server, tag="table"):
    """Everything about the table that everyone may see."""

    code: str
    phase: Phase
    seats: list[SeatEntry | None]
    host: int | None
    rules: Rules
    public: bool
    grace_s: float
    ready_s: float
    """On the score sheet, how long (seconds) the others may take once the first person
    is ready."""
    round: int
    start_at: float | None
    ready_by: float | None
    """On the score sheet, once the first person is ready: the server time at which the
    next round is dealt whoever is ready (``None``: nobody is waiting, or not ``scoring``)."""
    sheet: SheetMsg | None
    winners: list[int] | None
    arbitration: Literal["arrival", "fair"]
    window_ms: int
    rated: bool
    match: int
    """The table's match (1-based; 0 before its first): with ``round``, where a replay is."""
    replays: Literal["link", "players"] = "link"
    """Who may watch its rounds' replays: anyone with the link, or its players only."""
    replay: str | None = None
    """Between rounds and after the match (``scoring``, ``over``): the share token of the
    round just scored, as its ``round_over`` told it (so a page loaded again on the score
    sheet still links its replay); ``None`` while a round is dealt or played."""
    tournament: TableTournament | None = None
    """A tournament's stage table: which tournament and stage (``None``: any other table)."""


class Snapshot(_Server, tag="snapshot"):
    """The whole visible round as the receiver may see it."""

    view: ViewMsg
    round: int


class Go(_Server, tag="go"):
    """Play starts (at the countdown's ``start_at``)."""

    round: int


class Events(_Server, tag="events"):
    """What one applied action caused, to every listener."""

    round: int
    seq: int
    by: int
    events: list[EventMsg]


class Ack(_Server, tag="ack", omit_defaults=True):
    """The answer to an ``act``, to the acting seat only; ``reason``, ``message``, ``by``
    (whose card took the place on the pile) and ``by_ms`` (for a race, by how many
    milliseconds of compensated time: negative when the winner's play was later but the
    loser's came after the window) are left out when they do not apply."""

    id: str | int
    applied: bool
    reason: str | None = None
    message: str | None = None
    by: int | None = None
    by_ms: int | None = None


class Race(_Server, tag="race", omit_defaults=True):
    """A race for a pile was decided, to everyone (players and spectators): ``winner``'s
    card took the place on ``pile`` that ``loser``'s play was refused for, the two at most
    ``engine.races.RACE_MS`` apart, ``ms`` milliseconds of compensated time sooner (as
    ``by_ms`` of the loser's ``ack``; left out in a replay's steps, which know no ranks)."""

    round: int
    pile: int
    winner: int
    loser: int
    ms: int | None = None


class Speed(_Server, tag="speed"):
    """To the table's host only: ``seat`` played faster or more regularly than a person
    can (``engine.tempo``, docs/fairness.md "Inhuman speed"), flagged after ``plays``
    plays of ``round``: ``why`` (``fast``: ``fast`` of its last plays under the human
    floor; ``regular``: its reactions' coefficient of variation ``cv``), the median of its
    last reactions in ``median_ms``.  The round is kept flagged; a rated match with a
    flagged seat does not count for ratings."""

    round: int
    seat: int
    why: str
    plays: int
    fast: int
    median_ms: int
    cv: float


class RoundOver(_Server, tag="round_over"):
    """The round's scores, right after the events that ended it."""

    round: int
    ending: str
    stopped_by: int | None
    scores: list[ScoreLine]
    totals: list[int]
    match_over: bool
    winners: list[int] | None
    replay: str | None = None
    """The round's share token: its replay is ``GET /api/replays/{replay}`` (the browser's
    ``#/replay/{replay}``); ``None`` from a table that keeps no replays."""


class Reaction(_Server, tag="reaction"):
    """A seated player's emote, to everyone."""

    seat: int
    emote: str


class Aimed(_Server, tag="aimed"):
    """A seat's aim (live presence), to everyone else at the table: the face-up card it has
    selected (``source``, ``position`` and the ``card`` as everyone sees it there; ``source``
    ``None``: its aim is cleared) and the pile it points at (an index, ``"new"`` or
    ``None``).  ``seq``: the round as it was after its action number ``seq`` (-1: as dealt),
    as an ``events`` message's.  Never an action."""

    round: int
    seq: int
    seat: int
    source: Literal["row", "stack", "discard"] | None
    position: int
    card: str | None
    pile: int | Literal["new"] | None


class Pong(_Server, tag="pong"):
    """The answer to ``ping``: the client's ``t`` and the server's clock."""

    t: float
    server_t: float


class Error(_Server, tag="error", omit_defaults=True):
    """A message that could not be accepted, or a notice; ``id`` only when the message
    answered had one."""

    code: str
    message: str
    id: str | int | None = None


class LobbyTables(_Server, tag="lobby"):
    """The public tables that are open (``/ws/lobby``): as ``GET /api/tables``, at most
    ``LOBBY_TABLES`` and the number in all."""

    tables: list[TableSummary]
    total: int
    now: Now
    """Who is playing now, in the whole service (as ``GET /api/now``)."""
    tournaments: list[LobbyTournament] = []
    """The tournaments being played, once each (as ``GET /api/tables``)."""


ServerMessage = (
    Welcome
    | TableState
    | Snapshot
    | Go
    | Events
    | Ack
    | Race
    | Speed
    | RoundOver
    | Reaction
    | Aimed
    | Pong
    | Error
    | LobbyTables
    | Queued
    | Seated
    | Party
)
SERVER_MESSAGES: tuple[type[msgspec.Struct], ...] = (
    Welcome,
    TableState,
    Snapshot,
    Go,
    Events,
    Ack,
    Race,
    Speed,
    Reaction,
    Aimed,
    RoundOver,
    Error,
    Pong,
    LobbyTables,
    Queued,
    Seated,
    Party,
)
"""Every server message, in the order of docs/protocol.md."""


# --- encoding ----------------------------------------------------------------------------

encode = msgspec.json.Encoder().encode
"""Any message (or plain JSON-ready value) as JSON bytes."""


class Broadcast:
    """A server message that every listener of a table receives as it is (a ``table``
    message, ``events``, ``go``, ``round_over``, ``reaction``): :func:`wire` encodes it
    once, for the first connection that sends it, and the others send the same text."""

    __slots__ = ("_text", "message")

    def __init__(self, message: ServerMessage) -> None:
        self.message = message
        self._text: str | None = None

    def text(self) -> str:
        if self._text is None:
            self._text = encode(self.message).decode()
        return self._text


Outgoing = ServerMessage | Broadcast
"""What a table gives its listeners: one message, or one shared by all of them."""


def wire(message: Outgoing) -> str:
    """A server message as it goes out: one JSON text (a text frame)."""
    if type(message) is Broadcast:
        return message.text()
    return encode(message).decode()


def as_dict(message: Outgoing) -> dict[str, Any]:
    """A server message as the plain dict a client reads from the wire (in-process
    listeners: local play, tests)."""
    data: dict[str, Any] = msgspec.to_builtins(message.message if isinstance(message, Broadcast) else message)
    return data


_server_decoder = msgspec.json.Decoder(ServerMessage)


def decode_server(raw: bytes | bytearray | memoryview | str) -> ServerMessage:
    """Read one server message into its struct (clients, tests); :class:`ProtocolError`
    (``invalid`` or ``malformed``) if it is not one."""
    try:
        return _server_decoder.decode(raw)
    except msgspec.ValidationError as error:
        raise ProtocolError("invalid", f"invalid server message: {error}") from None
    except msgspec.DecodeError as error:
        raise ProtocolError("malformed", f"malformed JSON: {error}") from None


# --- building messages from the table's and the engine's values --------------------------


class SeatInfo(Protocol):
    """What the protocol reads of a taken seat (the server's ``Seat``)."""

    @property
    def name(self) -> str: ...
    @property
    def bot(self) -> object | None: ...
    @property
    def connected(self) -> bool: ...
    @property
    def stand_in(self) -> bool: ...
    @property
    def ready(self) -> bool: ...


def welcome_message(code: str, seat: int | None, token: str | None) -> Welcome:
    return Welcome(VERSION, code, seat, token)


def seat_entry(index: int, seat: SeatInfo) -> SeatEntry:
    """A taken seat as everyone sees it: a bot is always connected."""
    bot = None if seat.bot is None else str(seat.bot)
    return SeatEntry(index, seat.name, bot, seat.connected or bot is not None, seat.stand_in, seat.ready)


def table_message(
    *,
    code: str,
    phase: str,
    seats: Sequence[SeatInfo | None],
    host: int | None,
    rules: RuleSet,
    public: bool,
    grace_s: float,
    round: int,
    start_at: float | None,
    sheet: ScoreSheet | None,
    winners: Iterable[int] | None,
    arbitration: str,
    window_ms: int,
    rated: bool = False,
    match: int = 0,
    replays: str = "link",
    replay: str | None = None,
    ready_s: float,
    ready_by: float | None = None,
    tournament: TableTournament | None = None,
) -> TableState:
    """The ``table`` message: seats, rules, phase, the score sheet."""
    return TableState(
        code=code,
        phase=Phase(phase),
        seats=[None if seat is None else seat_entry(i, seat) for i, seat in enumerate(seats)],
        host=host,
        rules=rules.to_dict(),
        public=public,
        grace_s=float(grace_s),
        ready_s=float(ready_s),
        round=round,
        start_at=start_at,
        ready_by=ready_by,
        sheet=None if sheet is None else sheet_message(sheet),
        winners=None if winners is None else list(winners),
        arbitration=str(arbitration),  # type: ignore[arg-type]  # an Arbitration value
        window_ms=window_ms,
        rated=rated,
        match=match,
        replays=str(replays),  # type: ignore[arg-type]  # a Replays value
        replay=replay,
        tournament=tournament,
    )


def snapshot_message(view: RoundView, round: int) -> Snapshot:
    return Snapshot(_view_message(view), round)


def go_message(round: int) -> Go:
    return Go(round)


def events_message(round: int, seq: int, by: int, events: Iterable[ev.Event]) -> Events:
    """What an applied action caused: ``seq`` is its index in the round's log."""
    return Events(round, seq, by, event_messages(events))


def ack_message(id: str | int, result: ev.Applied | Refused, by: int | None = None, by_ms: int | None = None) -> Ack:
    """Applied, or refused with the engine's reason; ``by``: whose card took the place on
    that pile, ``by_ms`` milliseconds of compensated time sooner (a lost race)."""
    if isinstance(result, Refused):
        return Ack(id, False, result.reason.value, result.reason.text, by, by_ms)
    return Ack(id, True)


def race_message(round: int, pile: int, winner: int, loser: int, ms: int | None) -> Race:
    return Race(round, pile, winner, loser, ms)


def speed_message(round: int, seat: int, flag: Flag) -> Speed:
    """``seat`` flagged for inhuman speed in ``round`` (to the host)."""
    return Speed(round, seat, flag.why.value, flag.plays, flag.fast, _ms(flag.median_s), _thousandths(flag.cv))


def _ms(seconds: float) -> int:
    return int(seconds * 1000 + 0.5)


def _thousandths(value: float) -> float:
    return int(value * 1000 + 0.5) / 1000


def round_over_message(
    *,
    round: int,
    ending: str,
    stopped_by: int | None,
    scores: Iterable[RoundScore],
    totals: Iterable[int],
    match_over: bool,
    winners: Iterable[int] | None,
    replay: str | None = None,
) -> RoundOver:
    return RoundOver(
        round,
        str(ending),
        stopped_by,
        score_lines(scores),
        list(totals),
        match_over,
        None if winners is None else list(winners),
        replay,
    )


def reaction_message(seat: int, emote: str) -> Reaction:
    return Reaction(seat, emote)


def aimed_message(
    *, round: int, seq: int, seat: int, source: str | None, position: int, card: str | None, pile: int | str | None
) -> Aimed:
    """A seat's aim as the table checked it (``source`` ``None``: cleared)."""
    return Aimed(round, seq, seat, source, position, card, pile)  # type: ignore[arg-type]  # checked by the table


def pong_message(t: float, server_t: float) -> Pong:
    return Pong(t, server_t)


def error_message(code: str, message: str, id: str | int | None = None) -> Error:
    return Error(code, message, id)


def lobby_message(listing: TableList, now: Now) -> LobbyTables:
    """The lobby list (``Lobby.public_listing``) and who is playing now as the ``/ws/lobby`` message."""
    return LobbyTables(listing.tables, listing.total, now, listing.tournaments)
