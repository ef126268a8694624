"""One dispatcher from a decoded client message to a table call, for every transport.

The WebSocket endpoint (``server.app``) and local play (``terminal.local``) hand each
message a client sent, once ``protocol.decode`` has validated it, to :func:`dispatch`,
with the client's :class:`Client` state (its table, its seat, its reaction limit), so
local play supports every command the server does, in the same way.  A refusal is raised
(``ProtocolError`` or ``TableError``, each with a code and a message for the client) and
changes nothing; the caller answers it as an ``error``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from ligretto import protocol
from ligretto.protocol import ProtocolError
from ligretto.server.table.latency import Latency
from ligretto.server.table.table import Table, TableError

FindTable = Callable[[str], Table | None]
"""The table of an invite code (``None``: none), for ``hello``."""

FindProfile = Callable[[str], tuple[str, str] | None]
"""The id and display name of the profile of a secret (``None``: none), for ``hello``."""


class Client(Protocol):
    """One client's end of a table: a WebSocket connection, or the person in local play.
    It is the table's listener once it has joined."""

    seat: int | None
    table: Table | None
    reactions: protocol.ReactionLimit
    latency: Latency
    """Its round trips as the server measures them, from its pings (local play's: next to none)."""

    def send(self, message: protocol.Outgoing) -> None: ...

    def detach(self) -> None: ...


def no_table(code: str) -> Table | None:
    """For a client that is at its table from the start (local play): no other table."""
    return None


def no_profile(secret: str) -> tuple[str, str] | None:
    """Where no profiles are kept (local play, a server without a database): none."""
    return None


def dispatch(
    client: Client,
    message: protocol.ClientMessage,
    find_table: FindTable = no_table,
    *,
    now: Callable[[], float] = time.monotonic,
    find_profile: FindProfile = no_profile,
) -> None:
    """Carry out one client message at the client's table (``now`` is the clock of the
    reaction limit)."""
    if isinstance(message, protocol.Ping):
        server_t = time.time()
        measured = client.latency.pinged(message.echo, message.held, server_t) is not None
        if measured and client.table is not None and client.seat is not None:
            client.table.judge.measured(client.seat, client.latency.one_way)
        client.latency.ponged(server_t)
        client.send(protocol.pong_message(message.t, server_t))
        return
    if isinstance(message, protocol.Hello):
        hello(client, message, find_table, find_profile)
        return
    table = client.table
    if table is None:
        raise ProtocolError("not_joined", "say hello first: join a table by its code")
    if table.closed:
        raise ProtocolError("no_table", "this table was closed")
    seat = client.seat
    if isinstance(message, protocol.Act):
        if seat is None:
            raise TableError("not_seated", "spectators cannot play")
        table.act(
            seat, protocol.to_action(seat, message.action), message.id, sent=message.t, delay=client.latency.one_way
        )
    elif isinstance(message, protocol.Ready):
        table.ready(seat)
    elif isinstance(message, protocol.NextRound):
        table.next_round(seat)
    elif isinstance(message, protocol.AddBot):
        table.add_bot(seat, f"{message.strategy}:{message.level}")
    elif isinstance(message, protocol.RemoveSeat):
        table.remove_seat(seat, message.seat)
    elif isinstance(message, protocol.SetRules):
        table.set_rules(
            seat,
            preset=message.preset,
            options=dict(message.options),
            seats=message.seats,
            public=message.public,
            grace_s=message.grace_s,
            ready_s=message.ready_s,
            arbitration=message.arbitration,
            window_ms=message.window_ms,
            rated=message.rated,
            replays=message.replays,
        )
    elif isinstance(message, protocol.Start):
        table.start(seat)
    elif isinstance(message, protocol.React):
        react(table, client, message, now())
    elif isinstance(message, protocol.Aim):
        table.aim(seat, message.source, message.position, message.pile)
    elif isinstance(message, protocol.ShareAim):
        table.share_aim(seat, message.share)
    elif isinstance(message, protocol.Leave) and seat is not None:
        table.leave(seat)


def react(table: Table, client: Client, message: protocol.React, now: float) -> None:
    """An emote: from a seat, one of the list, within the client's reaction limit."""
    if client.seat is None:
        raise TableError("not_seated", "spectators cannot react")
    emote = protocol.check_emote(message.emote)
    if not client.reactions.allow(now):
        raise ProtocolError("too_fast", "at most 1 reaction a second and 5 in 10 seconds")
    table.react(client.seat, emote)


def hello(
    client: Client, message: protocol.Hello, find_table: FindTable, find_profile: FindProfile = no_profile
) -> None:
    """Join a table by its code: a free seat by name, one's own seat by its token, or watch.
    With a profile's secret, a seat taken by name is linked to the profile (by the
    profile's name if the hello has none); a secret of no profile refuses the hello."""
    if client.table is not None:
        raise ProtocolError("already_joined", "this connection has already joined a table")
    if message.v != protocol.VERSION:
        raise ProtocolError("bad_version", f"this server speaks protocol version {protocol.VERSION}")
    profile = None if message.profile is None else find_profile(message.profile)
    if message.profile is not None and profile is None:
        raise ProtocolError("bad_profile", "no profile has this secret (deleted, or never made here)")
    table = find_table(message.code)
    if table is None or table.closed:
        raise ProtocolError("no_table", "there is no table with that code")
    if message.watch:
        table.watch(client, None if profile is None else profile[0], message.token)
    elif message.token is not None:
        table.rejoin(client, message.token)
    elif profile is not None:
        profile_id, profile_name = profile
        table.join(client, protocol.check_name(message.name or profile_name), profile_id)
    else:
        table.join(client, protocol.check_name(message.name))
    client.table = table
