"""The client's copy of a round: a snapshot's ``view``, kept up to date by applying the
``events`` that follow it (docs/protocol.md), and what can be played where.

One model for every Python client: the terminal client, ``ligretto loadtest``'s clients
and the tests.  The browser's ``static/js/mirror.js`` is its JS twin, pinned to it and to
the engine by ``tests/client/test_conformance.py``.  Cards are written as on the wire
(``r5``: :func:`~ligretto.engine.cards.face_text` / :func:`~ligretto.engine.cards.parse_face`);
whose card it is follows from where it lies.  "Fits" and "goes on a column" are the
engine's own rules (:func:`~ligretto.engine.cards.fits`, :func:`~ligretto.engine.cards.goes_on`).

Where a card goes (:meth:`Mirror.target_pile`): a pile's index, :data:`NEW_PILE` for a 1
(it starts a new pile; on the wire that is ``"pile": null``), or ``None`` when no pile
takes it.

In strict mode (``Mirror.from_view(data, strict=True)``) every event is also checked
against what the view showed before it, and each inconsistency is noted in
:attr:`Mirror.problems` (the tests' check on what the server sends).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ligretto.engine.cards import DECK_SIZE, NUMBERS, Colour, face_text, fits, goes_on, parse_face
from ligretto.engine.state import NEW_PILE

Message = dict[str, Any]

__all__ = ["NEW_PILE", "Area", "Mirror", "Pile", "face", "wire_pile"]

_FACES = {face_text(f): f for f in range(DECK_SIZE)}
_COLOURS = {colour.name.lower(): colour for colour in Colour}


def face(card: str) -> int:
    """The engine's face code of a card written as on the wire (``r5``); a clear
    ``ValueError`` for anything else."""
    found = _FACES.get(card)
    return parse_face(card) if found is None else found


def number(card: str) -> int:
    """``5`` for ``r5``."""
    return face(card) % NUMBERS + 1


def wire_pile(pile: int) -> int | None:
    """A target pile as a play message names it: ``null`` (``None``) for a new pile."""
    return None if pile == NEW_PILE else pile


@dataclass(slots=True)
class Area:
    """One player's cards as anyone may see them (a view's ``areas[]`` entry)."""

    seat: int
    back: dict[str, str]
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
            back=dict(data["back"]),
            row=[list(column) for column in data["row"]],
            stack_top=data["stack_top"],
            stack_size=int(data["stack_size"]),
            discard_top=data["discard_top"],
            discard_size=int(data["discard_size"]),
            hand_size=int(data["hand_size"]),
            voted=bool(data["voted"]),
        )

    def to_dict(self) -> Message:
        return {
            "seat": self.seat,
            "back": dict(self.back),
            "row": [list(column) for column in self.row],
            "stack_top": self.stack_top,
            "stack_size": self.stack_size,
            "discard_top": self.discard_top,
            "discard_size": self.discard_size,
            "hand_size": self.hand_size,
            "voted": self.voted,
        }

    def exposed(self, position: int) -> str | None:
        """The exposed card of a row column (``None``: no such column, or it is empty)."""
        if 0 <= position < len(self.row) and self.row[position]:
            return self.row[position][-1]
        return None

    def top(self, source: str, position: int = 0) -> str | None:
        """The card a play from ``source`` (``row``, ``stack``, ``discard``) would move."""
        if source == "row":
            return self.exposed(position)
        return self.stack_top if source == "stack" else self.discard_top

    def playable(self) -> list[tuple[str, int, str]]:
        """(source, position, card) of every card this area may play to the center, in the
        engine's order: row columns, stack top, discard top."""
        cards = [("row", i, column[-1]) for i, column in enumerate(self.row) if column]
        if self.stack_top is not None:
            cards.append(("stack", 0, self.stack_top))
        if self.discard_top is not None:
            cards.append(("discard", 0, self.discard_top))
        return cards


@dataclass(slots=True)
class Pile:
    """A center pile: one colour from 1 up to ``top``; ``backs`` says whose card each one is."""

    index: int
    colour: str
    """``red``, ``green``, ``yellow`` or ``blue``."""
    top: int
    backs: list[int]

    @property
    def complete(self) -> bool:
        return self.top == NUMBERS

    def takes(self, card: str) -> bool:
        """Whether ``card`` fits on this pile now (the engine's rule)."""
        return fits(face(card), _COLOURS[self.colour], self.top)

    def to_dict(self) -> Message:
        return {"index": self.index, "colour": self.colour, "top": self.top, "backs": list(self.backs)}


