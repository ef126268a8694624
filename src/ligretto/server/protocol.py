"""The wire protocol (version 1): typed JSON messages over one WebSocket.

Every message is a JSON object with a ``type``.  Messages from clients are
decoded and validated on arrival by msgspec into the structs below; anything
else (malformed JSON, an unknown type, a missing or mistyped field, unknown
fields) becomes a :class:`ProtocolError` with a clear message and never
reaches a table.  Messages to clients are built by the ``*_message``
functions from public information only (views and events of the engine).
``docs/protocol.md`` documents every message with examples.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Literal

import msgspec

from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote, Withdraw
from ligretto.engine.cards import CARDS, parse_face

VERSION = 1
MAX_MESSAGE_BYTES = 4096
MAX_NAME_LENGTH = 24


class ProtocolError(ValueError):
    """A client message that cannot be accepted; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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


class Act(_Client, tag="act"):
    """A game action; ``id`` is the client's own id, echoed in the acknowledgement."""

    id: str | int
    action: ActionMsg


class Ping(_Client, tag="ping"):
    """Clock sync: the server answers with its own time."""

    t: float


class Ready(_Client, tag="ready"):
    """Ready for the next round (after the score sheet)."""


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


class Start(_Client, tag="start"):
    """Host: start the match (or a rematch once it is over)."""


class Leave(_Client, tag="leave"):
    """Give up the seat for good."""


ClientMessage = Hello | Act | Ping | Ready | AddBot | RemoveSeat | SetRules | Start | Leave

_decoder = msgspec.json.Decoder(ClientMessage)
encode = msgspec.json.Encoder().encode


class Broadcast(dict[str, Any]):
    """A server message that every listener of a table receives as it is (a ``table``
    message, ``events``, ``go``, ``round_over``): :func:`wire` encodes it once, for the
    first connection that sends it, and the others send the same text.  Never changed
    once made."""

    __slots__ = ("_text",)

    def text(self) -> str:
        try:
            return self._text
        except AttributeError:
            self._text: str = encode(self).decode()
            return self._text


def wire(message: dict[str, Any]) -> str:
    """A server message as it goes out: one JSON text (a text frame)."""
    if type(message) is Broadcast:
        return message.text()
    return encode(message).decode()


def decode(raw: bytes | str) -> ClientMessage:
    """Validate one client message; :class:`ProtocolError` says what is wrong."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes, this one has {size}")
    try:
        return _decoder.decode(raw)
    except msgspec.ValidationError as error:
        text = str(error)
        if "Invalid value" in text and "`$.type`" in text:
            return _unknown_type(text)
        raise ProtocolError("invalid", f"invalid message: {text}") from None
    except msgspec.DecodeError as error:
        raise ProtocolError("malformed", f"malformed JSON: {error}") from None


def _unknown_type(text: str) -> ClientMessage:
    raise ProtocolError("unknown_type", f"unknown message type ({text})")


def check_name(name: str | None) -> str:
    """A display name: 1-24 characters, no control characters, trimmed."""
    if name is None or not name.strip():
        raise ProtocolError("bad_name", "a display name is required")
    name = name.strip()
    if len(name) > MAX_NAME_LENGTH:
        raise ProtocolError("bad_name", f"names are limited to {MAX_NAME_LENGTH} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ProtocolError("bad_name", "names may not contain control characters")
    return name


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
    if isinstance(message, TurnMsg):
        return Turn(seat)
    if isinstance(message, VoteMsg):
        return Vote(seat)
    return Withdraw(seat)


# --- server messages ---------------------------------------------------------------------


def error_message(code: str, message: str, id: str | int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if id is not None:
        data["id"] = id
    return data
