"""Client messages: what a client may send, as msgspec structs validated on arrival.

Anything else (malformed JSON, an unknown type, a missing or mistyped field, unknown
fields) becomes a :class:`ProtocolError` with a clear message and never reaches a
table.  ``docs/protocol.md`` shows every message.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

import msgspec

from ligretto.engine.actions import Action, Place, Play, Source, simple_actions
from ligretto.engine.cards import CARDS, parse_face
from ligretto.protocol.errors import ProtocolError
from ligretto.protocol.limits import MAX_CLOCK, MAX_HELD_S, MAX_ID, MAX_ID_LENGTH, MAX_MESSAGE_BYTES, MAX_POSITION

ClientId = Annotated[str, msgspec.Meta(max_length=MAX_ID_LENGTH)] | Annotated[int, msgspec.Meta(ge=-MAX_ID, le=MAX_ID)]
"""A client's own id of an ``act``: echoed in the ``ack``, so bounded (``MAX_ID_LENGTH``)."""
Clock = Annotated[float, msgspec.Meta(ge=-MAX_CLOCK, le=MAX_CLOCK)]
"""A client's clock reading (``ping``): finite, so the ``pong`` can carry it back."""
Held = Annotated[float, msgspec.Meta(ge=0.0, le=MAX_HELD_S)]
"""How long a client kept a ``pong`` before its next ``ping`` (seconds)."""

# --- actions inside an "act" message ------------------------------------------------------


class _Strict(msgspec.Struct, forbid_unknown_fields=True, tag_field="kind"):
    pass


class PlayMsg(_Strict, tag="play"):
    source: Literal["row", "stack", "discard"]
    pile: int | None
    position: int = 0
    card: str | None = None


class TurnMsg(_Strict, tag="turn"):
    pass


class PlaceMsg(_Strict, tag="place"):
    source: Literal["stack", "discard"]
    column: int
    card: str | None = None


class VoteMsg(_Strict, tag="vote"):
    pass


class WithdrawMsg(_Strict, tag="withdraw"):
    pass


ActionMsg = PlayMsg | TurnMsg | PlaceMsg | VoteMsg | WithdrawMsg


# --- client messages ---------------------------------------------------------------------


class _Client(msgspec.Struct, forbid_unknown_fields=True, tag_field="type"):
    pass


class Hello(_Client, tag="hello"):
    """Join a table by invite code with a display name, come back with a seat token, or watch."""

    v: int
    code: str
    name: str | None = None
    token: str | None = None
    watch: bool = False
    profile: str | None = None
    """The secret of the person's profile (``POST /api/profiles``): the seat taken by
    name is linked to the profile; without ``name`` the profile's name is used."""


class Act(_Client, tag="act"):
    """A game action; ``id`` is the client's own id, echoed in the acknowledgement.
    ``t``: when the client sent it, on its estimate of the server's clock (Unix seconds,
    from the ``ping``/``pong`` clock sync); fair judging ranks races by it
    (docs/fairness.md).  Without it, the action counts as sent when it arrived."""

    id: ClientId
    action: ActionMsg
    t: Clock | None = None


class Ping(_Client, tag="ping"):
    """Clock sync: the server answers with its own time.  ``echo`` is the ``server_t``
    of the last ``pong`` this connection received and ``held`` how long (seconds) the
    client kept it before sending this ping: the server's measure of the round trip,
    ``arrival - echo - held``, from which it estimates the connection's one-way delay."""

    t: Clock
    echo: Clock | None = None
    held: Held | None = None


class Ready(_Client, tag="ready"):
    """Ready for the next round (after the score sheet)."""


class NextRound(_Client, tag="next_round"):
    """Host, on the score sheet: deal the next round now (once half of the people are ready)."""


class AddBot(_Client, tag="add_bot"):
    strategy: str = "smart"
    level: str = "skilled"


class RemoveSeat(_Client, tag="remove_seat"):
    seat: int


