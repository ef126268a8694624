"""A match: rounds dealt from one seed, scored on one sheet, until ``match_end`` (RULES.md §6)."""

from __future__ import annotations

from typing import Any

from ligretto.engine.rules import MatchEndKind, RuleSet
from ligretto.engine.scoring import RoundScore, ScoreSheet, round_seed, winners
from ligretto.engine.serial import RoundRecord, replay
from ligretto.engine.state import Round


def match_over(rules: RuleSet, sheet: ScoreSheet) -> bool:
    """Whether a match on ``sheet`` has ended by its ``match_end``: the rounds played, or
    a total at the target (the one rule, for online matches and the score keeper's)."""
    end = rules.match_end
    played = len(sheet.rounds)
    if end.kind is MatchEndKind.ROUNDS:
        return played >= end.n
    return played > 0 and max(sheet.totals()) >= end.n


class Match:
    """A match: rounds dealt from one seed until ``match_end`` says it is over."""

    def __init__(self, rules: RuleSet, players: int, seed: int) -> None:
        rules.row_length(players)  # validates the player count
        self.rules = rules
        self.players = players
        self.seed = seed
        self.sheet = ScoreSheet(players)
        self.current: Round | None = None
        self._recorded = False

    def new_round(self) -> Round:
        """Deal the next round (the previous one must be finished and recorded)."""
        if self.over:
            raise ValueError("the match is over")
        if self.current is not None and not self.current.over:
            raise ValueError("the current round is still being played")
        if self.current is not None and not self._recorded:
            raise ValueError("record the finished round with finish_round() first")
        self.current = Round.deal(self.rules, self.players, round_seed(self.seed, len(self.sheet.rounds) + 1))
        self._recorded = False
        return self.current

    def finish_round(self) -> tuple[RoundScore, ...]:
        """Record the current, finished round on the score sheet."""
        if self.current is None or self._recorded:
            raise ValueError("no round to record: deal one with new_round()")
        scores = self.sheet.add(self.current)
        self._recorded = True
        return scores

    def resume_round(self, game: Round, recorded: bool) -> None:
        """Adopt ``game`` as the current round of a restored match (rebuilt by replay);
        ``recorded`` says whether it is already on the score sheet."""
        self.current = game
        self._recorded = recorded

    @property
    def round_number(self) -> int:
        """The number (1-based) of the current round; 0 before the first deal."""
        return len(self.sheet.rounds) + (0 if self._recorded or self.current is None else 1)

    @property
    def over(self) -> bool:
        return match_over(self.rules, self.sheet)

    def winners(self) -> tuple[int, ...]:
        """The seats with the highest total (several on a tie)."""
        return winners(self.sheet.totals())

    def to_dict(self) -> dict[str, Any]:
        """The match as JSON-ready data: the score sheet and the current round's record."""
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "sheet": self.sheet.to_dict(),
            "current": None if self.current is None else RoundRecord.of(self.current).to_dict(),
            "current_number": self.round_number,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Rebuild a match; the current round is replayed from its seed and action log."""
        match = cls(RuleSet.from_dict(data["rules"]), int(data["players"]), int(data["seed"]))
        match.sheet = ScoreSheet.from_dict(data["sheet"])
        if data["current"] is not None:
            match.current, _ = replay(RoundRecord.from_dict(data["current"]))
            match._recorded = len(match.sheet.rounds) == data.get("current_number", len(match.sheet.rounds) + 1)
        return match
