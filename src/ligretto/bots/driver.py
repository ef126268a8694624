"""One bot's loop, the same in virtual and in real time: choose, wait, act, look again.

A bot looks at what its seat sees and chooses its next intended action; the action takes
effect after the bot's reaction time for that kind of move, whatever happened meanwhile
(a play whose pile was taken is refused, "beaten to it", as for a person); then it looks
again.  With nothing to do it looks again a moment later.

:class:`BotDriver` is that loop without the waiting: :meth:`BotDriver.plan` says what to do
and after how long, and its host does the waiting -- the simulator's event heap in virtual
time, the server's scheduler in real time -- then applies the action through its own
authority and asks for the next plan.  Both hosts seed their bots with :func:`bot_seeds`
and pace them by the one policy below.
"""

from __future__ import annotations

from typing import Final

from ligretto.bots.reaction import MOVE_OF, DelaySampler, Move
from ligretto.bots.strategies import Strategy
from ligretto.engine.actions import Action
from ligretto.engine.observation import Observation

LOOK_AGAIN: Final = 0.1
"""The shortest wait before a bot with nothing to do looks again (``machine`` bots too)."""

MIN_MOVE_REAL_TIME: Final = 0.02
"""On a real clock, the shortest wait before a move: even a ``machine`` bot leaves the event
loop and the people at its table a moment between its moves.  Virtual time has no such
floor, so ``machine`` stays the instantaneous bound the simulator measures against."""

_LOOK: Final = int(Move.LOOK)
_PLACE: Final = int(Move.PLACE)


def bot_seeds(round_key: str, seat: int) -> tuple[str, str]:
    """The seeds of the bot at ``seat`` in the round named ``round_key``: one for its
    strategy's choices, one for its reaction times (so its choices never shift its times).

    ``round_key`` names the round uniquely in its host: ``ligretto:{seed}:{rotation}`` in the
    simulator, ``{table code}:{match seed}:{round number}`` on the server."""
    return f"{round_key}:bot:{seat}", f"{round_key}:delay:{seat}"


class BotDriver:
    """Drives one bot through one round: ``plan()`` gives (seconds to wait, action or ``None``).

    ``None`` means "look again after the wait"; an action is to be applied once the wait is
    over.  Either way the host calls ``plan()`` again when it has done so.
    """

    __slots__ = ("_min_move", "_moves", "_sampler", "_strategy", "seat", "seen")

    def __init__(
        self, strategy: Strategy, sampler: DelaySampler, seen: Observation, *, real_time: bool = False
    ) -> None:
        self._strategy = strategy
        self._sampler = sampler
        self._moves = MOVE_OF
        self._min_move = MIN_MOVE_REAL_TIME if real_time else 0.0
        self.seen = seen
        self.seat = seen.seat

    def plan(self) -> tuple[float, Action | None]:
        """Choose on what the seat sees now; the reaction delay for that kind of move, with
        the playable options and center piles the bot saw (more take longer, as for people)."""
        action = self._strategy.choose(self.seen)
        if action is None:
            delay = self._sampler.delay(_LOOK)
            return (delay if delay > LOOK_AGAIN else LOOK_AGAIN), None
        kind = self._moves[type(action)]
        seen = self.seen
        # only a play or a placement is a choice among the options (Hick-Hyman): count them then
        options = seen.play_options() if kind <= _PLACE else 1
        delay = self._sampler.delay(kind, options, seen.piles)
        return (delay if delay > self._min_move else self._min_move), action
