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

import re
import unicodedata
from typing import Any, Literal

import msgspec

from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote, Withdraw
from ligretto.engine.cards import CARDS, parse_face

VERSION = 1
MAX_MESSAGE_BYTES = 4096
MAX_NAME_LENGTH = 24
"""Characters of a display name as a person counts them (:func:`visible_length`)."""
MAX_NAME_CODE_POINTS = 64
"""The raw length of a display name: accents, emoji sequences and joiners add code points.
A subdivision flag takes 7, so a name of 24 characters may hold up to 6 of them; the cap
also keeps stacks of combining marks short.  Every name under it fits the browser's name
field (64 code points are at most 128 UTF-16 units, ``NAME_INPUT_MAX`` in storage.js)."""
JOINERS = frozenset("\u200c\u200d")
"""ZERO WIDTH NON-JOINER (Persian, Indic scripts) and ZERO WIDTH JOINER (emoji sequences
such as the family or the rainbow flag): format characters a name may hold between two
characters."""
KEEPALIVE_S = 2.0
"""The heartbeat (docs/protocol.md, Heartbeats): a client pings whenever it has sent
nothing for this long (the browser pings every second anyway)."""
SILENCE_S = 6.0
"""The server's default ``Settings.silence_s``: a connection that sent nothing for this
long (no message, not even a ping) counts as gone."""
SILENT = 4002
"""The close code of a connection that said nothing for the server's ``silence_s``."""
EMOTES = ("\U0001f44d", "\U0001f62e", "\U0001f602", "\U0001f605", "\U0001f389")
"""The reactions a player may send (``react``): thumbs up, surprised, tears of joy,
sweat smile, party popper.  A fixed list, so no client can send text to the table;
the browser gets it from ``GET /api/emotes``."""
REACTION_LIMITS = ((1, 1.0), (5, 10.0))
"""At most 1 reaction a second and 5 in 10 seconds per connection: (count, seconds)."""
TAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
"""An emoji tag sequence: a subdivision flag such as England's, Scotland's or Wales's is
WAVING BLACK FLAG, tag characters spelling the region (``gbeng``), then CANCEL TAG.  Tag
characters (U+E0000-U+E007F, format characters) are allowed in such a sequence only."""


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


class React(_Client, tag="react"):
    """A seated player's emote for the table (one of :data:`EMOTES`); not a game action."""

    emote: str


ClientMessage = Hello | Act | Ping | Ready | AddBot | RemoveSeat | SetRules | Start | Leave | React


# --- HTTP request bodies -----------------------------------------------------------------


class CreateTutorial(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/tutorial``: the learner's display name (checked as in ``hello``)."""

    name: str = "You"


class CreateTable(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/tables``: every field optional.  ``bots`` seats bots
    (``strategy:level``) at once; ``start`` starts the match as soon as the first person
    takes a seat (play now: one request, one ``hello``, and the round is dealt).
    ``grace_s`` ``None`` is the server's default."""

    seats: int = 4
    preset: str = "classic"
    options: dict[str, str | int | bool] = {}
    public: bool = False
    grace_s: float | None = None
    bots: list[str] = []
    start: bool = False


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


_REFUSED = {
    "Cc": "control characters",
    "Cf": "invisible formatting characters",
    "Cs": "unpaired surrogates",
    "Co": "unassigned or private-use characters",
    "Cn": "unassigned or private-use characters",
}
"""The Unicode categories (C*) a name may not hold, joiners aside, and what to call them."""


def check_name(name: str | None) -> str:
    """A display name, trimmed: 1-24 characters as a person counts them, at most 64 code
    points, no control or format characters except a joiner between two characters and
    the tag characters of a subdivision flag (so no name is invisible, and none reads as
    another through a right-to-left override)."""
    if name is None or not name.strip():
        raise ProtocolError("bad_name", "a display name is required")
    name = name.strip()
    if len(name) > MAX_NAME_CODE_POINTS:
        raise ProtocolError(
            "bad_name", f"names are limited to {MAX_NAME_CODE_POINTS} code points (accents and emoji count several)"
        )
    flag_tags = {i for match in TAG_SEQUENCE.finditer(name) for i in range(match.start() + 1, match.end())}
    for index, ch in enumerate(name):
        if ch in JOINERS:
            if not _joins(name, index):
                raise ProtocolError("bad_name", "a zero-width joiner or non-joiner must stand between two characters")
        elif _is_tag(ch):
            if index not in flag_tags:
                raise ProtocolError("bad_name", "tag characters may only spell a flag such as England's")
        elif (kind := _REFUSED.get(unicodedata.category(ch))) is not None:
            raise ProtocolError("bad_name", f"names may not contain {kind}")
    visible = visible_length(name)
    if visible == 0:
        raise ProtocolError("bad_name", "a display name needs a visible character")
    if visible > MAX_NAME_LENGTH:
        raise ProtocolError("bad_name", f"names are limited to {MAX_NAME_LENGTH} characters")
    return name


def visible_length(name: str) -> int:
    """Roughly the characters a person sees: code points other than combining marks,
    variation selectors (U+FE00-U+FE0F), joiners and tag characters (a subdivision flag
    counts one, its black flag)."""
    return sum(1 for ch in name if not _invisible(ch))


def _invisible(ch: str) -> bool:
    return ch in JOINERS or "\ufe00" <= ch <= "\ufe0f" or _is_tag(ch) or unicodedata.category(ch).startswith("M")


def _is_tag(ch: str) -> bool:
    """A character of the Tags block (U+E0000-U+E007F): LANGUAGE TAG, the tag letters and CANCEL TAG."""
    return "\U000e0000" <= ch <= "\U000e007f"


def _joins(name: str, index: int) -> bool:
    """The joiner at ``index`` stands between two characters: not at an end, not beside a
    space or another joiner."""
    if not 0 < index < len(name) - 1:
        return False
    return all(name[i] not in JOINERS and not name[i].isspace() for i in (index - 1, index + 1))


def check_emote(emote: str) -> str:
    """One of :data:`EMOTES`, else :class:`ProtocolError` ``bad_emote``."""
    if emote not in EMOTES:
        raise ProtocolError("bad_emote", f"unknown emote: reactions are one of {' '.join(EMOTES)}")
    return emote


class ReactionLimit:
    """The reactions one connection sent lately: :data:`REACTION_LIMITS` (count, seconds)
    is how many may fall in any window that long.  ``now`` is passed in (monotonic)."""

    __slots__ = ("sent",)

    def __init__(self) -> None:
        self.sent: list[float] = []

    def allow(self, now: float) -> bool:
        """Whether one more reaction may go now; if so, it is counted."""
        longest = max(seconds for _, seconds in REACTION_LIMITS)
        self.sent = [t for t in self.sent if now - t < longest]
        for count, seconds in REACTION_LIMITS:
            if sum(1 for t in self.sent if now - t < seconds) >= count:
                return False
        self.sent.append(now)
        return True


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
