"""What a bot is given: one seat's window on the table, public information only.

A bot sees exactly what a human in its seat would see (RULES.md §9): every
row, the top and size of every Ligretto stack and discard pile, every hand's
size and every center pile.  :class:`Observation` answers those questions
straight from the authority's state, without copying it, because bots ask
after every action; it has no way to name a hand card, a stack card below the
top or a discard card below the top.  :meth:`Observation.view` gives the same
information as a plain value (slower; for bots that want everything at once).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ligretto.engine.actions import Action, Source
from ligretto.engine.cards import CARDS, Card
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.engine.views import RoundView, view


@mypyc_attr(allow_interpreted_subclasses=True)  # the client's MirrorObservation
class Observation:
    """Seat ``seat``'s view of a live round, read on demand."""

    __slots__ = ("__game", "seat")

    def __init__(self, game: Round, seat: int) -> None:
        self.__game = game
        self.seat = seat

    # --- the table --------------------------------------------------------------------

    @property
    def rules(self) -> RuleSet:
        return self.__game.rules

    @property
    def players(self) -> int:
        return self.__game.players

    @property
    def over(self) -> bool:
        return self.__game.ending is not None

    @property
    def center_size(self) -> int:
        """Cards in the center: it grows whenever anyone plays, so bots notice change."""
        return self.__game.center_size

    def pile_tops(self) -> list[tuple[int, int]]:
        """(colour, top number) of every center pile, in pile order."""
        game = self.__game
        return [(colour, len(seats)) for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True)]

    def others_visible_faces(self) -> set[int]:
        """Faces (``colour * 10 + number - 1``) that other seats could play now: the exposed
        row cards, stack tops and discard tops of every other seat."""
        faces: set[int] = set()
        for seat, area in enumerate(self.__game.areas):
            if seat != self.seat:
                faces.update(column[-1] for column in area.row)
                if area.stack:
                    faces.add(area.stack[-1])
                if area.discard:
                    faces.add(area.discard[-1])
        return faces

    def others_show(self, face: int) -> bool:
        """Whether another seat could play this face now (``face in others_visible_faces()``,
        without building the set)."""
        for seat, area in enumerate(self.__game.areas):
            if seat != self.seat and (
                (area.stack and area.stack[-1] == face)
                or (area.discard and area.discard[-1] == face)
                or any(column[-1] == face for column in area.row)
            ):
                return True
        return False

    def fits(self, card: Card) -> bool:
        """Whether a card of this face could go to the center now (a 1 always can)."""
        return bool(self.__game.wanted[card.colour * 10 + card.number - 1])

    def pile_wants(self, pile: int) -> int | None:
        """The face a center pile takes next, or ``None`` if it is complete."""
        top = len(self.__game.pile_seats[pile])
        return None if top == 10 else self.__game.pile_colours[pile] * 10 + top

    @property
    def piles(self) -> int:
        """How many center piles there are (a person scans them for where a card fits)."""
        return len(self.__game.pile_colours)

    @property
    def votes(self) -> int:
        return self.__game.votes

    def view(self) -> RoundView:
        """Everything this seat may see, as a plain value."""
        return view(self.__game, self.seat)

    # --- my own cards -----------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """What this seat may do now (computed from public information only)."""
        return self.__game.legal_actions(self.seat)

    def play_options(self) -> int:
        """How many (card, pile) plays this seat has now: every exposed row card, the stack top
        and the discard top, once for each pile it fits (the choices a person weighs)."""
        game = self.__game
        if game.ending is not None:
            return 0
        area = game.areas[self.seat]
        wanted = game.wanted
        options = 0
        for column in area.row:
            options += len(wanted[column[-1]])
        if area.stack:
            options += len(wanted[area.stack[-1]])
        if area.discard:
            options += len(wanted[area.discard[-1]])
        return options

    def row(self, seat: int | None = None) -> list[Card]:
        """The exposed card of every row column of ``seat`` (default: mine)."""
        seat = self.seat if seat is None else seat
        deck = CARDS[seat]
        return [deck[column[-1]] for column in self.__game.areas[seat].row]

    def column(self, position: int, seat: int | None = None) -> list[Card]:
        """Every card of a row column, bottom first (expert variant: all face up)."""
        seat = self.seat if seat is None else seat
        deck = CARDS[seat]
        return [deck[f] for f in self.__game.areas[seat].row[position]]

    def stack_top(self, seat: int | None = None) -> Card | None:
        seat = self.seat if seat is None else seat
        stack = self.__game.areas[seat].stack
        return CARDS[seat][stack[-1]] if stack else None

    def stack_size(self, seat: int | None = None) -> int:
        return len(self.__game.areas[self.seat if seat is None else seat].stack)

    def discard_top(self, seat: int | None = None) -> Card | None:
        seat = self.seat if seat is None else seat
        discard = self.__game.areas[seat].discard
        return CARDS[seat][discard[-1]] if discard else None

    def discard_size(self, seat: int | None = None) -> int:
        return len(self.__game.areas[self.seat if seat is None else seat].discard)

    def hand_size(self, seat: int | None = None) -> int:
        return len(self.__game.areas[self.seat if seat is None else seat].hand)

    def voted(self, seat: int | None = None) -> bool:
        return self.__game.areas[self.seat if seat is None else seat].voted

    def card_at(self, source: Source, position: int = 0) -> Card | None:
        """My card at a source: a row column's exposed card, the stack top or the discard top."""
        if source is Source.ROW:
            return self.row()[position]
        if source is Source.STACK:
            return self.stack_top()
        return self.discard_top()
