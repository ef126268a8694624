"""The real-time bots of a table: look, wait the reaction time, act, look again.

Each bot seat (a bot, or a stand-in for a person away too long) is a :class:`TableBot`
whose waiting is a timer of the table's scheduler (``ligretto.server.clock``), not a task
of its own: in a test the bots play in virtual time.  The bot sees what its seat may see
(an :class:`~ligretto.engine.observation.Observation`) and acts through the table's ``act``
like any player, so its actions are ordered by arrival with everyone else's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from ligretto.bots.reaction import LOOK_AGAIN, MOVE_OF, Move
from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action
from ligretto.engine.events import Applied, Refused
from ligretto.engine.observation import Observation
from ligretto.engine.state import Round
from ligretto.server.clock import Scheduler, Timer

log = logging.getLogger("ligretto.table")

MIN_MOVE_S = 0.02
"""The shortest wait before a bot's move (a machine bot does not flood the table)."""


class BotsTable(Protocol):
    """What a bot needs of its table."""

    code: str

    def live_round(self) -> Round | None:
        """The round being played (``None``: no round is being played now)."""
        ...

    def act(self, index: int | None, action: Action, client_id: str | int | None = None) -> Applied | Refused: ...


class TableBot:
    """One bot seat in real time: every wait is a timer of ``scheduler``."""

    def __init__(self, table: BotsTable, scheduler: Scheduler, index: int, spec: BotSpec, seed: str) -> None:
        self.table = table
        self.scheduler = scheduler
        self.index = index
        self.strategy, self.delay = spec.build(f"{seed}:bot", f"{seed}:delay")
        self._timer: Timer | None = None
        self.stopped = False

    def start(self) -> None:
        """The first look, on the loop's next turn (as soon as the table's call is done)."""
        self._wait(0.0, self._look)

    def stop(self) -> None:
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _wait(self, seconds: float, then: Callable[[], None]) -> None:
        self._timer = self.scheduler.call_later(seconds, then)

    def _look(self) -> None:
        """Decide on what the seat sees: a move after its reaction time, or look again."""
        self._timer = None
        game = self.table.live_round()
        if self.stopped or game is None:
            return
        try:
            action = self.strategy.choose(Observation(game, self.index))
        except Exception:  # a bot must never take the table down
            log.exception("bot at %s seat %s failed", self.table.code, self.index)
            return
        if action is None:
            self._wait(max(self.delay(Move.LOOK), LOOK_AGAIN), self._look)
        else:
            self._wait(max(self.delay(MOVE_OF[type(action)]), MIN_MOVE_S), lambda: self._move(action))

    def _move(self, action: Action) -> None:
        self._timer = None
        if self.stopped or self.table.live_round() is None:
            return
        try:
            self.table.act(self.index, action)
        except Exception:  # a bot must never take the table down
            log.exception("bot at %s seat %s failed", self.table.code, self.index)
            return
        self._look()


class TableBots:
    """The bots playing at one table now, by seat."""

    def __init__(self, table: BotsTable, scheduler: Scheduler) -> None:
        self.table = table
        self.scheduler = scheduler
        self._bots: dict[int, TableBot] = {}

    def __contains__(self, index: int) -> bool:
        return index in self._bots

    def start(self, index: int, spec: BotSpec, seed: str) -> None:
        """A bot plays seat ``index`` (nothing if one already does); ``seed`` names its
        choices and reaction times."""
        if index in self._bots:
            return
        bot = TableBot(self.table, self.scheduler, index, spec, seed)
        self._bots[index] = bot
        bot.start()

    def stop(self, index: int) -> None:
        bot = self._bots.pop(index, None)
        if bot is not None:
            bot.stop()

    def stop_all(self) -> None:
        for index in list(self._bots):
            self.stop(index)
