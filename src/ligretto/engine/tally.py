"""A round counted at a real table (the score keeper, docs/protocol.md "Score keeper").

At a table playing with real cards nobody deals through the engine: after each round the
players sort the center by the backs of the cards and count, for each player, the cards
in the center and those left in the Ligretto stack, and say who called Stop.  That count
is a :class:`Tally`.  :func:`check_entry` is the one judge of whether a tally can be true
(the browser repeats only its instant bounds, pinned by a conformance test); a tally is
scored by ``scoring.score_tally``, the formula of online play, and the match ends by
``match.match_over``, the rule of online matches: no second formula anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ligretto.engine.cards import DECK_SIZE
from ligretto.engine.events import Ending
from ligretto.engine.match import match_over
from ligretto.engine.rules import RuleSet, Scoring
from ligretto.engine.scoring import RoundScore, ScoreSheet, places, score_tally, winners
from ligretto.engine.state import STACK_SIZE

__all__ = [
    "TALLY_ENDINGS",
    "BadEntry",
    "Standing",
    "Tally",
    "check_entry",
    "standing",
    "tally_scores",
    "tally_sheet",
]

TALLY_ENDINGS: dict[str, Ending] = {"stop": Ending.STOP, "stalemate": Ending.STALEMATE_VOTE}
"""How a round counted at the table ended, by its name on the wire: a Stop, or a
stalemate the table agreed on (online, everyone voting: ``stalemate_vote``)."""


@dataclass(frozen=True, slots=True)
class Tally:
    """One round as the table counted it: per player, the cards in the center and left
    in the Ligretto stack (both may be empty under ``scoring=first_out``, where only who
    stopped counts), how it ended and who called Stop (``None`` for a stalemate)."""

    center: tuple[int, ...]
    stack: tuple[int, ...]
    ending: Ending
    stopped_by: int | None

    def counts(self, players: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The center and stack counts, zeros where omitted."""
        return self.center or (0,) * players, self.stack or (0,) * players


@dataclass(frozen=True, slots=True)
class BadEntry:
    """Why a tally cannot be true: the message names the player (``player``: its seat, or
    ``None`` when it is about the whole round)."""

    message: str
    player: int | None = None


def check_entry(rules: RuleSet, names: Sequence[str], tally: Tally, number: int, sheet: ScoreSheet) -> BadEntry | None:
    """Whether ``tally`` may be round ``number`` (1-based) of ``sheet`` (the match's
    rounds so far) among the players ``names``: ``None``, or the first reason it may not.
    Unlikely but possible tallies (two players with an empty stack after a Stop) pass."""
    players = len(names)
    if number > len(sheet.rounds) and match_over(rules, sheet):
        return BadEntry(f"the match is over after round {len(sheet.rounds)}: no round {number}")
    for what, counts in (("center", tally.center), ("stack", tally.stack)):
        omitted = not counts and rules.scoring is Scoring.FIRST_OUT
        if len(counts) != players and not omitted:
            return BadEntry(f"a round has a {what} count for each of the {players} players, not {len(counts)}")
    center, stack = tally.counts(players)
    for seat, name in enumerate(names):
        if center[seat] < 0 or stack[seat] < 0:
            what, count = ("center", center[seat]) if center[seat] < 0 else ("stack", stack[seat])
            return BadEntry(f"{name}: a count is never negative, not {count} in the {what}", seat)
        if stack[seat] > STACK_SIZE:
            return BadEntry(f"{name}: a Ligretto stack holds 0-{STACK_SIZE} cards, not {stack[seat]}", seat)
        if center[seat] > DECK_SIZE - stack[seat]:
            return BadEntry(
                f"{name}: {center[seat]} cards in the center and {stack[seat]} in the stack are more than "
                f"a deck's {DECK_SIZE} cards allow (at most {DECK_SIZE - stack[seat]} in the center)",
                seat,
            )
    return _check_ending(names, tally, stack)


def _check_ending(names: Sequence[str], tally: Tally, stack: tuple[int, ...]) -> BadEntry | None:
    if tally.ending not in TALLY_ENDINGS.values():
        return BadEntry(f"a round counted at the table ends by stop or stalemate, not {tally.ending.value}")
    if tally.ending is not Ending.STOP:
        if tally.stopped_by is not None:
            return BadEntry("nobody calls Stop in a stalemate: stopped_by is null")
        return None
    caller = tally.stopped_by
    if caller is None:
        return BadEntry("a round that ended with Stop says who called it (stopped_by)")
    if not 0 <= caller < len(names):
        return BadEntry(f"stopped_by {caller} is not a player: the players are 0-{len(names) - 1}")
    if stack[caller] != 0:
        return BadEntry(
            f"{names[caller]} called Stop with {stack[caller]} cards left in the Ligretto stack: "
            "Stop is called when the stack is empty",
            caller,
        )
    return None


def tally_scores(rules: RuleSet, tally: Tally, players: int) -> tuple[RoundScore, ...]:
    """The round's scores, by the engine's one formula (``score_tally``)."""
    center, stack = tally.counts(players)
    return score_tally(rules, center, stack, tally.stopped_by)


def tally_sheet(rules: RuleSet, players: int, tallies: Sequence[Tally]) -> ScoreSheet:
    """The score sheet of a match counted at the table, round by round."""
    sheet = ScoreSheet(players)
    for tally in tallies:
        sheet.add_scores(tally_scores(rules, tally, players), tally.ending.value, tally.stopped_by)
    return sheet


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a match stands: over (by ``match_end``), its winners (empty until it is
    over; several on a tie) and each seat's place by total now (ties share a place)."""

    over: bool
    winners: tuple[int, ...]
    places: tuple[int, ...]


def standing(rules: RuleSet, sheet: ScoreSheet) -> Standing:
    totals = sheet.totals()
    over = match_over(rules, sheet)
    return Standing(over, winners(totals) if over else (), places(totals))
