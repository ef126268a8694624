"""One seat (or a spectator) at a table over the protocol, without the transport.

Sans-I/O, as h11 and wsproto are: a :class:`Session` is fed every message the server
sends (:meth:`Session.receive`: a frame's text, read by ``protocol.decode_server``, or a
message already read) and writes the messages the client sends (:meth:`Session.connect`
and :meth:`Session.hello`, :meth:`Session.act`) as the JSON objects the wire carries.  The client's own transport (a
WebSocket of the terminal client, of a load-test or stress client or of a test; the
terminal's in-process table) carries them both ways and keeps its own timers; the clock
sync is :mod:`ligretto.client.clocksync`'s.  What a session keeps:

- who it is at the table (docs/protocol.md, ``hello`` and ``welcome``): the invite code,
  the seat and the seat's token from the latest ``welcome``, and what the ``hello`` of a
  new connection says: watch, else come back with the token, else take a seat by name;
- the table: its last ``table`` message, the :class:`~ligretto.protocol.Phase` (``go``
  starts the play), its rule set;
- the round: the snapshot's view in the one client-side round model,
  :class:`~ligretto.client.mirror.Mirror`, kept up to date by that round's ``events``
  (strict: every event checked against the view, each inconsistency noted in
  :attr:`Session.problems`), the last ``seq``, the races this seat lost in it (``race``),
  the others' aims shown now (``aimed``: :attr:`Session.aims`) and the ``round_over``
  that ended it;
- the acts in flight by id (:attr:`Session.pending`), each answered by its ``ack`` or an
  ``error`` with its id: :attr:`Session.answered` is the :class:`Answer` the last message
  received gave (``None``: it answered no act of this session).

Every connection opens with :meth:`Session.connect`'s ``hello``, the first and each one
after a drop: with the token it brings the seat back, and the fresh snapshot replaces
the round.  The acts in flight on the lost connection are dropped then (their answers
will never come: whether they were applied, that snapshot shows).  A ``hello`` refused
``bad_token`` forgets the token (it is spent), so the next one asks for a seat by name.  Anything fed to it that is
not a server message is refused with :class:`~ligretto.protocol.ProtocolError`, and so
is an action that is no protocol action.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ligretto.client.mirror import Mirror
from ligretto.engine.rules import RuleSet
from ligretto.protocol import (
    SERVER_MESSAGES,
    VERSION,
    Ack,
    ActionMsg,
    Aimed,
    Error,
    Events,
    Go,
    Phase,
    ProtocolError,
    Race,
    RoundOver,
    ServerMessage,
    Snapshot,
    TableState,
    Welcome,
    decode_server,
)

Message = dict[str, Any]
"""A client message as the wire carries it (a JSON object)."""
ActId = str | int
"""An act's id: the client's own, echoed by its answer."""
Raw = str | bytes | bytearray | memoryview
"""A server message's text, as a WebSocket library hands it over."""
SPENT = "bad_token"
"""The refusal of a ``hello`` whose token is not (or no longer) a seat's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InFlight:
    """An act sent and not answered yet."""

    ident: ActId
    """Its ``id``."""
    action: Message
    """Its ``action``, as sent (``{"kind": "turn"}``, ...)."""
    round: int
    """The round it was sent in."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer(InFlight):
    """An act and what answered it: its ``ack`` (applied, or refused with a reason), or an
    ``error`` with its id (``countdown``, ``not_playing``, ...)."""

    reply: Ack | Error

    @property
    def applied(self) -> bool:
        return isinstance(self.reply, Ack) and self.reply.applied

    @property
    def reason(self) -> str | None:
        """Why nothing happened: the refused ack's reason or the error's code (``None``: applied)."""
        if isinstance(self.reply, Error):
            return self.reply.code
        return None if self.reply.applied else self.reply.reason


