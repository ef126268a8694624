"""The real-time bots of a table: each a :class:`~ligretto.bots.driver.BotDriver` on the
table's scheduler.

Each bot seat (a bot, or a stand-in for a person away too long) is a :class:`TableBot`:
its driver says what to do and after how long, the same driver the simulator runs in
virtual time, and the waiting is a timer of the table's scheduler
(``ligretto.server.table.clock``), not a task of its own, so in a test the bots play in virtual
time.  The bot sees what its seat may see (an
:class:`~ligretto.engine.observation.Observation`) and acts through the table's ``act`` like
any player, with no network delay: its plays are judged with everyone else's
(``server.judging``), and a play held for rivals is waited for, as a person waits for the
ack, before it plans its next move.  A bot's timer is
cancelled when it stops: the round is over, or its person is back.

:class:`TableBots` is given what the bots need of their table: its code (for the logs),
the round being played (``live_round``) and its ``act``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ligretto.bots.driver import BotDriver
from ligretto.bots.spec import BotSpec
from ligretto.engine.actions import Action
from ligretto.engine.events import Applied, Refused
from ligretto.engine.state import Round
from ligretto.server.table.clock import Scheduler, Timer

log = logging.getLogger("ligretto.table")


Act = Callable[[int, Action], Applied | Refused | None]
"""The table's ``act``: the action's result, or ``None`` while fair judging holds it (the
table calls :meth:`TableBots.settled` when it has taken effect)."""


class TableBot:
    """One bot seat in real time: every wait its driver plans is a timer of its table's scheduler."""

    def __init__(self, bots: TableBots, game: Round, driver: BotDriver) -> None:
        self.bots = bots
        self.scheduler = bots.scheduler
        self.game = game
        self.driver = driver
        self._timer: Timer | None = None
        self.stopped = False
        self.held = False
        """Its last play is held by fair judging: it plans again once that took effect."""

    @property
    def index(self) -> int:
        return self.driver.seat

    def start(self) -> None:
        """The first look, on the loop's next turn (as soon as the table's call is done)."""
        self._wait(0.0, None)

    def stop(self) -> None:
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _wait(self, seconds: float, action: Action | None) -> None:
        self._timer = self.scheduler.call_later(seconds, lambda: self._step(action))

    def _step(self, action: Action | None) -> None:
        """The wait is over: make the planned move (if any), then plan the next one."""
        self._timer = None
        if self.stopped or self.bots.live_round() is not self.game:
            return
        try:
            if action is not None:
                if self.bots.act(self.index, action) is None:
                    self.held = True  # like a person, it waits for the table's answer
                    return
                if self.stopped:  # that move ended the round
                    return
            self._plan()
        except Exception:  # a bot must never take the table down
            log.exception("bot at %s seat %s failed", self.bots.code, self.index)

    def settled(self) -> None:
        """Its held play has taken effect: it looks at the table again."""
        if not self.held or self.stopped:
            return
        self.held = False
        try:
            self._plan()
        except Exception:  # a bot must never take the table down
            log.exception("bot at %s seat %s failed", self.bots.code, self.index)

    def _plan(self) -> None:
        if self.stopped or self.bots.live_round() is not self.game:
            return
        seconds, planned = self.driver.plan()
        self._wait(seconds, planned)


class TableBots:
    """The bots playing at one table now, by seat: ``code`` the table's, ``live_round()``
    the round being played there (``None``: none), ``act`` the table's."""

    def __init__(self, code: str, scheduler: Scheduler, live_round: Callable[[], Round | None], act: Act) -> None:
        self.code = code
        self.scheduler = scheduler
        self.live_round = live_round
        self.act = act
        self._bots: dict[int, TableBot] = {}

    def __contains__(self, index: int) -> bool:
        return index in self._bots

    def start(self, index: int, spec: BotSpec, round_key: str) -> None:
        """A bot plays seat ``index`` in the round being played (nothing if one already
        does, or no round is); ``round_key`` names the round for its seeds
        (:func:`~ligretto.bots.driver.bot_seeds`)."""
        game = self.live_round()
        if index in self._bots or game is None:
            return
        bot = TableBot(self, game, spec.driver(game, index, round_key, real_time=True))
        self._bots[index] = bot
        bot.start()

    def settled(self, index: int) -> None:
        """The held play of the bot at ``index`` has taken effect (fair judging)."""
        bot = self._bots.get(index)
        if bot is not None:
            bot.settled()

    def stop(self, index: int) -> None:
        bot = self._bots.pop(index, None)
        if bot is not None:
            bot.stop()

    def stop_all(self) -> None:
        for index in list(self._bots):
            self.stop(index)
