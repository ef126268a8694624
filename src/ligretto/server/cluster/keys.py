"""The service's names in Redis and its figures of time, once (docs/deploy.md)."""

from __future__ import annotations

LEASE_S = 1.5
"""A table's lease (and a process's heartbeat): the owner renews it every ``RENEW_S``; a
process that stops renewing loses its tables this long after its last renewal.  Short,
because a dead owner's tables wait that long (docs/benchmarks.md, "Several processes");
the renewals come from a thread of their own (``renewer.py``), so a busy event loop keeps
its leases, and a process that stalled past them anyway is fenced (``storewrite.fenced``):
a lease lost too early costs its players a reconnection, never a write."""
RENEW_S = LEASE_S / 3
"""How often a process renews its leases, beats its heartbeat and looks for tables whose
owner is gone."""
HEARD_S = 2 * LEASE_S
"""A process whose lobby word has not come for this long is taken for gone (it publishes
at least every ``RENEW_S``; two leases leave room for a loaded machine's late words)."""
FEED_S = 0.5
"""How often a process looks whether its public tables changed, to publish them (as often
as a lobby socket looks at the list it sends)."""

ANSWER_S = 1.0
"""How long a process waits for Redis's answer where someone waits on it: a new table (its
place, its code), a ``hello`` or a request for a table another process may own, the
readiness probe's ``PING`` (``/readyz``).  A Redis that hangs is taken for away past it, as
one that is stopped: 503 ``unavailable`` or ``moving``, 1013 (try again), not ready."""

TABLES = "ligretto:tables"
"""The set of every stored table of the service that is not dropped (taken over on failure)."""
PROCESSES = "ligretto:processes"
"""The set of process ids that have registered (a member whose heartbeat is gone is dead)."""
LOBBY = "ligretto:lobby"
"""The pub/sub channel of every process's public tables."""
SHEETS = "ligretto:sheets"
"""The pub/sub channel of the score keeper's sheets: each change as written, for every
process's live streams (``sheetfeed.py``)."""
RELAYED = "x-ligretto-relayed"
"""The header of a request or WebSocket one process carries to another (never carried on)."""


def table(code: str) -> str:
    """The key of a table's lease: its owner's process id."""
    return f"ligretto:table:{code}"


def tournament(id: str) -> str:
    """The key of a running tournament's lease: the id of the process that directs it
    (pairs its stages, ``web/director.py``), renewed by it every ``RENEW_S``."""
    return f"ligretto:tournament:{id}"


def process(id: str) -> str:
    """The key of a process's heartbeat: its id, address, tables and connections (JSON)."""
    return f"ligretto:process:{id}"


QUEUE = "ligretto:queue"
"""The hash of the matchmaking queue's tickets: id -> the ticket (JSON, ``queue.Ticket``)."""
SEATED = "ligretto:queue:seated"
"""The pub/sub channel of texts for a queue ticket's holder (its seats, ``redisqueue.py``)."""


def queue_kept(process: str) -> str:
    """The key that says the queue still holds what the process ``process`` put there: gone,
    Redis restarted empty, and the process puts its tickets back (``redisqueue.py``)."""
    return f"ligretto:queue:kept:{process}"


def party(code: str) -> str:
    """The key of a matchmaking party: holder id -> its member (JSON, ``queue.Member``)."""
    return f"ligretto:party:{code}"