@dataclass(slots=True, eq=False)
class Session:
    """One client's seat (``watch``: a spectator's place) at the table ``code``."""

    code: str = ""
    """The table's invite code."""
    name: str | None = None
    """The display name a ``hello`` takes a free seat with (when it has no token)."""
    token: str | None = None
    """The seat's token: a ``hello`` with it brings the seat back; kept from every
    ``welcome`` that has one, forgotten once refused (``bad_token``: spent)."""
    watch: bool = False
    """Come as a spectator (over any token or name)."""
    profile: str | None = None
    """The secret of the person's profile, sent in every ``hello``."""
    strict: bool = False
    """Check every event against the view it is applied to, noting each inconsistency."""

    seat: int | None = field(default=None, init=False)
    """The seat from the latest ``welcome`` (``None``: a spectator, or not welcomed yet)."""
    connections: int = field(default=0, init=False)
    """Connections opened so far (:meth:`connect`)."""
    welcomed: bool = field(default=False, init=False)
    """This connection's ``hello`` was answered by a ``welcome``."""
    joins: int = field(default=0, init=False)
    """Connections a ``welcome`` answered (the first join, then each return)."""
    refused: Error | None = field(default=None, init=False)
    """The error that refused this connection's last ``hello`` (``None``: none did, or a
    ``welcome`` answered one since)."""
    table: TableState | None = field(default=None, init=False)
    """The last ``table`` message."""
    phase: Phase | None = field(default=None, init=False)
    """The table's phase (``None`` before its first ``table`` message)."""
    rules: RuleSet = field(default_factory=RuleSet, init=False)
    """The table's rule set (the classic one until a ``table`` message says another)."""
    round: int = field(default=0, init=False)
    """The number of the round the mirror holds (0 before the first snapshot)."""
    mirror: Mirror | None = field(default=None, init=False)
    """The round as this seat sees it: the last snapshot with its round's events applied."""
    seq: int = field(default=-1, init=False)
    """The highest ``seq`` of the round's ``events`` received (-1: none yet)."""
    races_lost: list[Race] = field(default_factory=list, init=False)
    """The races for a pile this seat lost in the round (``race`` messages naming it)."""
    round_over: RoundOver | None = field(default=None, init=False)
    """The ``round_over`` of the round (``None`` while it is dealt or played)."""
    aims: dict[int, Aimed] = field(default_factory=dict, init=False)
    """The others' aims shown now (live presence), by seat: the last ``aimed`` of each
    seat in this round that did not clear it; forgotten at ``round_over`` and a new round.
    (How long one stays shown without news is the front end's: ``AIM_FADE_S``.)"""
    pending: dict[ActId, InFlight] = field(default_factory=dict, init=False)
    """The acts in flight by id."""
    answered: Answer | None = field(default=None, init=False)
    """What the last message received answered of :attr:`pending` (``None``: nothing)."""
    last_id: int = field(default=0, init=False)
    """The last id :meth:`act` gave (they count 1, 2, ...)."""
    _problems: list[str] = field(default_factory=list, init=False)
    _dealt: tuple[int, int] = field(default=(0, 0), init=False)
    """(match, round) of the mirror's round."""

    # --- reading ---------------------------------------------------------------------

    @property
    def host(self) -> int | None:
        """The host's seat (``None``: nobody connected, or no ``table`` message yet)."""
        return None if self.table is None else self.table.host

    @property
    def match(self) -> int:
        """The table's match (1-based; 0 before its first)."""
        return 0 if self.table is None else self.table.match

    @property
    def problems(self) -> list[str]:
        """Strict: every inconsistency seen so far (events that did not fit the view they
        were applied to, events of a round with no snapshot)."""
        current = [] if self.mirror is None else self.mirror.problems or []
        return self._problems + current

    # --- what the client sends ---------------------------------------------------------

    def connect(self) -> Message:
        """A new connection, the first or one after a drop: its :meth:`hello`.  The acts in
        flight on the connection before are dropped (their answers will never come)."""
        self.connections += 1
        self.welcomed = False
        self.refused = None
        self.pending.clear()
        return self.hello()

    def hello(self) -> Message:
        """The ``hello`` this session says (to open a connection, or again after a refused
        one): watch; else back to the seat with its token; else a free seat by name (with
        the profile's secret if there is one)."""
        hello: Message = {"type": "hello", "v": VERSION, "code": self.code}
        if self.profile is not None:
            hello["profile"] = self.profile
        if self.watch:
            hello["watch"] = True
        elif self.token is not None:
            hello["token"] = self.token
        elif self.name is not None:
            hello["name"] = self.name
        return hello

    def act(self, action: Message, ident: ActId | None = None) -> Message:
        """The ``act`` that sends ``action`` (``{"kind": "turn"}``, ...) with the next id
        (or ``ident``), kept in flight until its answer.  An action the protocol does not
        know is refused (``ProtocolError``), and nothing is kept."""
        try:
            msgspec.convert(action, ActionMsg)
        except msgspec.ValidationError as error:
            raise ProtocolError("invalid", f"invalid action {action!r}: {error}") from None
        if ident is None:
            self.last_id += 1
            ident = self.last_id
        self.pending[ident] = InFlight(ident=ident, action=action, round=self.round)
        return {"type": "act", "id": ident, "action": action}

    # --- what the server sends ---------------------------------------------------------

    def receive(self, message: ServerMessage | Raw | Mapping[str, Any]) -> ServerMessage:
        """Apply one server message (a frame's text, a message read already, or the plain
        JSON object of one); returns it read.  ``ProtocolError`` if it is none."""
        typed = _read(message)
        self.answered = None
        handler = _HANDLERS.get(type(typed))
        if handler is not None:
            handler(self, typed)
        return typed

    def _welcome(self, welcome: Welcome) -> None:
        self.code, self.seat = welcome.code, welcome.seat
        if welcome.token is not None:
            self.token = welcome.token
        if not self.welcomed:  # (a welcome on a welcomed connection: the start renumbered the seats)
            self.joins += 1
        self.welcomed, self.refused = True, None

    def _table(self, table: TableState) -> None:
        self.table, self.phase = table, table.phase
        with contextlib.suppress(ValueError, TypeError, KeyError):  # a RuleError is a ValueError
            self.rules = RuleSet.from_dict(table.rules)

    def _snapshot(self, snapshot: Snapshot) -> None:
        if self.mirror is not None:
            self._problems += self.mirror.problems or []
        self.mirror = Mirror.from_view(msgspec.to_builtins(snapshot.view), strict=self.strict)
        self.seat, self.round = self.mirror.viewer, snapshot.round
        dealt = (self.match, snapshot.round)
        if dealt != self._dealt:  # a new round (not the same one again, after a reconnection)
            self._dealt, self.seq, self.round_over = dealt, -1, None
            self.races_lost = []
            self.aims = {}

    def _go(self, go: Go) -> None:
        self.phase = Phase.PLAYING

    def _events(self, events: Events) -> None:
        if self.mirror is None or events.round != self.round:
            if self.strict:
                self._problems.append(f"events of round {events.round} (seq {events.seq}) without its snapshot")
            return
        self.mirror.apply(msgspec.to_builtins(events.events))
        self.seq = max(self.seq, events.seq)

    def _ack(self, ack: Ack) -> None:
        self._answer(ack.id, ack)

    def _error(self, error: Error) -> None:
        if error.id is not None:
            self._answer(error.id, error)
        elif not self.welcomed:  # the hello's answer
            self.refused = error
            if error.code == SPENT:
                self.token = None

    def _answer(self, ident: ActId, reply: Ack | Error) -> None:
        sent = self.pending.pop(ident, None)
        if sent is not None:
            self.answered = Answer(ident=sent.ident, action=sent.action, round=sent.round, reply=reply)

    def _race(self, race: Race) -> None:
        if race.loser == self.seat and race.round == self.round:
            self.races_lost.append(race)

    def _aimed(self, aimed: Aimed) -> None:
        if aimed.round != self.round or self.round_over is not None:
            return
        if aimed.source is None:
            self.aims.pop(aimed.seat, None)
        else:
            self.aims[aimed.seat] = aimed

    def _round_over(self, over: RoundOver) -> None:
        self.round_over = over
        self.aims = {}
        mirror = self.mirror
        if mirror is not None and mirror.ending is None:  # (its events say so first)
            mirror.ending, mirror.stopped_by = over.ending, over.stopped_by


_HANDLERS: dict[type, Callable[[Session, Any], None]] = {
    Welcome: Session._welcome,
    TableState: Session._table,
    Snapshot: Session._snapshot,
    Go: Session._go,
    Events: Session._events,
    Ack: Session._ack,
    Error: Session._error,
    Race: Session._race,
    Aimed: Session._aimed,
    RoundOver: Session._round_over,
}


def _read(message: ServerMessage | Raw | Mapping[str, Any]) -> ServerMessage:
    if isinstance(message, Raw):
        return decode_server(message)
    if isinstance(message, Mapping):
        try:
            typed: ServerMessage = msgspec.convert(message, ServerMessage)
        except msgspec.ValidationError as error:
            raise ProtocolError("invalid", f"invalid server message: {error}") from None
        return typed
    if not isinstance(message, SERVER_MESSAGES):
        raise ProtocolError("invalid", f"not a server message: {message!r}")
    return message
