"""The fixed spaces of the research environment: every action numbered, every public fact
in one vector.

A learner needs the same number of actions and features in every state, while the engine
lists only the actions legal now.  :class:`Layout` numbers every action one seat could ever
take at a table of this size and rule set, plays first::

    slot * (piles + 1) + pile     play: slot 0..row-1 a row column, row the Ligretto stack,
                                  row + 1 the discard top; pile 0..piles-1 a center pile,
                                  pile == piles a new pile (a 1)
    plays + source * row + column place (expert variant): source 0 the stack, 1 the discard
    then turn, vote, withdraw, wait (look again a moment later)

and :meth:`Layout.features` writes one seat's :class:`~ligretto.engine.observation.Observation`
-- public information only: never a hand card, nor a Ligretto stack or discard card below its
top -- as a fixed vector, the seat itself first and the others in seat order after it.
"""

from __future__ import annotations

from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote, Withdraw
from ligretto.engine.cards import DECK_SIZE, NUMBERS
from ligretto.engine.observation import Observation
from ligretto.engine.rules import RuleSet
from ligretto.sim.table import TIME_LIMIT

PILES_PER_PLAYER = 4
"""Every center pile starts with a 1, and each deck holds four."""
SEAT_FEATURES = ("row", "stack top", "stack size", "discard top", "discard size", "hand size", "voted")
"""Each seat's features in order: a card is two numbers (colour 1-4, number 1-10; 0, 0: none)."""


class Layout:
    """The actions and features of one seat at a table of ``players`` under ``rules``."""

    __slots__ = (
        "piles",
        "players",
        "row",
        "plays",
        "place",
        "turn",
        "vote",
        "withdraw",
        "wait",
        "size",
        "features_size",
    )

    def __init__(self, rules: RuleSet, players: int) -> None:
        self.players = players
        self.row = rules.row_length(players)
        self.piles = PILES_PER_PLAYER * players
        self.plays = (self.row + 2) * (self.piles + 1)
        self.place = self.plays
        self.turn = self.place + 2 * self.row
        self.vote = self.turn + 1
        self.withdraw = self.turn + 2
        self.wait = self.turn + 3
        self.size = self.turn + 4
        """How many actions there are (the discrete action space's size)."""
        self.features_size = players * (2 * self.row + 8) + 2 * self.piles + 2
        """How many features there are: every seat's, every pile's (colour, top), votes, time."""

    # --- actions --------------------------------------------------------------------------

    def actions(self, seat: int) -> list[Action | None]:
        """Every numbered action of ``seat``, by number (``None``: wait)."""
        table: list[Action | None] = []
        for slot in range(self.row + 2):
            source = Source.ROW if slot < self.row else (Source.STACK if slot == self.row else Source.DISCARD)
            position = slot if slot < self.row else 0
            table += [Play(seat, source, pile, position) for pile in range(self.piles)]
            table.append(Play(seat, source, None, position))
        table += [
            Place(seat, source, column) for source in (Source.STACK, Source.DISCARD) for column in range(self.row)
        ]
        table += [Turn(seat), Vote(seat), Withdraw(seat), None]
        return table

    def index(self, action: Action | None) -> int:
        """The number of an action (``None``: wait)."""
        kind = type(action)
        if kind is Play:
            play: Play = action  # type: ignore[assignment]
            slot = play.position if play.source is Source.ROW else self.row + (play.source is Source.DISCARD)
            return slot * (self.piles + 1) + (self.piles if play.pile is None else play.pile)
        if kind is Place:
            place: Place = action  # type: ignore[assignment]
            return self.place + (place.source is Source.DISCARD) * self.row + place.column
        if kind is Turn:
            return self.turn
        if kind is Vote:
            return self.vote
        if kind is Withdraw:
            return self.withdraw
        if action is None:
            return self.wait
        raise TypeError(f"not an action: {action!r}")

    def legal(self, seen: Observation) -> list[int]:
        """The numbers of the actions legal now, and wait (always)."""
        index = self.index
        return [*(index(action) for action in seen.legal_actions()), self.wait]

    # --- features -------------------------------------------------------------------------

    def features(self, seen: Observation, now: float) -> list[float]:
        """What ``seen``'s seat may see at virtual time ``now``, as ``features_size`` numbers."""
        out: list[float] = []
        row = self.row
        players = self.players
        for turn in range(players):
            seat = (seen.seat + turn) % players
            cards = seen.row(seat)
            for card in cards:
                out += (card.colour + 1, card.number)
            out += [0, 0] * (row - len(cards))
            top = seen.stack_top(seat)
            out += (0, 0, 0) if top is None else (top.colour + 1, top.number, seen.stack_size(seat))
            top = seen.discard_top(seat)
            out += (0, 0) if top is None else (top.colour + 1, top.number)
            out += (seen.discard_size(seat), seen.hand_size(seat), seen.voted(seat))
        tops = seen.pile_tops()
        for colour, number in tops:
            out += (colour + 1, number)
        out += [0, 0] * (self.piles - len(tops))
        out += (seen.votes, now)
        return out

    def highs(self) -> list[float]:
        """The largest value of every feature (the lowest is 0)."""
        seat = [4.0, NUMBERS] * self.row + [4, NUMBERS, DECK_SIZE, 4, NUMBERS, DECK_SIZE, DECK_SIZE, 1]
        return seat * self.players + [4.0, NUMBERS] * self.piles + [self.players, TIME_LIMIT]
