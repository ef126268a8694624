"""The tutorial: a guided first match of two rounds on fixed, short deals, with a tutor that waits.

Each deal is a position written in the engine's own notation
(:func:`~ligretto.engine.notation.parse_position`), so the engine checks it like any
other: every card of each deck exactly once.  They are short on purpose: in the first
round a row of 3 and a Ligretto stack of 7 cards for the learner (5 for the tutor)
instead of 10, so the learner calls Stop after thirteen moves instead of after a whole
round; the engine plays a short stack exactly as a long one (the round ends when it is
empty; each card left in it costs ``stack_penalty``).  The second round is dealt so that
nobody can play (no 1 shows anywhere): the learner and the tutor end it by the stalemate
vote, and the match (``rounds:2``) is over with its running totals.

:data:`SCRIPT` is every move of both rounds in order: the learner's (each one a lesson
the client explains and highlights) and the tutor's (played by the table after a short
pause, only when the script comes to it: the tutor never hurries the learner).  One step
is a race the tutor stages (``Step.rival``): the moment the learner's play arrives, the
tutor's card for the same place on the pile is taken first, so the learner's is beaten
to it, refused as any lost race is (``race`` to everyone) and stays where it was.  A
tutorial table is a :class:`~ligretto.server.table.table.Table` given a :class:`Tutor`
(``Table.tutorial``): it runs the rounds as any table does (the engine decides every
move); the tutor only refuses (error ``off_script``, nothing changes) a learner's move
that is not the one the script waits for, so the tutorial cannot leave its path.
Tutorial tables are private (never listed), hold one person and the tutor, are not
written to the store and are not restored after a restart.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action, Play, Source, Turn, Vote
from ligretto.engine.cards import CARDS, face_text, parse_face
from ligretto.engine.events import Applied, Refused
from ligretto.engine.match import Match
from ligretto.engine.notation import parse_position
from ligretto.engine.races import BEATEN, Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.protocol import Phase, ScriptStep, script_step
from ligretto.server.table.seats import Abandoned, Seat, Seating, TableError, new_token

LEARNER = 0
TUTOR = 1
TUTOR_DELAY_S = 1.2
"""The tutor's pause before its move: long enough to be seen coming."""
TUTOR_NAME = "Tutor"

_DEALS = (
    """
0: row r1 g5 r2 | stack b2 r10 r4 y9 r8 r3 b1 | discard | hand {hand}
1: row y7 r5 g3 | stack b9 y8 g6 r8 b6 | discard | hand *
""",
    """
0: row g7 b5 y8 | stack r9 g4 | discard | hand *
1: row y6 b3 g2 | stack r4 y5 | discard | hand *
""",
)
"""The deal of each round; every list bottom card first (the stack's top, the hand's next
card, last).  In the second no 1 shows anywhere: nobody can start a pile."""

_LEARNER_TOP_OF_HAND = "r6 r7 r9 y3 b7 g9"
"""The first round's hand of the learner, bottom to top, above the rest: the first turn
shows the yellow 3 (it fits nowhere), the second the red 6, the red 7 under it and the
red 9 under that."""


def _learner_hand() -> str:
    """The learner's hand in the first deal: every card of the deck it does not lay out,
    :data:`_LEARNER_TOP_OF_HAND` on top."""
    laid_out = parse_position(_DEALS[0].format(hand="*"))  # "*": every card not written elsewhere
    top = [parse_face(card) for card in _LEARNER_TOP_OF_HAND.split()]
    rest = [face for face in laid_out.areas[LEARNER].hand if face not in top]
    return " ".join(face_text(face) for face in rest + top)


ROUNDS = len(_DEALS)
RULES = RuleSet.preset("classic").replace(row_size=3, match_end=f"rounds:{ROUNDS}")
"""Classic rules with a row of 3 (what the deals lay out) and a match of one round per deal."""


def tutorial_round(number: int = 1, rules: RuleSet = RULES) -> Round:
    """The deal of the tutorial's round ``number`` (1-based), fresh (the engine validates
    it like any written position)."""
    return parse_position(_DEALS[number - 1].format(hand=_learner_hand()), rules)


LESSON = Fairness(Arbitration.ARRIVAL)
"""The tutorial's judging: its moves are scripted, nothing is ever held."""


@dataclass(frozen=True, slots=True)
class Step:
    """One move of the script: its lesson's name, its round, who makes it, and the move;
    ``rival``: at a race the tutor stages, the tutor's play for the same place, taken
    first the moment this one arrives (this one is then beaten to it)."""

    name: str
    round: int
    seat: int
    action: Action
    rival: Play | None = None

    @property
    def beaten_by(self) -> int | None:
        """The seat whose card wins the staged race (``None``: no race)."""
        return None if self.rival is None else self.rival.player


def _card_play(seat: int, card: str, source: Source, position: int, pile: int | None) -> Play:
    return Play(seat, source, pile, position, CARDS[seat][parse_face(card)])


def _play(
    name: str, seat: int, card: str, *, source: Source, position: int = 0, pile: int | None, rival: Play | None = None
) -> Step:
    return Step(name, 1, seat, _card_play(seat, card, source, position, pile), rival)


