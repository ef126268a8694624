"""The tutorial: a guided first round on a fixed, short deal, with a tutor that waits.

The deal is a position written in the engine's own notation
(:func:`~ligretto.engine.notation.parse_position`), so the engine checks it like any
other: every card of each deck exactly once.  It is short on purpose: a row of 3 and a
Ligretto stack of 6 cards for the learner (4 for the tutor) instead of 10, so the learner
calls Stop after ten moves instead of after a whole round; the engine plays a short
stack exactly as a long one (the round ends when it is empty; each card left in it costs
``stack_penalty``).

:data:`SCRIPT` is the round's every move in order: the learner's (each one a lesson the
client explains and highlights) and the tutor's (played by the table after a short pause,
only when the script comes to it: the tutor never hurries the learner).  A tutorial
table is a :class:`~ligretto.server.table.table.Table` given a :class:`Tutor`
(``Table.tutorial``): it runs the round as any table does (the engine decides every move);
the tutor only refuses (error ``off_script``, nothing changes) a learner's move that is not
the one the script waits for, so the tutorial cannot leave its path.  Tutorial tables are
private (never listed), hold one person and the tutor, are not written to the store and
are not restored after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action, Play, Source, Turn
from ligretto.engine.cards import CARDS, DECK_SIZE, face_text, parse_face
from ligretto.engine.events import Applied, Refused
from ligretto.engine.match import Match
from ligretto.engine.notation import parse_position
from ligretto.engine.races import Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.protocol import Phase, ScriptStep, script_step
from ligretto.server.table.seats import Abandoned, Seat, Seating, TableError, new_token

LEARNER = 0
TUTOR = 1
TUTOR_DELAY_S = 1.2
"""The tutor's pause before its move: long enough to be seen coming."""
TUTOR_NAME = "Tutor"

RULES = RuleSet.preset("classic").replace(row_size=3, match_end="rounds:1")
"""Classic rules with a row of 3 (what the deal lays out) and a match of one round."""

_LEARNER_TOP_OF_HAND = "r6 b4 g10 y3 b7 g9"
"""The learner's hand, bottom to top, above the rest: the first turn shows the yellow 3
(it fits nowhere), the second the red 6."""

_POSITION = """
0: row r1 g5 r2 | stack r7 r4 y9 g8 r3 b1 | discard | hand {hand}
1: row y7 r5 g3 | stack b9 y8 g6 b6 | discard | hand *
"""
"""The deal; every list bottom card first (the stack's top, the hand's next card, last)."""


def _learner_hand() -> str:
    laid_out = {parse_face(card) for card in ("r1", "g5", "r2", "r7", "r4", "y9", "g8", "r3", "b1")}
    top = _LEARNER_TOP_OF_HAND.split()
    top_faces = {parse_face(card) for card in top}
    rest = [face_text(face) for face in range(DECK_SIZE) if face not in laid_out | top_faces]
    return " ".join(rest + top)


def tutorial_round(rules: RuleSet = RULES) -> Round:
    """The tutorial's deal, fresh (the engine validates it like any written position)."""
    return parse_position(_POSITION.format(hand=_learner_hand()), rules)


LESSON = Fairness(Arbitration.ARRIVAL)
"""The tutorial's judging: its moves are scripted, nothing is ever held."""


@dataclass(frozen=True, slots=True)
class Step:
    """One move of the script: its lesson's name, who makes it, and the move."""

    name: str
    seat: int
    action: Action


def _play(name: str, seat: int, card: str, *, source: Source, position: int = 0, pile: int | None) -> Step:
    return Step(name, seat, Play(seat, source, pile, position, CARDS[seat][parse_face(card)]))


