"""The phase of a table (docs/protocol.md, "The phases of a table"): the one definition
the wire and every client share.

The ``table`` message and the HTTP API's table bodies carry it; msgspec writes a
:class:`Phase` as its value and reads the value back into it, so on the wire it is the
plain string it always was (``"lobby"``).  The server's table keeps its phase in it too
(``server/table/rounds.py``): there is no other definition.
"""

from __future__ import annotations

import enum


class Phase(enum.StrEnum):
    """Where a table is in its match."""

    LOBBY = "lobby"
    """Seats fill; the host sets the rules and adds bots."""
    COUNTDOWN = "countdown"
    """A round has been dealt; play starts at ``start_at`` (the ``go``)."""
    PLAYING = "playing"
    """The round is on."""
    SCORING = "scoring"
    """The round's score sheet is shown; every seated person sends ``ready``."""
    OVER = "over"
    """The match is over; the host may start a rematch."""
