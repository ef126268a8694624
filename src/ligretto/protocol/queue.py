"""The matchmaking queue on the wire (``/ws/queue``, docs/protocol.md "The queue"): what a
client sends to wait for a table with people (:func:`decode_queue` validates it, as
``client.decode`` does the table's messages) and what the server tells it while it waits
and once it has a seat."""

from __future__ import annotations

from typing import Annotated

import msgspec

from ligretto.protocol.client import Ping, decoded

MAX_SEATS = 12
Seats = Annotated[int, msgspec.Meta(ge=2, le=MAX_SEATS)]
PARTY_MAX = MAX_SEATS
"""The most people a party holds (the biggest table's seats): one more is ``party_full``."""


class _Client(msgspec.Struct, forbid_unknown_fields=True, tag_field="type"):
    pass


class Queue(_Client, tag="queue"):
    """Wait for a table of ``seats`` seats with the rules of ``preset``, with people of
    about one's rating (``profile``: the profile's secret, whose rating and name count; a
    guest has the default rating).  One ticket per connection."""

    v: int
    seats: Seats = 4
    preset: str = "classic"
    name: str | None = None
    profile: str | None = None


class Unqueue(_Client, tag="unqueue"):
    """Stop waiting (closing the socket does too)."""


class PartyMake(_Client, tag="party_make"):
    """Make a party of friends seated together: its code comes back in ``party``; friends
    join it with ``party_join``, and this socket's ``queue`` then queues them all."""

    v: int
    name: str | None = None
    profile: str | None = None


class PartyJoin(_Client, tag="party_join"):
    """Join a friend's party by its code (before it queues)."""

    v: int
    code: Annotated[str, msgspec.Meta(max_length=64)]
    name: str | None = None
    profile: str | None = None


QueueMessage = Queue | Unqueue | PartyMake | PartyJoin | Ping
QUEUE_MESSAGES: tuple[type[msgspec.Struct], ...] = (Queue, Unqueue, PartyMake, PartyJoin)
"""Every message a client sends on ``/ws/queue`` (and ``ping``, a keepalive there)."""

_decoder = msgspec.json.Decoder(QueueMessage)


def decode_queue(raw: bytes | str) -> QueueMessage:
    """Validate one ``/ws/queue`` message; :class:`ProtocolError` says what is wrong."""
    return decoded(_decoder, raw)


class _Server(msgspec.Struct, forbid_unknown_fields=True, tag_field="type"):
    pass


class Queued(_Server, tag="queued"):
    """How the wait goes (sent when it changes): the ticket's group has ``people`` of the
    ``seats`` (the client's own included), ``waiting`` people wait for such tables in all,
    and the table starts in ``starts_in`` seconds at the latest (the empty seats then go
    to bots of about the group's rating)."""

    seats: int
    preset: str
    people: int
    waiting: int
    starts_in: float


class Seated(_Server, tag="seated"):
    """The table is dealt: join it with ``hello`` ``{code, token}`` on ``/ws`` (the seat is
    held for the table's grace period, then a stand-in plays it)."""

    code: str
    seat: int
    token: str


class Party(_Server, tag="party"):
    """A party's members now, in the order they came (the maker first), sent to each of
    them whenever one comes or goes."""

    code: str
    members: list[str]


def queued_message(seats: int, preset: str, people: int, waiting: int, starts_in: float) -> Queued:
    return Queued(seats, preset, people, waiting, round(max(0.0, starts_in), 1))


def seated_message(code: str, seat: int, token: str) -> Seated:
    return Seated(code, seat, token)