class SetRules(_Client, tag="set_rules"):
    preset: str = "classic"
    options: dict[str, str | int | bool] = {}
    seats: int | None = None
    public: bool | None = None
    grace_s: float | None = None
    ready_s: float | None = None
    """On the score sheet, how long the others may take once the first person is ready."""
    arbitration: Literal["arrival", "fair"] | None = None
    window_ms: int | None = None
    rated: bool | None = None
    replays: str | None = None
    """Who may watch the replays: ``link`` or ``players`` (checked by the table: ``bad_replays``)."""


class Start(_Client, tag="start"):
    """Host: start the match (or a rematch once it is over)."""


class Leave(_Client, tag="leave"):
    """Give up the seat for good."""


class React(_Client, tag="react"):
    """A seated player's emote for the table (one of :data:`EMOTES`); not a game action."""

    emote: str


Position = Annotated[int, msgspec.Meta(ge=0, le=MAX_POSITION)]
"""A row position or a center pile's index as an aim names it (the table checks the range)."""
AimPile = Position | Literal["new"] | None
"""Where an aim points: a center pile by index, ``"new"`` (a new pile), or nowhere."""


class ShareAim(_Client, tag="share_aim"):
    """A seated player's choice to show their aim to the others (live presence, off until
    ``share`` is true).  Turned off, the aim they showed is cleared for everyone."""

    share: bool


class Aim(_Client, tag="aim"):
    """Which of the sender's own face-up cards is selected (``source`` and, for the row,
    ``position``; ``None``: nothing, the aim cleared) and the center pile it points at
    (``pile``: its index, ``"new"`` or ``None``).  Only shown after ``share_aim``, at a
    bounded rate; never an action: it changes no card and claims no pile.  Never a hand
    card: the hand is face down."""

    source: Literal["row", "stack", "discard"] | None = None
    position: Position = 0
    pile: AimPile = None


ClientMessage = (
    Hello | Act | Ping | Ready | NextRound | AddBot | RemoveSeat | SetRules | Start | Leave | React | ShareAim | Aim
)
CLIENT_MESSAGES: tuple[type[msgspec.Struct], ...] = (
    Hello,
    Act,
    Ping,
    Ready,
    NextRound,
    AddBot,
    RemoveSeat,
    SetRules,
    Start,
    Leave,
    React,
    ShareAim,
    Aim,
)
"""Every client message, in the order of docs/protocol.md."""
ACTION_MESSAGES: tuple[type[msgspec.Struct], ...] = (PlayMsg, TurnMsg, PlaceMsg, VoteMsg, WithdrawMsg)

_decoder = msgspec.json.Decoder(ClientMessage)


def decode(raw: bytes | str) -> ClientMessage:
    """Validate one client message; :class:`ProtocolError` says what is wrong."""
    return decoded(_decoder, raw)


T = TypeVar("T")


def decoded(decoder: msgspec.json.Decoder[T], raw: bytes | str) -> T:
    """One message of a socket validated by ``decoder`` (its union of messages): too
    large, malformed, of an unknown type or invalid is a :class:`ProtocolError` that says so."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes, this one has {size}")
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError as error:
        text = str(error)
        if "Invalid value" in text and "`$.type`" in text:
            raise ProtocolError("unknown_type", f"unknown message type ({text})") from None
        raise ProtocolError("invalid", f"invalid message: {text}") from None
    except msgspec.DecodeError as error:
        raise ProtocolError("malformed", f"malformed JSON: {error}") from None


def to_action(seat: int, message: ActionMsg) -> Action:
    """The engine action a message asks for, played by ``seat``."""
    card = None
    text = getattr(message, "card", None)
    if text is not None:
        try:
            card = CARDS[seat][parse_face(text)]
        except ValueError as error:
            raise ProtocolError("invalid", str(error)) from None
    if isinstance(message, PlayMsg):
        return Play(seat, Source[message.source.upper()], message.pile, message.position, card)
    if isinstance(message, PlaceMsg):
        return Place(seat, Source[message.source.upper()], message.column, card)
    turn, vote, withdraw = simple_actions(seat)
    if isinstance(message, TurnMsg):
        return turn
    if isinstance(message, VoteMsg):
        return vote
    return withdraw