SCRIPT: tuple[Step, ...] = (
    _play("one", LEARNER, "r1", source=Source.ROW, position=0, pile=None),  # a 1 starts a pile; the blue 1 refills
    _play("next", LEARNER, "r2", source=Source.ROW, position=2, pile=0),  # same colour, next number; the red 3 comes
    _play("refill", LEARNER, "r3", source=Source.ROW, position=2, pile=0),  # the card that refilled the row
    _play("colour", LEARNER, "b1", source=Source.ROW, position=0, pile=None),  # another colour, another pile
    _play("stack", LEARNER, "r4", source=Source.STACK, pile=0),  # straight from the stack: the red 10 shows
    _play("others", TUTOR, "r5", source=Source.ROW, position=1, pile=0),  # the tutor plays too, on the same pile
    Step("turn", 1, LEARNER, Turn(LEARNER)),  # three cards: the yellow 3 shows, it fits nowhere
    Step("turn_again", 1, LEARNER, Turn(LEARNER)),  # three more: the red 6
    _play("discard", LEARNER, "r6", source=Source.DISCARD, pile=0),  # the discard pile's top: the red 7 under it
    _play("under", LEARNER, "r7", source=Source.DISCARD, pile=0),  # the card under it: the red 9 under that
    _play(  # a race for the 8th place: the tutor's red 8 (its stack top) arrives first
        "race",
        LEARNER,
        "r8",
        source=Source.ROW,
        position=2,
        pile=0,
        rival=_card_play(TUTOR, "r8", Source.STACK, 0, 0),
    ),
    _play("beaten", LEARNER, "r9", source=Source.DISCARD, pile=0),  # the red 8 stayed in the row; on with the 9
    _play("complete", LEARNER, "r10", source=Source.STACK, pile=0),  # the pile is complete at 10
    _play("stop", LEARNER, "b2", source=Source.STACK, pile=1),  # the last stack card: Ligretto Stop!
    Step("new_round", 2, LEARNER, Turn(LEARNER)),  # a new deal, no 1 anywhere: turning shows none either
    Step("vote", 2, LEARNER, Vote(LEARNER)),  # stuck: the learner votes to end the round
    Step("agree", 2, TUTOR, Vote(TUTOR)),  # the tutor too: everyone voted, the round and the match end
)
"""Every move of the tutorial's match, in order."""


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
    1), the tutorial's rounds, and where its script is (``next_step``).  The table deals
    each round by :meth:`deal`, starts the first when the learner comes, asks
    :meth:`check` before each move, takes the tutor's :meth:`staged` play first at a race
    and asks :meth:`followed` after the move, plays :meth:`due` for the tutor after
    ``delay_s``, starts no bot (the tutor plays its script only; nobody stands in for an
    absent learner) and asks :meth:`abandoned` when it may close."""

    def __init__(self, name: str, delay_s: float = TUTOR_DELAY_S) -> None:
        self.name = name
        self.token = new_token()
        """The learner's seat token (given back by ``POST /api/tutorial``)."""
        self.delay_s = delay_s
        self.next_step = 0
        """Index in :data:`SCRIPT` of the move the match waits for."""

    def seat(self, seating: Seating) -> None:
        """The learner (the host, who has not come yet) and the tutor at their seats."""
        seating.seats[LEARNER] = Seat(self.name, self.token)
        seating.seats[TUTOR] = Seat(TUTOR_NAME, new_token(), bot=BotSpec("smart", "beginner"))
        seating.host = LEARNER

    @property
    def expected(self) -> Step | None:
        return SCRIPT[self.next_step] if self.next_step < len(SCRIPT) else None

    def deal(self, match: Match) -> Round:
        """The match's next round of the tutorial, as its current one; the script at that
        round's first move (a rematch: the first round's again)."""
        number = len(match.sheet.rounds) + 1
        game = tutorial_round(number, match.rules)
        match.resume_round(game, recorded=False)
        self.next_step = next(i for i, step in enumerate(SCRIPT) if step.round == number)
        return game

    def check(self, index: int | None, action: Action, phase: Phase) -> Step | None:
        """The move the script waits for now; the learner may make no other while the
        round is played (``off_script``)."""
        step = self.expected
        on_script = step is not None and step.seat == LEARNER and _same_move(action, step.action)
        if phase is Phase.PLAYING and index == LEARNER and not on_script:
            raise TableError("off_script", "the tutorial waits for another move")
        return step

    def staged(self, step: Step | None, index: int | None, phase: Phase) -> Play | None:
        """At a race the script stages, the rival's play, to be taken before the move of
        ``index`` (which :meth:`check` found on the script) arrives at the engine."""
        if phase is Phase.PLAYING and step is not None and index == step.seat:
            return step.rival
        return None

    def followed(self, step: Step | None, index: int | None, action: Action, result: Applied | Refused | None) -> bool:
        """``action`` of ``index`` had ``result`` while the script waited for ``step``: if
        it was that move with the outcome the script wants (applied; beaten to its pile at a
        staged race), the script moves on.  ``True``: the tutor's move is next."""
        if step is None or index != step.seat or not _same_move(action, step.action):
            return False
        if step.rival is None and not isinstance(result, Applied):
            return False
        if step.rival is not None and not (isinstance(result, Refused) and result.reason in BEATEN):
            return False
        self.next_step += 1
        following = self.expected
        return following is not None and following.seat == TUTOR and following.round == step.round

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