SCRIPT: tuple[Step, ...] = (
    _play("one", LEARNER, "r1", source=Source.ROW, position=0, pile=None),  # a 1 starts a pile; the blue 1 refills
    _play("next", LEARNER, "r2", source=Source.ROW, position=2, pile=0),  # same colour, next number; the red 3 comes
    _play("refill", LEARNER, "r3", source=Source.ROW, position=2, pile=0),  # the card that refilled the row
    _play("colour", LEARNER, "b1", source=Source.ROW, position=0, pile=None),  # another colour, another pile
    _play("stack", LEARNER, "r4", source=Source.STACK, pile=0),  # straight from the stack: one card left
    _play("others", TUTOR, "r5", source=Source.ROW, position=1, pile=0),  # the tutor plays too, on the same pile
    Step("turn", LEARNER, Turn(LEARNER)),  # three cards: the yellow 3 shows, it fits nowhere
    Step("turn_again", LEARNER, Turn(LEARNER)),  # three more: the red 6
    _play("discard", LEARNER, "r6", source=Source.DISCARD, pile=0),  # the discard pile's top
    _play("stop", LEARNER, "r7", source=Source.STACK, pile=0),  # the last stack card: Ligretto Stop!
)
"""Every move of the tutorial round, in order."""


def steps() -> list[ScriptStep]:
    """The script as the client gets it (``POST /api/tutorial``): no card named."""
    return [script_step(step) for step in SCRIPT]


def _same_move(action: Action, expected: Action) -> bool:
    """The move the script waits for (the card named or not)."""
    if isinstance(action, Play) and isinstance(expected, Play):
        return replace(action, card=None) == replace(expected, card=None)
    return action == expected


class Tutor:
    """The tutorial's part of a table: the learner (seat 0, the host) and the tutor (seat
    1), the tutorial's round, and where its script is (``next_step``).  The table deals
    the round by :meth:`deal`, starts it when the learner comes, asks :meth:`check` before
    each move and :meth:`followed` after it, plays :meth:`due` for the tutor after
    ``delay_s``, starts no bot (the tutor plays its script only; nobody stands in for an
    absent learner) and asks :meth:`abandoned` when it may close."""

    def __init__(self, name: str, delay_s: float = TUTOR_DELAY_S) -> None:
        self.name = name
        self.token = new_token()
        """The learner's seat token (given back by ``POST /api/tutorial``)."""
        self.delay_s = delay_s
        self.next_step = 0
        """Index in :data:`SCRIPT` of the move the round waits for."""

    def seat(self, seating: Seating) -> None:
        """The learner (the host, who has not come yet) and the tutor at their seats."""
        seating.seats[LEARNER] = Seat(self.name, self.token)
        seating.seats[TUTOR] = Seat(TUTOR_NAME, new_token(), bot=BotSpec("smart", "beginner"))
        seating.host = LEARNER

    @property
    def expected(self) -> Step | None:
        return SCRIPT[self.next_step] if self.next_step < len(SCRIPT) else None

    def deal(self, match: Match) -> Round:
        """The tutorial's round, as the match's current one; the script starts again."""
        game = tutorial_round(match.rules)
        match.resume_round(game, recorded=False)
        self.next_step = 0
        return game

    def check(self, index: int | None, action: Action, phase: Phase) -> Step | None:
        """The move the script waits for now; the learner may make no other while the
        round is played (``off_script``)."""
        step = self.expected
        on_script = step is not None and step.seat == LEARNER and _same_move(action, step.action)
        if phase is Phase.PLAYING and index == LEARNER and not on_script:
            raise TableError("off_script", "the tutorial waits for another move")
        return step

    def followed(self, step: Step | None, index: int | None, action: Action, result: Applied | Refused | None) -> bool:
        """``action`` of ``index`` had ``result`` while the script waited for ``step``: if
        it was that move, the script moves on.  ``True``: the tutor's move is next."""
        if isinstance(result, Applied) and step is not None and index == step.seat and _same_move(action, step.action):
            self.next_step += 1
            following = self.expected
            return following is not None and following.seat == TUTOR
        return False

    def due(self, phase: Phase) -> Action | None:
        """The tutor's move, if the script waits for it now."""
        step = self.expected
        if phase is Phase.PLAYING and step is not None and step.seat == TUTOR:
            return step.action
        return None

    def abandoned(self, seating: Seating, phase: Phase, abandoned_s: float, deserted_s: float) -> Abandoned | None:
        """The learner away for the shorter of the two, whatever the phase: a tutorial is
        not resumed."""
        since = seating.idle_since
        if since is None or seating.clock() - since < min(abandoned_s, deserted_s):
            return None
        return Abandoned.MATCH if phase not in (Phase.LOBBY, Phase.OVER) else Abandoned.AWAY
