"""The protocol's figures: its version, the size of a message, the heartbeat, the close
codes, the emotes and how often a connection may send one, how often a seat's aim is
relayed and how long it is shown, the length of a lobby list (docs/protocol.md,
Heartbeats and Limits, ``aim``)."""

from __future__ import annotations

from ligretto.protocol.errors import ProtocolError

VERSION = 1
MAX_MESSAGE_BYTES = 4096
MAX_FRAME_BYTES = 64 * 1024
"""The largest WebSocket frame the server reads (uvicorn's ``ws_max_size``): a longer one
closes the connection (1009, message too big); one up to this size but over
``MAX_MESSAGE_BYTES`` is refused unparsed (``too_large``)."""
KEEPALIVE_S = 2.0
"""The heartbeat (docs/protocol.md, Heartbeats): a client pings whenever it has sent
nothing for this long (the browser pings every second anyway)."""
SILENCE_S = 6.0
"""The server's default ``Settings.silence_s``: a connection that sent nothing for this
long (no message, not even a ping) counts as gone."""
SILENT = 4002
"""The close code of a connection that said nothing for the server's ``silence_s``."""
HELLO_S = 10.0
"""The server's default ``Settings.hello_s``: a connection that has not joined a table
(a ``hello`` answered by ``welcome``) this long after it opened is closed."""
NO_HELLO = 4003
"""The close code of a connection that did not join a table within the server's ``hello_s``."""
TRY_AGAIN = 1013
"""The close code of a connection the server cannot serve right now (over its caps where it
cannot refuse before the upgrade; a table being taken over, or whose owner cannot be
reached): the clients reconnect, as after any drop, and say ``hello`` again."""
MOVED = 1012
"""The close code of a connection whose table moved to another process of the service (a
lost lease, a handover to rebalance, an owner that died under a relayed socket)."""
STALLED = 4004
"""The close code of a ``/ws/lobby`` socket whose client took no list for the server's
``silence_s`` (it stopped reading)."""
LOBBY_TABLES = 50
"""At most this many tables in a lobby list (``GET /api/tables``, ``/ws/lobby``), with the
number of public tables in all: the message stays a few kilobytes however many there are."""
MAX_ID_LENGTH = 64
"""The longest ``id`` of an ``act`` as a string; as a number it is a whole number of at
most 2^53 in size (what a JavaScript number holds exactly)."""
MAX_ID = 2**53
MAX_CLOCK = 1e15
"""The largest ``t`` of a ``ping`` in size: any clock in seconds or milliseconds since 1970
fits, infinity does not (a ``pong`` could not carry it back)."""
MAX_POSITION = 1000
"""The largest row position a message may name (a table checks its own row's size)."""
MAX_HELD_S = 60.0
"""The longest ``held`` of a ``ping``: a pong kept longer tells nothing of the round trip."""
EMOTES = ("\U0001f44d", "\U0001f62e", "\U0001f602", "\U0001f605", "\U0001f389")
"""The reactions a player may send (``react``): thumbs up, surprised, tears of joy,
sweat smile, party popper.  A fixed list, so no client can send text to the table;
the browser gets it from ``GET /api/emotes``."""
REACTION_LIMITS = ((1, 1.0), (5, 10.0))
AIMS_PER_S = 8
"""At most this many aims of one seat are relayed a second (``aim``, live presence): the
latest waits for its turn, the ones it replaced are never sent."""
AIM_FADE_S = 3.0
"""A client stops showing an opponent's aim after this long without news of it (a
sender refreshes an aim it still holds within it)."""
"""At most 1 reaction a second and 5 in 10 seconds per connection: (count, seconds)."""


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


QUEUE_COUNTDOWN_S = 30.0
"""How long the oldest ticket of a group in the matchmaking queue waits at most before its
table starts with bots in the empty seats (``ligretto serve --queue-countdown``)."""
