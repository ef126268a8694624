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
only when the script comes to it: the tutor never hurries the learner).  A
:class:`TutorialTable` runs the round as any table does (the engine decides every move);
it only refuses (error ``off_script``, nothing changes) a learner's move that is not the
one the script waits for, so the tutorial cannot leave its path.  Tutorial tables are private (never listed), hold one
person and the tutor, are not written to the store and are not restored after a restart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action, Play, Source, Turn
from ligretto.engine.cards import CARDS, DECK_SIZE, face_text, parse_face
from ligretto.engine.events import Applied, Refused
from ligretto.engine.notation import parse_position
from ligretto.engine.races import Arbitration, Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.protocol import ScriptStep, script_step
from ligretto.server.table.clock import Scheduler
from ligretto.server.table.latency import NO_DELAY
from ligretto.server.table.seats import new_token
from ligretto.server.table.table import Abandoned, Listener, Phase, Seat, Table, TableError
from ligretto.server.table.timing import COUNTDOWN_S

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


class TutorialTable(Table):
    """A private table of the learner (seat 0, the host) and the tutor (seat 1) that deals
    the tutorial's round and follows its script.  It starts when the learner connects."""

    def __init__(
        self,
        code: str,
        name: str,
        *,
        countdown_s: float = COUNTDOWN_S,
        clock: Callable[[], float] | None = None,
        scheduler: Scheduler | None = None,
        tutor_delay_s: float = TUTOR_DELAY_S,
    ) -> None:
        super().__init__(
            code,
            seats=2,
            rules=RULES,
            public=False,
            countdown_s=countdown_s,
            clock=clock,
            scheduler=scheduler,
            fairness=LESSON,
        )
        self.token = new_token()
        self.seats[LEARNER] = Seat(name, self.token)
        self.seats[TUTOR] = Seat(TUTOR_NAME, new_token(), bot=BotSpec("smart", "beginner"))
        self.host = LEARNER
        self.tutor_delay_s = tutor_delay_s
        self.next_step = 0
        """Index in :data:`SCRIPT` of the move the round waits for."""

    @property
    def expected(self) -> Step | None:
        return SCRIPT[self.next_step] if self.next_step < len(SCRIPT) else None

    def _deal(self) -> Round:
        assert self.match is not None
        game = tutorial_round(self.rules)
        self.match.resume_round(game, recorded=False)
        self.next_step = 0
        return game

    def join(self, listener: Listener, name: str, profile: str | None = None) -> tuple[int, str]:
        raise TableError("full", "every seat is taken: you can watch")

    def rejoin(self, listener: Listener, token: str) -> int:
        """The learner comes (the first time: the round is dealt at once)."""
        if self.phase is Phase.LOBBY and self.seat_of(token) == LEARNER:
            self.start(LEARNER)
        return super().rejoin(listener, token)

    def act(
        self,
        index: int | None,
        action: Action,
        client_id: str | int | None = None,
        *,
        sent: float | None = None,
        delay: float = NO_DELAY,
    ) -> Applied | Refused | None:
        """As any table, but the learner may only make the move the script waits for."""
        step = self.expected
        on_script = step is not None and step.seat == LEARNER and _same_move(action, step.action)
        if self.phase is Phase.PLAYING and index == LEARNER and not on_script:
            raise TableError("off_script", "the tutorial waits for another move")
        result = super().act(index, action, client_id, sent=sent, delay=delay)
        if isinstance(result, Applied) and step is not None and index == step.seat and _same_move(action, step.action):
            self.next_step += 1
            following = self.expected
            if following is not None and following.seat == TUTOR:
                self._later(self.tutor_delay_s, self._tutor_moves)
        return result

    def _tutor_moves(self) -> None:
        step = self.expected
        if self.phase is Phase.PLAYING and step is not None and step.seat == TUTOR:
            self.act(TUTOR, step.action)

    def _start_bot(self, index: int) -> None:
        """The tutor plays its script only; nobody stands in for an absent learner."""

    def abandoned(self, abandoned_s: float, deserted_s: float) -> Abandoned | None:
        """The learner away for the shorter of the two, whatever the phase: a tutorial is
        not resumed."""
        since = self.idle_since
        if since is None or self.clock() - since < min(abandoned_s, deserted_s):
            return None
        return Abandoned.MATCH if self.phase not in (Phase.LOBBY, Phase.OVER) else Abandoned.AWAY