@dataclass(slots=True)
class Mirror:
    """The visible table of one round, as ``viewer`` (a seat, ``None``: a spectator) sees it."""

    viewer: int | None
    players: int
    areas: list[Area]
    center: list[Pile]
    ending: str | None = None
    stopped_by: int | None = None
    problems: list[str] | None = field(default=None)
    """Strict mode: every inconsistency an event showed (``None``: not checking)."""

    @classmethod
    def from_view(cls, data: Message, *, strict: bool = False) -> Mirror:
        """From a snapshot's ``view``."""
        return cls(
            viewer=data["viewer"],
            players=int(data["players"]),
            areas=[Area.from_dict(area) for area in data["areas"]],
            center=[Pile(int(p["index"]), p["colour"], int(p["top"]), list(p["backs"])) for p in data["center"]],
            ending=data["ending"],
            stopped_by=data["stopped_by"],
            problems=[] if strict else None,
        )

    def to_dict(self) -> Message:
        """The same shape as a snapshot's ``view`` (``engine.views.RoundView.to_dict``)."""
        return {
            "viewer": self.viewer,
            "players": self.players,
            "ending": self.ending,
            "stopped_by": self.stopped_by,
            "areas": [area.to_dict() for area in self.areas],
            "center": [pile.to_dict() for pile in self.center],
        }

    @property
    def center_size(self) -> int:
        """Cards in the center (it grows whenever anyone plays)."""
        return sum(pile.top for pile in self.center)

    # --- where a card goes --------------------------------------------------------------

    def piles_for(self, card: str) -> list[int]:
        """Every pile that takes ``card`` now, ascending, as the engine lists them:
        ``[NEW_PILE]`` for a 1."""
        f = face(card)
        if f % NUMBERS == 0:
            return [NEW_PILE]
        return [pile.index for pile in self.center if fits(f, _COLOURS[pile.colour], pile.top)]

    def target_pile(self, card: str) -> int | None:
        """Where ``card`` goes when it is clicked: the first pile that takes it,
        :data:`NEW_PILE` for a 1, ``None`` when no pile takes it."""
        piles = self.piles_for(card)
        return piles[0] if piles else None

    @staticmethod
    def goes_on(card: str, column: list[str]) -> bool:
        """Expert variant: whether ``card`` may go onto a row column (one lower than its
        exposed card, another colour)."""
        return bool(column) and goes_on(face(card), face(column[-1]))

    # --- applying events ----------------------------------------------------------------

    def apply(self, events: list[Message]) -> None:
        """Apply one ``events`` message's ``events``, in order."""
        for event in events:
            handler = _HANDLERS.get(event["type"])
            if handler is not None:
                handler(self, event)
            else:
                self._check(False, f"unknown event type {event['type']!r}", event)

    def _check(self, ok: bool, text: str, event: Message) -> None:
        if not ok and self.problems is not None:
            self.problems.append(f"{text} (event {event})")

    def _area(self, event: Message) -> Area:
        return self.areas[event["player"]]

    def _uncover(self, area: Area, source: str, card: str, event: Message) -> None:
        """A stack or discard top left: the card below it (the event's ``uncovered``) shows."""
        self._check(area.top(source) == card, f"the card moved was not the {source} top", event)
        uncovered = event["uncovered"]
        if source == "stack":
            area.stack_size -= 1
            area.stack_top = uncovered
            self._check((area.stack_size == 0) == (uncovered is None), "stack size and top disagree", event)
        else:
            area.discard_size -= 1
            area.discard_top = uncovered
            self._check((area.discard_size == 0) == (uncovered is None), "discard size and top disagree", event)

    def _pile_started(self, event: Message) -> None:
        self._check(event["pile"] == len(self.center), "a new pile must get the next index", event)
        self.center.append(Pile(int(event["pile"]), event["colour"], 0, []))

    def _card_played(self, event: Message) -> None:
        area = self._area(event)
        card, source = event["card"], event["source"]
        if source == "row":
            column = area.row[event["position"]]
            self._check(
                bool(column) and column[-1] == card, "the card played was not shown at that row position", event
            )
            if column:
                column.pop()
            self._check((column[-1] if column else None) == event["uncovered"], "wrong uncovered row card", event)
        elif source in ("stack", "discard"):
            self._uncover(area, source, card, event)
        else:
            self._check(False, "unknown source", event)
        if not 0 <= event["pile"] < len(self.center):
            self._check(False, "no such pile", event)
            return
        pile = self.center[event["pile"]]
        self._check(pile.takes(card), "the card does not fit its pile", event)
        self._check(event["new_pile"] == (number(card) == 1), "new_pile must say whether a 1 started it", event)
        pile.top += 1
        pile.backs.append(event["player"])

    def _row_refilled(self, event: Message) -> None:
        area = self._area(event)
        self._check(
            area.stack_top == event["card"], "the row was refilled with something else than the stack top", event
        )
        area.row[event["position"]].append(event["card"])
        area.stack_size -= 1
        area.stack_top = event["stack_top"]

    def _pile_completed(self, event: Message) -> None:
        self._check(self.center[event["pile"]].complete, "a pile completes at 10", event)

    def _hand_turned(self, event: Message) -> None:
        area = self._area(event)
        self._check(1 <= event["count"] <= min(3, area.hand_size), "turned more cards than the hand holds", event)
        area.hand_size -= event["count"]
        area.discard_size += event["count"]
        area.discard_top = event["discard_top"]

    def _hand_recycled(self, event: Message) -> None:
        area = self._area(event)
        self._check(event["cards"] == area.discard_size, "a recycle takes the whole discard pile", event)
        area.hand_size += event["cards"]
        area.discard_size = 0
        area.discard_top = None

    def _card_placed(self, event: Message) -> None:
        area = self._area(event)
        column = area.row[event["column"]]
        self._check(self.goes_on(event["card"], column), "the card placed does not go on that column", event)
        column.append(event["card"])
        self._uncover(area, event["source"], event["card"], event)

    def _vote_cast(self, event: Message) -> None:
        self._area(event).voted = True

    def _vote_withdrawn(self, event: Message) -> None:
        self._area(event).voted = False

    def _votes_cleared(self, event: Message) -> None:
        for area in self.areas:
            area.voted = False

    def _round_stopped(self, event: Message) -> None:
        self.ending = event["ending"]
        self.stopped_by = event["player"]


_HANDLERS: dict[str, Callable[[Mirror, Message], None]] = {
    "pile_started": Mirror._pile_started,
    "card_played": Mirror._card_played,
    "row_refilled": Mirror._row_refilled,
    "pile_completed": Mirror._pile_completed,
    "hand_turned": Mirror._hand_turned,
    "hand_recycled": Mirror._hand_recycled,
    "card_placed": Mirror._card_placed,
    "vote_cast": Mirror._vote_cast,
    "vote_withdrawn": Mirror._vote_withdrawn,
    "votes_cleared": Mirror._votes_cleared,
    "round_stopped": Mirror._round_stopped,
}
