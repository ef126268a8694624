"""The score sheet as the client keeps it: each round's lines and totals (the ``table``
message's ``sheet``) and the last ``round_over``, read from the protocol's messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ScoreLine:
    """One player's line of one round on the score sheet."""

    center: int
    stack: int
    score: int


@dataclass(frozen=True, slots=True)
class SheetRound:
    """One round of the score sheet: how it ended, each seat's line and the running totals."""

    ending: str
    stopped_by: int | None
    lines: tuple[ScoreLine, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A ``round_over`` message: the round's scores, the match totals and, at the end, the winners."""

    number: int
    ending: str
    stopped_by: int | None
    scores: tuple[ScoreLine, ...]
    totals: tuple[int, ...]
    match_over: bool
    winners: tuple[int, ...] | None


def sheet_round(row: Message) -> SheetRound:
    """One round of a ``table`` message's ``sheet.rounds``."""
    return SheetRound(
        ending=row["ending"],
        stopped_by=row["stopped_by"],
        lines=tuple(ScoreLine(line["center"], line["stack"], line["score"]) for line in row["lines"]),
        totals=tuple(row["totals"]),
    )


def round_result(message: Message) -> RoundResult:
    """A ``round_over`` message."""
    winners = message["winners"]
    return RoundResult(
        number=int(message["round"]),
        ending=message["ending"],
        stopped_by=message["stopped_by"],
        scores=tuple(ScoreLine(s["center"], s["stack"], s["score"]) for s in message["scores"]),
        totals=tuple(message["totals"]),
        match_over=bool(message["match_over"]),
        winners=None if winners is None else tuple(winners),
    )
