"""What a player, or a spectator, may see (RULES.md §9).

A view is built from public information only: every row card, the top and
size of every Ligretto stack, the top and size of every discard pile, the size
of every hand and every center pile.  Hand order, stack cards below the top and
discard cards below the top never enter a view, for anyone, owner included;
so a player's view and a spectator's view differ only in ``viewer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ligretto.engine.cards import CARDS, Back, Card, Colour
from ligretto.engine.events import Ending, Outcome
from ligretto.engine.state import Round


@dataclass(frozen=True, slots=True)
class AreaView:
    """One player's cards as anyone may see them."""

    seat: int
    back: Back
    row: tuple[tuple[Card, ...], ...]
    """Row columns, bottom card first; the last card of a column is the exposed one."""
    stack_top: Card | None
    stack_size: int
    discard_top: Card | None
    discard_size: int
    hand_size: int
    voted: bool


@dataclass(frozen=True, slots=True)
class PileView:
    """A center pile: one colour, from 1 up to ``top``; ``backs`` says whose card each one is."""

    index: int
    colour: Colour
    top: int
    backs: tuple[Back, ...]

    @property
    def complete(self) -> bool:
        return self.top == 10


@dataclass(frozen=True, slots=True)
class RoundView:
    """The table as seen from ``viewer`` (a seat, or ``None`` for a spectator)."""

    viewer: int | None
    players: int
    areas: tuple[AreaView, ...]
    center: tuple[PileView, ...]
    outcome: Outcome | None
    """How the round ended (``None`` while it is being played)."""

    @property
    def ending(self) -> Ending | None:
        return None if self.outcome is None else self.outcome.ending

    @property
    def stopped_by(self) -> int | None:
        return None if self.outcome is None else self.outcome.stopped_by

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "viewer": self.viewer,
            "players": self.players,
            **(_NO_OUTCOME if self.outcome is None else self.outcome.to_dict()),
            "areas": [
                {
                    "seat": a.seat,
                    "back": _back(a.back),
                    "row": [[_card(c) for c in column] for column in a.row],
                    "stack_top": _card(a.stack_top),
                    "stack_size": a.stack_size,
                    "discard_top": _card(a.discard_top),
                    "discard_size": a.discard_size,
                    "hand_size": a.hand_size,
                    "voted": a.voted,
                }
                for a in self.areas
            ],
            "center": [
                {"index": p.index, "colour": p.colour.name.lower(), "top": p.top, "backs": [b.seat for b in p.backs]}
                for p in self.center
            ],
        }


_NO_OUTCOME = {"ending": None, "stopped_by": None}


def _card(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _back(back: Back) -> dict[str, str]:
    return {"box": back.box.name.lower(), "symbol": back.symbol.name.lower()}


def view(game: Round, viewer: int | None = None) -> RoundView:
    """What ``viewer`` may see; ``None`` is a spectator."""
    if viewer is not None and not 0 <= viewer < game.players:
        raise ValueError(f"no seat {viewer} at a table of {game.players}")
    areas = []
    for seat, area in enumerate(game.areas):
        deck = CARDS[seat]
        areas.append(
            AreaView(
                seat=seat,
                back=Back.for_seat(seat),
                row=tuple(tuple(deck[f] for f in column) for column in area.row),
                stack_top=deck[area.stack[-1]] if area.stack else None,
                stack_size=len(area.stack),
                discard_top=deck[area.discard[-1]] if area.discard else None,
                discard_size=len(area.discard),
                hand_size=len(area.hand),
                voted=area.voted,
            )
        )
    center = tuple(
        PileView(index, Colour(colour), len(seats), tuple(Back.for_seat(s) for s in seats))
        for index, (colour, seats) in enumerate(zip(game.pile_colours, game.pile_seats, strict=True))
    )
    return RoundView(
        viewer=viewer,
        players=game.players,
        areas=tuple(areas),
        center=center,
        outcome=game.outcome,
    )
