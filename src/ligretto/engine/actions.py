"""What a player can do: the actions, as small immutable values.

Every action names its player (seat).  Plays name the center pile they aim at
(``pile=None`` starts a new pile with a 1), so a play that lost a race is
simply refused: its pile no longer fits.  An action may also name the card the
player means (``card``); if that card is no longer at the source the action is
refused instead of playing another card by surprise.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from ligretto.engine.cards import Card


class Source(enum.IntEnum):
    """Where a played card comes from."""

    ROW = 0
    STACK = 1
    DISCARD = 2


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card to the center: from a row position, the stack top or the discard top."""

    player: int
    source: Source
    pile: int | None
    """Index of the center pile aimed at, or ``None`` to start a new pile with a 1."""
    position: int = 0
    """Row position (column) for ``Source.ROW``; ignored otherwise."""
    card: Card | None = None
    """The card the player means, if they say; checked before anything moves."""


@dataclass(frozen=True, slots=True)
class Turn:
    """Turn the hand: the top 3 cards (fewer per ``short_turn``) onto the discard pile."""

    player: int


@dataclass(frozen=True, slots=True)
class Place:
    """Expert variant: put the stack top or discard top onto a row column (one lower, other colour)."""

    player: int
    source: Source
    column: int
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class Vote:
    """Vote to end the round as a stalemate."""

    player: int


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Withdraw one's stalemate vote."""

    player: int


Action = Play | Turn | Place | Vote | Withdraw


@functools.cache
def simple_actions(player: int) -> tuple[Turn, Vote, Withdraw]:
    """``player``'s :class:`Turn`, :class:`Vote` and :class:`Withdraw`, one of each per player
    for everyone (they are values): a round logs every action it is given, and a server's
    rounds log tens of turns a seat (issue 31: a new one per message was 0.9 KB a connection)."""
    return Turn(player), Vote(player), Withdraw(player)
