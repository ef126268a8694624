"""Who may watch a table's replays (docs/protocol.md, "Replays"): every finished round has
a share token, made when the round is dealt and told to the table only in its
``round_over``; the table's setting ``replays`` says who may use it.

``link`` (the default): anyone with the link.  ``players``: only the players of that
round's match, known by a profile that sat in the match (``Authorization: Bearer
<secret>``) or by the token of one of the match's seats (``?seat=<token>``).  The setting
and the seats are the match's, as the history filed them when it started
(``history.watchers_of``): changing the setting later does not open or close the
replays of matches already played.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Collection

from ligretto.server.table.seats import TableError

__all__ = ["Replays", "check_replays", "may_watch", "new_replay_token"]


class Replays(enum.StrEnum):
    """Who may watch the replays of a table's rounds."""

    LINK = "link"
    """Anyone who has a round's share link."""
    PLAYERS = "players"
    """Only the players of the round's match."""


def check_replays(value: str | None, base: Replays = Replays.LINK) -> Replays:
    """The setting asked for (``None``: ``base``), else :class:`TableError` ``bad_replays``."""
    if value is None:
        return base
    try:
        return Replays(value)
    except ValueError:
        choices = ", ".join(f"'{choice.value}'" for choice in Replays)
        raise TableError("bad_replays", f"replays are {choices}, not {value!r}") from None


def new_replay_token() -> str:
    """A round's share token: unguessable (128 random bits), part of its share link."""
    return secrets.token_urlsafe(16)


def may_watch(
    setting: Replays,
    *,
    profile: str | None,
    seat_token: str | None,
    players: Collection[str],
    seat_tokens: Collection[str],
) -> bool:
    """Whether a request may watch a round: always at a ``link`` table; at a ``players``
    table only with the live profile (``profile``, its id: ``None`` for none) of one of the
    match's ``players`` or the token of one of its seats (``seat_token`` among
    ``seat_tokens``: both as the store keeps them, SHA-256)."""
    if setting is Replays.LINK:
        return True
    if profile is not None and profile in players:
        return True
    return seat_token is not None and seat_token in seat_tokens
