"""``ligretto serve``'s options, in one place: :class:`Settings`, read by the app's
assembly, the lobby, the sockets and the command line."""

from __future__ import annotations

from dataclasses import dataclass

from ligretto.protocol import HELLO_S, LOBBY_TABLES, SILENCE_S
from ligretto.protocol.limits import QUEUE_COUNTDOWN_S
from ligretto.server.table.timing import ABANDONED_S, CATCH_UP_S, COUNTDOWN_S, DESERTED_S
from ligretto.server.web import limits


@dataclass(slots=True)
class Settings:
    """Server settings (``ligretto serve`` options)."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: str = "ligretto.db"
    countdown_s: float = COUNTDOWN_S
    queue_countdown_s: float = QUEUE_COUNTDOWN_S
    """Seconds the oldest of a group in the matchmaking queue waits at most before its
    table starts with bots in the empty seats (``server/cluster/grouping.py``)."""
    rate_per_s: float = 20.0
    """Sustained messages per second a connection may send."""
    burst: int = 40
    """Messages a connection may send at once before the rate applies."""
    cool_down_s: float = 2.0
    """Seconds a ``hello`` with a seat's token is held after the rate limit closed a
    connection of that seat: the time the burst takes to come back at ``rate_per_s``."""
    abandoned_s: float = ABANDONED_S
    """Seconds after which a table in its lobby or with its match over, whose seated people
    are all away, is closed and dropped (spectators do not count)."""
    deserted_s: float = DESERTED_S
    """Seconds after which a table with a match on, or with no person in any seat, that no
    seated person is connected to is closed and dropped (its match abandoned)."""
    catch_up_s: float = CATCH_UP_S
    """After a restart, the longest a restored round waits for its people before its fresh
    countdown (``Table.resume``)."""
    silence_s: float = SILENCE_S
    """Seconds without any message from a client after which its connection counts as gone
    (within a quarter of it more, at most 1 s): it is closed (code 4002) and its seat is
    away, as for a closed socket (clients ping)."""
    # --- admission control (docs/protocol.md, Limits; server/web/limits.py); 0: no limit ---
    hello_s: float = HELLO_S
    """Seconds after it opens by which a ``/ws`` connection must have joined a table
    (``hello``), else it is closed (code 4003)."""
    max_connections: int = limits.MAX_CONNECTIONS
    """Open WebSockets (``/ws`` and ``/ws/lobby``) in all; one more is refused (503)."""
    connections_per_address: int = limits.CONNECTIONS_PER_ADDRESS
    """Open WebSockets from one client address; one more is refused (429)."""
    tables_per_minute: int = limits.TABLES_PER_MINUTE
    """Tables (and tutorials) one client address may create in any 60 seconds (429)."""
    lobby_tables: int = LOBBY_TABLES
    """Tables in a lobby list at most (``GET /api/tables``, ``/ws/lobby``)."""
    request_timeout_s: float = limits.REQUEST_TIMEOUT_S
    """Seconds an HTTP request may take to arrive whole (line, headers, body), counted from
    the connection's opening or the previous response (``server/web/httpdeadline.py``)."""
    max_header_bytes: int = limits.MAX_HEADER_BYTES
    """Bytes of an HTTP request line and headers at most (400 beyond)."""
    keep_alive_s: int = limits.KEEP_ALIVE_S
    """Seconds an idle HTTP keep-alive connection stays open (uvicorn's ``timeout_keep_alive``)."""
    # --- several processes as one service (docs/deploy.md) ---
    redis: str | None = None
    """``redis://HOST:PORT/N``: this process is one of a service sharing that Redis
    (``server/cluster/``); ``None``: one process on its own, today's server."""
    advertise: str | None = None
    """The address the service's other processes reach this one at (default
    ``http://HOST:PORT`` of ``host`` and ``port``)."""
    start_grace_s: float | None = None
    """With ``redis``: seconds after its start before this process first takes stored or
    orphaned tables (``None``: one renewal, ``keys.RENEW_S``; a test machine under load
    gives the processes it starts together more)."""
    forwarded_allow_ips: str = "127.0.0.1"
    """The peers (a reverse proxy, the service's other processes) whose ``X-Forwarded-For``
    names the client (uvicorn's ``forwarded_allow_ips``): the address limits count it."""
