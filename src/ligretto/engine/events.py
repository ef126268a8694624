"""What an action caused (events) or why it was refused (refusals).

Events carry only public information: every card they name was, or has just
become, face up on the table.  They are values: nobody mutates them (they are
not frozen only because frozen dataclasses cost three times as much to build,
and the simulator builds one per action).  The events an action can cause, and
``Applied``, spell out their ``__init__``: the dataclass still gives them fields,
equality and repr, and compiled (mypyc, see setup.py) a written ``__init__`` builds
an event six times faster than the generated one.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ligretto.engine.actions import Source
from ligretto.engine.cards import Card, Colour


class Reason(enum.StrEnum):
    """Why an action was refused.  A refused action changes nothing."""

    ROUND_OVER = "round_over"
    NO_SUCH_PLAYER = "no_such_player"
    NO_SUCH_CARD = "no_such_card"
    NOT_YOUR_CARD = "not_your_card"
    CARD_MOVED = "card_moved"
    NO_SUCH_PILE = "no_such_pile"
    PILE_COMPLETE = "pile_complete"
    DOES_NOT_FIT = "does_not_fit"
    NOT_A_ONE = "not_a_one"
    NOTHING_TO_TURN = "nothing_to_turn"
    NOT_EXPERT = "not_expert"
    NO_SUCH_COLUMN = "no_such_column"
    BAD_SOURCE = "bad_source"
    ALREADY_VOTED = "already_voted"
    NOT_VOTED = "not_voted"

    @property
    def text(self) -> str:
        """A sentence for people."""
        return _TEXTS[self]


_TEXTS = {
    Reason.ROUND_OVER: "the round is over",
    Reason.NO_SUCH_PLAYER: "there is no such player at this table",
    Reason.NO_SUCH_CARD: "there is no card there",
    Reason.NOT_YOUR_CARD: "that card is not yours",
    Reason.CARD_MOVED: "that card is not there any more (moved or covered)",
    Reason.NO_SUCH_PILE: "there is no such pile in the center",
    Reason.PILE_COMPLETE: "that pile is complete",
    Reason.DOES_NOT_FIT: "the card does not fit that pile (beaten to it?)",
    Reason.NOT_A_ONE: "only a 1 starts a new pile",
    Reason.NOTHING_TO_TURN: "the hand and the discard pile are empty",
    Reason.NOT_EXPERT: "placing cards on the row is only allowed in the expert variant",
    Reason.NO_SUCH_COLUMN: "there is no such row column",
    Reason.BAD_SOURCE: "only the stack top or the discard top may go onto a row column",
    Reason.ALREADY_VOTED: "you have already voted to end the round",
    Reason.NOT_VOTED: "you have not voted",
}


class Ending(enum.StrEnum):
    """How a round ended."""

    STOP = "stop"
    """A Ligretto stack emptied: "Ligretto Stop!"."""
    STALEMATE_VOTE = "stalemate_vote"
    """Every player voted to end a stalemate."""
    STALEMATE_PROVEN = "stalemate_proven"
    """The engine proved that no card can ever be played again."""
    TIME_LIMIT = "time_limit"
    """The simulator stopped a round that would not end (its time or step limit): never
    reached by the rules themselves, so never in live play; the round itself then ends by
    everyone voting (docs/simulator.md)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a round ended: the ending and who stopped it (the seat for ``STOP``, else ``None``).

    The one value behind a view's ``ending`` and ``stopped_by``, the server's ``round_over``
    and the simulator's ``ended_by``; its JSON form is those two fields, the ending as its
    string."""

    ending: Ending
    stopped_by: int | None

    def to_dict(self) -> dict[str, str | int | None]:
        return {"ending": self.ending.value, "stopped_by": self.stopped_by}


@dataclass(slots=True)
class CardPlayed:
    player: int
    card: Card
    source: Source
    position: int
    pile: int
    new_pile: bool
    uncovered: Card | None
    """The card now visible where this one was (new stack/discard top, exposed column card)."""

    def __init__(  # noqa: PLR0917 -- the dataclass's own positional signature
        self, player: int, card: Card, source: Source, position: int, pile: int, new_pile: bool, uncovered: Card | None
    ) -> None:
        self.player = player
        self.card = card
        self.source = source
        self.position = position
        self.pile = pile
        self.new_pile = new_pile
        self.uncovered = uncovered


@dataclass(slots=True)
class RowRefilled:
    player: int
    position: int
    card: Card
    stack_top: Card | None
    """The stack's new top (``None`` when the stack is now empty)."""

    def __init__(self, player: int, position: int, card: Card, stack_top: Card | None) -> None:
        self.player = player
        self.position = position
        self.card = card
        self.stack_top = stack_top


@dataclass(slots=True)
class PileStarted:
    pile: int
    colour: Colour

    def __init__(self, pile: int, colour: Colour) -> None:
        self.pile = pile
        self.colour = colour


@dataclass(slots=True)
class PileCompleted:
    pile: int

    def __init__(self, pile: int) -> None:
        self.pile = pile


@dataclass(slots=True)
class HandTurned:
    player: int
    count: int
    discard_top: Card

    def __init__(self, player: int, count: int, discard_top: Card) -> None:
        self.player = player
        self.count = count
        self.discard_top = discard_top


@dataclass(slots=True)
class HandRecycled:
    """The discard pile went face down into the hand (shuffled or not)."""

    player: int
    cards: int
    shuffled: bool

    def __init__(self, player: int, cards: int, shuffled: bool) -> None:
        self.player = player
        self.cards = cards
        self.shuffled = shuffled


@dataclass(slots=True)
class CardPlaced:
    """Expert variant: a card went onto a row column."""

    player: int
    card: Card
    source: Source
    column: int
    uncovered: Card | None

    def __init__(self, player: int, card: Card, source: Source, column: int, uncovered: Card | None) -> None:
        self.player = player
        self.card = card
        self.source = source
        self.column = column
        self.uncovered = uncovered


@dataclass(slots=True)
class VoteCast:
    player: int


@dataclass(slots=True)
class VoteWithdrawn:
    player: int


@dataclass(slots=True)
class VotesCleared:
    """A card moved, so every stalemate vote lapsed."""


@dataclass(slots=True)
class RoundStopped:
    ending: Ending
    player: int | None
    """Who called "Ligretto Stop!" (``None`` for a stalemate)."""

    def __init__(self, ending: Ending, player: int | None) -> None:
        self.ending = ending
        self.player = player


Event = (
    CardPlayed
    | RowRefilled
    | PileStarted
    | PileCompleted
    | HandTurned
    | HandRecycled
    | CardPlaced
    | VoteCast
    | VoteWithdrawn
    | VotesCleared
    | RoundStopped
)


@dataclass(slots=True)
class Applied:
    """The action was applied; ``events`` lists what it caused, in order."""

    events: tuple[Event, ...]

    def __init__(self, events: tuple[Event, ...]) -> None:
        self.events = events

    @property
    def ok(self) -> bool:
        return True


@dataclass(slots=True)
class Refused:
    """The action was refused and nothing changed."""

    reason: Reason

    @property
    def ok(self) -> bool:
        return False


Result = Applied | Refused

REFUSALS = {reason: Refused(reason) for reason in Reason}
"""Interned refusals: refusing allocates nothing."""
