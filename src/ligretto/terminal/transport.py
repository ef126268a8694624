"""What the app needs from a transport: its client session, start delivering server
messages, send client messages, close.  ``local.LocalGame`` and ``remote.RemoteTable``
are the two."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ligretto.client.clocksync import ClockSync
from ligretto.client.session import Session

Deliver = Callable[[dict[str, Any]], None]
"""Hands one server message (docs/protocol.md) to the client; safe to call from the loop."""


class Transport(Protocol):
    """Carries protocol messages between the app and a table."""

    description: str
    """One line for the title bar, e.g. ``local match`` or the server's address."""
    site: str | None
    """The server's page address for links to its pages (``http://127.0.0.1:8000``; a
    round's replay is ``SITE/#/replay/TOKEN``); ``None`` without a server."""
    session: Session
    """The client's session at the table: the app's model feeds it every server message
    (in the order the app handles them) and reads its state; a connection's ``hello``
    comes from it."""

    def start(self, deliver: Deliver, clock: ClockSync) -> None:
        """Begin (on the running event loop): from now on every server message goes to
        ``deliver``; what leaves is stamped by ``clock`` (the model's clock sync), and the
        transport pings for as long as it runs (``clocksync``'s schedule)."""

    def send(self, message: dict[str, Any]) -> None:
        """Send one client message (``act``, ``ready``, ``start``, ``add_bot``, ...)."""

    async def close(self) -> None:
        """Stop: leave the table's connection, cancel what runs in the background."""
