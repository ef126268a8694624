"""The rules engine: pure, standard-library-only Ligretto rules (RULES.md).

Everything else in ``ligretto`` depends on this package, never the reverse,
and it does no I/O, reads no clock and uses no global random state.
"""

from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote, Withdraw
from ligretto.engine.area import Area
from ligretto.engine.cards import Back, Box, Card, Colour, Symbol
from ligretto.engine.events import Applied, Ending, Event, Outcome, Reason, Refused, Result
from ligretto.engine.match import Match
from ligretto.engine.notation import format_position, parse_position
from ligretto.engine.rules import OPTIONS, PRESETS, MatchEnd, RuleError, RuleSet, Scoring, ShortTurn
from ligretto.engine.scoring import RoundScore, ScoreSheet, places, score_round, winners
from ligretto.engine.serial import RoundRecord, replay, state_from_dict, state_to_dict
from ligretto.engine.state import NEW_PILE, Round
from ligretto.engine.views import RoundView, view

__all__ = [
    "NEW_PILE",
    "OPTIONS",
    "PRESETS",
    "Action",
    "Applied",
    "Area",
    "Back",
    "Box",
    "Card",
    "Colour",
    "Ending",
    "Event",
    "Match",
    "MatchEnd",
    "Outcome",
    "Place",
    "Play",
    "Reason",
    "Refused",
    "Result",
    "Round",
    "RoundRecord",
    "RoundScore",
    "RoundView",
    "RuleError",
    "RuleSet",
    "ScoreSheet",
    "Scoring",
    "ShortTurn",
    "Source",
    "Symbol",
    "Turn",
    "Vote",
    "Withdraw",
    "format_position",
    "parse_position",
    "places",
    "replay",
    "score_round",
    "state_from_dict",
    "state_to_dict",
    "view",
    "winners",
]
