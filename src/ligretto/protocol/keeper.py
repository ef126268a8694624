"""The bodies of the score keeper's HTTP API (docs/protocol.md, "Score keeper"): a score
sheet for a game played with real cards, its rounds as the table counted them, the
history of its changes.  No card is in any of them: counts, names and backs only."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from ligretto.engine.cards import MAX_PLAYERS
from ligretto.engine.events import Ending
from ligretto.engine.tally import TALLY_ENDINGS, Tally
from ligretto.protocol.game import SheetMsg

Counts = Annotated[list[int], msgspec.Meta(max_length=MAX_PLAYERS)]
ChangeId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    pass


class SheetBack(_Body):
    """A deck's back as printed on the real cards: the box colour (``red``, ``blue``,
    ``green``) and the symbol (``sun``, ``moon``, ``star``, ``heart``)."""

    colour: str
    symbol: str


class SheetPlayer(_Body):
    """A player of the sheet: display name, deck back, public profile id (or ``None``; on
    a new sheet only the creator's own, proven by its secret; later each player's own,
    linked with ``PUT /api/sheets/{code}/players/{seat}/profile``)."""

    name: str
    back: SheetBack
    profile: str | None = None


class CreateSheet(_Body, kw_only=True):
    """The body of ``POST /api/sheets``: the rules (only the scoring options matter), the
    players (2-12) and, with ``Authorization: Bearer <secret>``, which of them is the
    creator (``me``: an index), whose profile is linked to that player."""

    preset: str = "classic"
    options: dict[str, str | int | bool] = {}
    players: Annotated[list[SheetPlayer], msgspec.Meta(max_length=MAX_PLAYERS)]
    me: int | None = None


class SheetEntry(_Body, kw_only=True):
    """One round as the table counted it: per player the cards in the center and left in
    the Ligretto stack (omitted under ``scoring=first_out``), how it ended and who called
    Stop (``None`` for a stalemate)."""

    center: Counts = []
    stack: Counts = []
    ending: Literal["stop", "stalemate"]
    stopped_by: int | None = None


class PutRound(_Body):
    """The body of ``PUT /api/sheets/{code}/rounds/{n}``: the entry, the round's version
    the phone last saw (``None`` for a new round), who enters it and the client's id of
    this change (a retry with the same id is applied once)."""

    entry: SheetEntry
    base: int | None
    by: str
    id: ChangeId


class UndoChange(_Body):
    """The body of ``POST /api/sheets/{code}/undo``: who undoes, the client's id of this
    change, and optionally the number of the change the phone means to undo."""

    by: str
    id: ChangeId
    change: int | None = None


class KeptRound(_Body):
    """A round of the sheet: its number, its entry and its version (the number of the
    last change that wrote it)."""

    n: int
    entry: SheetEntry
    version: int


class SheetChange(_Body):
    """One change of the sheet's history: who made it, when (seconds since the epoch),
    what the round was before and after (``None``: no such round), and for an undo the
    change it undid; a ``link`` or ``unlink`` (round 0) names the ``seat`` and the
    ``profile`` linked to it or unlinked from it."""

    n: int
    round: int
    by: str
    at: float
    kind: Literal["entry", "correction", "undo", "link", "unlink"]
    before: SheetEntry | None
    after: SheetEntry | None
    undoes: int | None = None
    seat: int | None = None
    profile: str | None = None


class SheetBody(_Body):
    """A sheet (``GET /api/sheets/{code}``, every change's answer, each live event):
    ``sheet`` is the engine's score sheet of its rounds; ``winners`` empty until it is
    ``over``; ``places`` each player's place by total now; ``version`` its number of changes;
    ``creator`` the public profile id of whoever made it with a profile (``None``: nobody),
    who may unlink any seat until the match is over."""

    code: str
    created: float
    rules: dict[str, str | int | bool]
    players: list[SheetPlayer]
    rounds: list[KeptRound]
    sheet: SheetMsg
    over: bool
    winners: list[int]
    places: list[int]
    version: int
    changes: list[SheetChange]
    creator: str | None = None


class SheetConflict(_Body, kw_only=True):
    """409: the round was written by someone else since ``base``: their entry (``None``:
    the round is gone, undone) and its version, and yours, which was not applied."""

    error: Literal["conflict"] = "conflict"
    message: str
    theirs: SheetEntry | None
    yours: SheetEntry
    version: int | None


KEEPER_BODIES: tuple[type[msgspec.Struct], ...] = (
    CreateSheet,
    PutRound,
    UndoChange,
    SheetBody,
    SheetConflict,
)
"""The bodies docs/protocol.md shows in examples (their parts are shown inside them)."""


def tally_of(entry: SheetEntry) -> Tally:
    """The engine's tally of an entry."""
    return Tally(tuple(entry.center), tuple(entry.stack), TALLY_ENDINGS[entry.ending], entry.stopped_by)


def entry_of(tally: Tally) -> SheetEntry:
    """The wire form of a tally."""
    ending: Literal["stop", "stalemate"] = "stop" if tally.ending is Ending.STOP else "stalemate"
    return SheetEntry(center=list(tally.center), stack=list(tally.stack), ending=ending, stopped_by=tally.stopped_by)
