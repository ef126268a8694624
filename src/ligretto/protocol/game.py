"""The round on the wire: a seat's view, the events of an action, scores and the sheet.

Typed msgspec structs of what every client reads during a round (docs/protocol.md,
``snapshot``, ``events``, ``round_over`` and the ``table`` message's ``sheet``), and the
conversions from the engine's values.  Events, the hot path (one ``events`` message per
applied action), are built straight from the engine's event values; the view and the
score sheet, sent once per deal or join, are typed from the engine's own JSON form
(``RoundView.to_dict``, ``ScoreSheet.to_dict``), so the engine stays the one source of
what a seat may see.  ``tests/protocol/test_protocol_game.py`` pins both to the engine's
JSON form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

import msgspec

from ligretto.engine import events as ev
from ligretto.engine.cards import Card
from ligretto.engine.scoring import RoundScore, ScoreSheet
from ligretto.engine.views import RoundView

ColourName = Literal["red", "green", "yellow", "blue"]
SourceName = Literal["row", "stack", "discard"]


class _Wire(msgspec.Struct, forbid_unknown_fields=True):
    pass


# --- a seat's view (snapshot) ------------------------------------------------------------


class BackMsg(_Wire):
    """The back of a deck: its box colour and symbol."""

    box: Literal["red", "blue", "green"]
    symbol: str


class AreaMsg(_Wire):
    """One seat's cards as anyone may see them (row columns bottom card first)."""

    seat: int
    back: BackMsg
    row: list[list[str]]
    stack_top: str | None
    stack_size: int
    discard_top: str | None
    discard_size: int
    hand_size: int
    voted: bool


class PileMsg(_Wire):
    """A center pile: its colour, its top number and whose card each one is."""

    index: int
    colour: ColourName
    top: int
    backs: list[int]


class ViewMsg(_Wire):
    """The table as ``viewer`` (``None``: a spectator) may see it."""

    viewer: int | None
    players: int
    ending: str | None
    stopped_by: int | None
    areas: list[AreaMsg]
    center: list[PileMsg]


def view_message(view: RoundView) -> ViewMsg:
    """The wire form of an engine view."""
    return msgspec.convert(view.to_dict(), ViewMsg)


# --- events ------------------------------------------------------------------------------


class _Event(msgspec.Struct, forbid_unknown_fields=True, tag_field="type"):
    pass


class CardPlayedMsg(_Event, tag="card_played"):
    player: int
    card: str
    source: SourceName
    position: int
    pile: int
    new_pile: bool
    uncovered: str | None


class RowRefilledMsg(_Event, tag="row_refilled"):
    player: int
    position: int
    card: str
    stack_top: str | None


class PileStartedMsg(_Event, tag="pile_started"):
    pile: int
    colour: ColourName


class PileCompletedMsg(_Event, tag="pile_completed"):
    pile: int


class HandTurnedMsg(_Event, tag="hand_turned"):
    player: int
    count: int
    discard_top: str


class HandRecycledMsg(_Event, tag="hand_recycled"):
    player: int
    cards: int
    shuffled: bool


class CardPlacedMsg(_Event, tag="card_placed"):
    player: int
    card: str
    source: SourceName
    column: int
    uncovered: str | None


class VoteCastMsg(_Event, tag="vote_cast"):
    player: int


class VoteWithdrawnMsg(_Event, tag="vote_withdrawn"):
    player: int


class VotesClearedMsg(_Event, tag="votes_cleared"):
    pass


class RoundStoppedMsg(_Event, tag="round_stopped"):
    ending: str
    player: int | None


EventMsg = (
    CardPlayedMsg
    | RowRefilledMsg
    | PileStartedMsg
    | PileCompletedMsg
    | HandTurnedMsg
    | HandRecycledMsg
    | CardPlacedMsg
    | VoteCastMsg
    | VoteWithdrawnMsg
    | VotesClearedMsg
    | RoundStoppedMsg
)
EVENT_MESSAGES: tuple[type[msgspec.Struct], ...] = (
    CardPlayedMsg,
    RowRefilledMsg,
    PileStartedMsg,
    PileCompletedMsg,
    HandTurnedMsg,
    HandRecycledMsg,
    CardPlacedMsg,
    VoteCastMsg,
    VoteWithdrawnMsg,
    VotesClearedMsg,
    RoundStoppedMsg,
)


def _text(card: Card | None) -> str | None:
    return None if card is None else str(card)


def _card_played(e: Any) -> EventMsg:
    source: Any = e.source.name.lower()
    return CardPlayedMsg(e.player, str(e.card), source, e.position, e.pile, e.new_pile, _text(e.uncovered))


def _card_placed(e: Any) -> EventMsg:
    source: Any = e.source.name.lower()
    return CardPlacedMsg(e.player, str(e.card), source, e.column, _text(e.uncovered))


def _pile_started(e: Any) -> EventMsg:
    colour: Any = e.colour.name.lower()
    return PileStartedMsg(e.pile, colour)


_BUILDERS: dict[type, Callable[[Any], EventMsg]] = {
    ev.CardPlayed: _card_played,
    ev.RowRefilled: lambda e: RowRefilledMsg(e.player, e.position, str(e.card), _text(e.stack_top)),
    ev.PileStarted: _pile_started,
    ev.PileCompleted: lambda e: PileCompletedMsg(e.pile),
    ev.HandTurned: lambda e: HandTurnedMsg(e.player, e.count, str(e.discard_top)),
    ev.HandRecycled: lambda e: HandRecycledMsg(e.player, e.cards, e.shuffled),
    ev.CardPlaced: _card_placed,
    ev.VoteCast: lambda e: VoteCastMsg(e.player),
    ev.VoteWithdrawn: lambda e: VoteWithdrawnMsg(e.player),
    ev.VotesCleared: lambda e: VotesClearedMsg(),
    ev.RoundStopped: lambda e: RoundStoppedMsg(str(e.ending.value), e.player),
}
"""Engine event type -> its message: public information only, as the engine gives it."""


def event_message(event: ev.Event) -> EventMsg:
    """The wire form of one engine event."""
    return _BUILDERS[type(event)](event)


def event_messages(events: Iterable[ev.Event]) -> list[EventMsg]:
    return [_BUILDERS[type(event)](event) for event in events]


# --- scores and the score sheet ----------------------------------------------------------


class ScoreLine(_Wire):
    """One seat's line for one round: cards in the center, left on the stack, the score."""

    center: int
    stack: int
    score: int


class SheetRound(_Wire):
    """One round of the score sheet: how it ended, the lines, the running totals, its winners."""

    ending: str
    stopped_by: int | None
    lines: list[ScoreLine]
    totals: list[int]
    winners: list[int]


class SheetMsg(_Wire):
    """The match's score sheet: every round, the match totals and each seat's place."""

    players: int
    rounds: list[SheetRound]
    totals: list[int]
    places: list[int]


def score_lines(scores: Iterable[RoundScore]) -> list[ScoreLine]:
    return [ScoreLine(s.center, s.stack, s.score) for s in scores]


def sheet_message(sheet: ScoreSheet) -> SheetMsg:
    """The wire form of a score sheet."""
    return msgspec.convert(sheet.to_dict(), SheetMsg)
