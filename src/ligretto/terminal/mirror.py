"""The client's copy of a round: a snapshot's view, kept up to date by applying events.

Cards are written as in the protocol (``r5``); whose card it is follows from where it lies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ligretto.terminal.faces import letter_of, number_of

Message = dict[str, Any]


@dataclass(slots=True)
class Area:
    """One player's cards as anyone may see them (a view's ``areas[]`` entry)."""

    seat: int
    row: list[list[str]]
    """Row columns, bottom card first; the last card of a column is the exposed one."""
    stack_top: str | None
    stack_size: int
    discard_top: str | None
    discard_size: int
    hand_size: int
    voted: bool

    @classmethod
    def from_dict(cls, data: Message) -> Area:
        return cls(
            seat=int(data["seat"]),
            row=[list(column) for column in data["row"]],
            stack_top=data["stack_top"],
            stack_size=int(data["stack_size"]),
            discard_top=data["discard_top"],
            discard_size=int(data["discard_size"]),
            hand_size=int(data["hand_size"]),
            voted=bool(data["voted"]),
        )

    def exposed(self, position: int) -> str | None:
        """The exposed card of a row column (``None``: no such column, or it is empty)."""
        if 0 <= position < len(self.row) and self.row[position]:
            return self.row[position][-1]
        return None

    def top(self, source: str, position: int = 0) -> str | None:
        """The card a play from ``source`` would move."""
        if source == "row":
            return self.exposed(position)
        return self.stack_top if source == "stack" else self.discard_top


@dataclass(slots=True)
class Pile:
    """A center pile: one colour from 1 up to ``top``; ``backs`` says whose card each one is."""

    index: int
    colour: str
    """``red``, ``green``, ``yellow`` or ``blue``."""
    top: int
    backs: list[int]

    @property
    def letter(self) -> str:
        return self.colour[0]

    @property
    def complete(self) -> bool:
        return self.top == 10

    def takes(self, card: str) -> bool:
        """Whether ``card`` fits on this pile now."""
        return letter_of(card) == self.letter and number_of(card) == self.top + 1


@dataclass(slots=True)
class RoundView:
    """The visible table of the current round (a snapshot's ``view``, kept up to date by events)."""

    viewer: int | None
    players: int
    areas: list[Area]
    center: list[Pile]
    ending: str | None = None
    stopped_by: int | None = None

    @classmethod
    def from_dict(cls, data: Message) -> RoundView:
        return cls(
            viewer=data["viewer"],
            players=int(data["players"]),
            areas=[Area.from_dict(area) for area in data["areas"]],
            center=[Pile(int(p["index"]), p["colour"], int(p["top"]), list(p["backs"])) for p in data["center"]],
            ending=data["ending"],
            stopped_by=data["stopped_by"],
        )

    def pile_for(self, card: str) -> int | None:
        """The pile a card goes to: an existing pile that takes it (the first one), ``None``
        for a 1 (it starts a new pile).  ``-1``: no pile takes it."""
        if number_of(card) == 1:
            return None
        for pile in self.center:
            if pile.takes(card):
                return pile.index
        return -1

    def apply(self, events: list[Message]) -> None:
        """Apply one action's events (``events.events``)."""
        for event in events:
            handler = _EVENT_HANDLERS.get(event["type"])
            if handler is not None:
                handler(self, event)


def _pile_started(view: RoundView, event: Message) -> None:
    view.center.append(Pile(int(event["pile"]), event["colour"], 0, []))


def _card_played(view: RoundView, event: Message) -> None:
    area = view.areas[event["player"]]
    source = event["source"]
    if source == "row":
        column = area.row[event["position"]]
        if column:
            column.pop()
    elif source == "stack":
        area.stack_size -= 1
        area.stack_top = event["uncovered"]
    else:
        area.discard_size -= 1
        area.discard_top = event["uncovered"]
    pile = view.center[event["pile"]]
    pile.top = number_of(event["card"])
    pile.backs.append(event["player"])


def _row_refilled(view: RoundView, event: Message) -> None:
    area = view.areas[event["player"]]
    area.row[event["position"]].append(event["card"])
    area.stack_size -= 1
    area.stack_top = event["stack_top"]


def _hand_turned(view: RoundView, event: Message) -> None:
    area = view.areas[event["player"]]
    area.hand_size -= event["count"]
    area.discard_size += event["count"]
    area.discard_top = event["discard_top"]


def _hand_recycled(view: RoundView, event: Message) -> None:
    area = view.areas[event["player"]]
    area.hand_size += event["cards"]
    area.discard_size = 0
    area.discard_top = None


def _card_placed(view: RoundView, event: Message) -> None:
    area = view.areas[event["player"]]
    area.row[event["column"]].append(event["card"])
    if event["source"] == "stack":
        area.stack_size -= 1
        area.stack_top = event["uncovered"]
    else:
        area.discard_size -= 1
        area.discard_top = event["uncovered"]


def _vote(voted: bool) -> Callable[[RoundView, Message], None]:
    def handler(view: RoundView, event: Message) -> None:
        view.areas[event["player"]].voted = voted

    return handler


def _votes_cleared(view: RoundView, event: Message) -> None:
    for area in view.areas:
        area.voted = False


def _round_stopped(view: RoundView, event: Message) -> None:
    view.ending = event["ending"]
    view.stopped_by = event["player"]


_EVENT_HANDLERS: dict[str, Callable[[RoundView, Message], None]] = {
    "pile_started": _pile_started,
    "card_played": _card_played,
    "row_refilled": _row_refilled,
    "hand_turned": _hand_turned,
    "hand_recycled": _hand_recycled,
    "card_placed": _card_placed,
    "vote_cast": _vote(True),
    "vote_withdrawn": _vote(False),
    "votes_cleared": _votes_cleared,
    "round_stopped": _round_stopped,
}
