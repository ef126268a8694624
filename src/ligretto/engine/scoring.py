"""Scoring a round and the score sheet (RULES.md §5-§6); a match of rounds is in ``match.py``."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ligretto.engine.rules import RuleSet, Scoring
from ligretto.engine.state import Round


@dataclass(frozen=True, slots=True)
class RoundScore:
    """One player's line of the score sheet for one round."""

    center: int
    """The player's cards in the center (+1 each)."""
    stack: int
    """Cards left in the player's Ligretto stack (-stack_penalty each)."""
    score: int


def score_cards(center: int, stack: int, rules: RuleSet) -> int:
    """A round score under ``scoring=cards``: e.g. 18 in the center and 4 left -> 10."""
    score = center - rules.stack_penalty * stack
    return max(score, 0) if rules.floor_at_zero else score


def score_tally(
    rules: RuleSet, center: Sequence[int], stack: Sequence[int], stopped_by: int | None
) -> tuple[RoundScore, ...]:
    """Every player's score for a round counted at the table: each player's cards in the
    center and left in the Ligretto stack, and who called Stop (``None``: nobody).  The one
    formula of a round's score: online play (:func:`score_round`) and the score keeper of
    a game played with real cards both come here."""
    lines = []
    for seat in range(len(center)):
        if rules.scoring is Scoring.FIRST_OUT:
            score = 1 if stopped_by == seat else 0
        else:
            score = score_cards(center[seat], stack[seat], rules)
        lines.append(RoundScore(center[seat], stack[seat], score))
    return tuple(lines)


def score_round(game: Round) -> tuple[RoundScore, ...]:
    """Every player's score for a round as it stands (normally once it has ended)."""
    center = [0] * game.players
    for seats in game.pile_seats:
        for seat in seats:
            center[seat] += 1
    stack = [len(area.stack) for area in game.areas]
    return score_tally(game.rules, center, stack, game.stopped_by)


def winners(scores: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """Every seat with the highest score (ties give several winners)."""
    best = max(scores)
    return tuple(seat for seat, score in enumerate(scores) if score == best)


def places(scores: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """Each seat's place (1 = best) by score; ties share a place and the next place skips:
    ``places([5, 9, 5, 2]) == (2, 1, 2, 4)``."""
    return tuple(1 + sum(other > score for other in scores) for score in scores)


def round_seed(match_seed: int, number: int) -> int:
    """The seed of round ``number`` (1-based) of a match: independent of its neighbours."""
    digest = hashlib.sha256(f"ligretto:{match_seed}:round:{number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(slots=True)
class ScoreSheet:
    """Every round's center count, stack count and score per player, and running totals."""

    players: int
    rounds: list[tuple[RoundScore, ...]] = field(default_factory=list)
    endings: list[str] = field(default_factory=list)
    """How each round ended (``stop``, ``stalemate_vote``, ``stalemate_proven``)."""
    stopped_by: list[int | None] = field(default_factory=list)

    def add(self, game: Round) -> tuple[RoundScore, ...]:
        """Score a finished round and add its line."""
        if game.ending is None:
            raise ValueError("only a finished round can go on the score sheet")
        if game.players != self.players:
            raise ValueError(f"the sheet has {self.players} players, the round {game.players}")
        return self.add_scores(score_round(game), game.ending.value, game.stopped_by)

    def add_scores(self, scores: tuple[RoundScore, ...], ending: str, stopped_by: int | None) -> tuple[RoundScore, ...]:
        """Add a round already scored (by :func:`score_round` or :func:`score_tally`)."""
        if len(scores) != self.players:
            raise ValueError(f"the sheet has {self.players} players, the round {len(scores)}")
        self.rounds.append(scores)
        self.endings.append(ending)
        self.stopped_by.append(stopped_by)
        return scores

    def totals(self, upto: int | None = None) -> tuple[int, ...]:
        """Running totals after ``upto`` rounds (all by default)."""
        rows = self.rounds[:upto]
        return tuple(sum(row[seat].score for row in rows) for seat in range(self.players))

    def round_winners(self, index: int) -> tuple[int, ...]:
        return winners([line.score for line in self.rounds[index]])

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "rounds": [
                {
                    "ending": ending,
                    "stopped_by": stopped,
                    "lines": [{"center": s.center, "stack": s.stack, "score": s.score} for s in row],
                    "totals": list(self.totals(number + 1)),
                    "winners": list(self.round_winners(number)),
                }
                for number, (row, ending, stopped) in enumerate(
                    zip(self.rounds, self.endings, self.stopped_by, strict=True)
                )
            ],
            "totals": list(self.totals()),
            "places": list(places(self.totals())),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreSheet:
        sheet = cls(int(data["players"]))
        for row in data["rounds"]:
            sheet.rounds.append(
                tuple(RoundScore(line["center"], line["stack"], line["score"]) for line in row["lines"])
            )
            sheet.endings.append(row["ending"])
            sheet.stopped_by.append(row["stopped_by"])
        return sheet

    def format(self, names: list[str] | None = None) -> str:
        """The sheet as a plain-text table, like the one in seed 004."""
        names = names or [f"Player {seat + 1}" for seat in range(self.players)]
        width = max(len(n) for n in names) + 2
        lines = []
        for number, row in enumerate(self.rounds, start=1):
            ending = self.endings[number - 1]
            lines.append(f"Round {number} ({ending.replace('_', ' ')})")
            lines.append(f"{'Player':<{width}}{'Center':>7}{'Stack':>7}{'Score':>7}{'Total':>7}")
            totals = self.totals(number)
            for seat, line in enumerate(row):
                mark = " *" if seat in self.round_winners(number - 1) else ""
                lines.append(
                    f"{names[seat]:<{width}}{line.center:>7}{line.stack:>7}{line.score:>7}{totals[seat]:>7}{mark}"
                )
            lines.append("")
        return "\n".join(lines)
