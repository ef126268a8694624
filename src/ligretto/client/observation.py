"""A bot's window on a client's :class:`~ligretto.client.mirror.Mirror`: the interface of
the engine-side :class:`~ligretto.engine.observation.Observation`, answered from what the
client was sent, so the bots' own strategies play over a WebSocket (``ligretto loadtest``).

Both see the same public information, so a strategy chooses the same action on either
(``tests/client/test_observation.py``).  :func:`action_message` writes the chosen action
as the protocol's ``act`` body.
"""

from __future__ import annotations

from typing import Any

from ligretto.client.mirror import NEW_PILE, Area, Mirror, face
from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote, Withdraw
from ligretto.engine.cards import CARDS, NUMBERS, Back, Card, Colour, goes_on
from ligretto.engine.events import Ending, Outcome
from ligretto.engine.observation import Observation
from ligretto.engine.rules import RuleSet
from ligretto.engine.views import AreaView, PileView, RoundView

_SOURCES = {"row": Source.ROW, "stack": Source.STACK, "discard": Source.DISCARD}


class MirrorObservation(Observation):
    """Seat ``seat``'s view of the round held by ``mirror`` (read on demand, never copied)."""

    __slots__ = ("_mirror", "_rules")

    def __init__(self, mirror: Mirror, seat: int, rules: RuleSet) -> None:
        # Not Observation.__init__: there is no engine Round on this side of the wire.
        self._mirror = mirror
        self._rules = rules
        self.seat = seat

    # --- the table --------------------------------------------------------------------

    @property
    def rules(self) -> RuleSet:
        return self._rules

    @property
    def players(self) -> int:
        return self._mirror.players

    @property
    def over(self) -> bool:
        return self._mirror.ending is not None

    @property
    def center_size(self) -> int:
        return self._mirror.center_size

    def pile_tops(self) -> list[tuple[int, int]]:
        return [(int(Colour[pile.colour.upper()]), pile.top) for pile in self._mirror.center]

    def others_visible_faces(self) -> set[int]:
        return {face(card) for area in self._others() for _, _, card in area.playable()}

    def others_show(self, face_code: int) -> bool:
        return face_code in self.others_visible_faces()

    def fits(self, card: Card) -> bool:
        return bool(self._mirror.piles_for(str(card)))

    def pile_wants(self, pile: int) -> int | None:
        seen = self._mirror.center[pile]
        return None if seen.complete else int(Colour[seen.colour.upper()]) * NUMBERS + seen.top

    @property
    def piles(self) -> int:
        return len(self._mirror.center)

    @property
    def votes(self) -> int:
        return sum(area.voted for area in self._mirror.areas)

    def view(self) -> RoundView:
        mirror = self._mirror
        return RoundView(
            viewer=self.seat,
            players=mirror.players,
            areas=tuple(_area_view(area) for area in mirror.areas),
            center=tuple(
                PileView(p.index, Colour[p.colour.upper()], p.top, tuple(Back.for_seat(s) for s in p.backs))
                for p in mirror.center
            ),
            outcome=None if mirror.ending is None else Outcome(Ending(mirror.ending), mirror.stopped_by),
        )

    # --- my own cards -----------------------------------------------------------------

    def play_options(self) -> int:
        if self._mirror.ending is not None:
            return 0
        return sum(len(self._mirror.piles_for(card)) for _, _, card in self._mirror.areas[self.seat].playable())

    def legal_actions(self) -> list[Action]:
        """What this seat may do now, in the engine's order (``Round.legal_actions``):
        plays (row, stack, discard; every pile that takes the card), placements (expert),
        turning the hand, the vote or its withdrawal."""
        mirror, seat = self._mirror, self.seat
        if mirror.ending is not None:
            return []
        area = mirror.areas[seat]
        actions: list[Action] = []
        for source, position, card in area.playable():
            for pile in mirror.piles_for(card):
                actions.append(Play(seat, _SOURCES[source], None if pile == NEW_PILE else pile, position))
        if self._rules.expert:
            for source in ("stack", "discard"):
                top = area.top(source)
                if top is not None:
                    under = face(top)
                    for column, cards in enumerate(area.row):
                        if cards and goes_on(under, face(cards[-1])):
                            actions.append(Place(seat, _SOURCES[source], column))
        if area.hand_size or area.discard_size:
            actions.append(Turn(seat))
        actions.append(Withdraw(seat) if area.voted else Vote(seat))
        return actions

    def row(self, seat: int | None = None) -> list[Card]:
        seat = self.seat if seat is None else seat
        return [_card(seat, column[-1]) for column in self._mirror.areas[seat].row if column]

    def column(self, position: int, seat: int | None = None) -> list[Card]:
        seat = self.seat if seat is None else seat
        return [_card(seat, card) for card in self._mirror.areas[seat].row[position]]

    def stack_top(self, seat: int | None = None) -> Card | None:
        seat = self.seat if seat is None else seat
        return _maybe_card(seat, self._mirror.areas[seat].stack_top)

    def stack_size(self, seat: int | None = None) -> int:
        return self._mirror.areas[self.seat if seat is None else seat].stack_size

    def discard_top(self, seat: int | None = None) -> Card | None:
        seat = self.seat if seat is None else seat
        return _maybe_card(seat, self._mirror.areas[seat].discard_top)

    def discard_size(self, seat: int | None = None) -> int:
        return self._mirror.areas[self.seat if seat is None else seat].discard_size

    def hand_size(self, seat: int | None = None) -> int:
        return self._mirror.areas[self.seat if seat is None else seat].hand_size

    def voted(self, seat: int | None = None) -> bool:
        return self._mirror.areas[self.seat if seat is None else seat].voted

    def card_at(self, source: Source, position: int = 0) -> Card | None:
        area = self._mirror.areas[self.seat]
        return _maybe_card(self.seat, area.top(source.name.lower(), position))

    def _others(self) -> list[Area]:
        return [area for area in self._mirror.areas if area.seat != self.seat]


def action_message(action: Action, mirror: Mirror) -> dict[str, Any]:
    """The ``act`` message's ``action`` for an engine action, naming the card it means."""
    if isinstance(action, Play):
        source = action.source.name.lower()
        card = mirror.areas[action.player].top(source, action.position)
        return {"kind": "play", "source": source, "position": action.position, "pile": action.pile, "card": card}
    if isinstance(action, Place):
        source = action.source.name.lower()
        card = mirror.areas[action.player].top(source)
        return {"kind": "place", "source": source, "column": action.column, "card": card}
    return {"kind": type(action).__name__.lower()}


def _card(seat: int, text: str) -> Card:
    return CARDS[seat][face(text)]


def _maybe_card(seat: int, text: str | None) -> Card | None:
    return None if text is None else _card(seat, text)


def _area_view(area: Area) -> AreaView:
    seat = area.seat
    return AreaView(
        seat=seat,
        back=Back.for_seat(seat),
        row=tuple(tuple(_card(seat, card) for card in column) for column in area.row),
        stack_top=_maybe_card(seat, area.stack_top),
        stack_size=area.stack_size,
        discard_top=_maybe_card(seat, area.discard_top),
        discard_size=area.discard_size,
        hand_size=area.hand_size,
        voted=area.voted,
    )
