"""A table's plays: every game action taken (``act``), judged, applied in the order judged,
answered and told to everyone (docs/fairness.md, docs/protocol.md "Races").

:class:`Plays` is the part of a :class:`~ligretto.server.table.table.Table` between a client's
``act`` and the engine: the phase and the seat are checked, the table's ``Judge``
(``server/table/judging.py``) decides when the action takes effect (at once, or held for rivals
at a ``fair`` table), and :meth:`Plays._take_effect` applies it: the engine decides, the
store logs it in that order (so a replay gives the judged round), the sender gets the
ack and everyone the events, or for a lost race who won it and by how much (``race``).
Plays still held when the round ends or the table closes are answered ``round_over``.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from ligretto.engine.actions import Action, Play
from ligretto.engine.events import Applied, Reason, Refused
from ligretto.engine.races import Fairness, race_lost, rivals
from ligretto.engine.serial import action_to_dict
from ligretto.engine.state import Round
from ligretto.server.ops import metrics
from ligretto.server.table import messages
from ligretto.server.table.bots import TableBots
from ligretto.server.table.judging import Judge, Pending
from ligretto.server.table.latency import NO_DELAY
from ligretto.server.table.resume import Resuming
from ligretto.server.table.seats import Phase, TableError


class ActionLog(Protocol):
    """Where the actions go, in the order they took effect (the table's store)."""

    def record_action(self, table: Any, index: int, action: dict[str, Any], at: float) -> None: ...


class Plays(Resuming):
    """The plays of a table (see the module's docstring); the table gives it its round,
    its store, its judge and its bots."""

    store: ActionLog
    judge: Judge
    bots: TableBots

    @property
    def game(self) -> Round | None:
        """The round dealt now (``None``: none)."""
        raise NotImplementedError

    def live_round(self) -> Round | None:
        """The round being played now (``None`` in every other phase)."""
        raise NotImplementedError

    @property
    def round_number(self) -> int:
        raise NotImplementedError

    def _round_over(self) -> None:
        """The round just ended (the action applied last ended it)."""
        raise NotImplementedError

    @property
    def fairness(self) -> Fairness:
        """How this table judges races (``arbitration`` and window)."""
        return self.judge.fairness

    @fairness.setter
    def fairness(self, fairness: Fairness) -> None:
        self.judge.fairness = fairness

    def act(
        self,
        index: int | None,
        action: Action,
        client_id: str | int | None = None,
        *,
        sent: float | None = None,
        delay: float = NO_DELAY,
    ) -> Applied | Refused | None:
        """One action of ``index``: checked here, judged (``judging``), decided by the
        engine, sent to all.  ``sent``: the sender's stamp on the table's clock (``None``:
        when it arrived), ``delay``: its connection's measured one-way delay (seconds).
        Returns the engine's result, or ``None`` while the play is held for rivals (its
        ack follows when it takes effect)."""
        if index is None:
            raise TableError("not_seated", "spectators cannot play")
        game = self.game
        if self.phase is Phase.COUNTDOWN:
            raise TableError("countdown", "wait for the countdown to end")
        if self.phase is not Phase.PLAYING or game is None:
            raise TableError("not_playing", "no round is being played")
        if action.player != index:
            raise TableError("not_your_seat", "you can only play your own cards")
        now = self.clock()
        pending = Pending(index, action, client_id, now, now if sent is None else sent, delay)
        if not self.judge.admit(pending):
            return None
        return self._take_effect(pending)

    def _rivals(self, action: Action) -> tuple[int, ...]:
        game = self.live_round()
        return () if game is None else rivals(game, action)

    def _take_effect(self, pending: Pending) -> Applied | Refused:
        """The judge lets ``pending`` go: the engine decides it, the store logs it in this
        order, its sender gets the ack and everyone what changed (or, for a lost race, who
        won it)."""
        game = self.game
        assert game is not None and self.phase is Phase.PLAYING
        start = time.perf_counter()
        index, action = pending.seat, pending.action
        count = len(game.log)
        piles = len(game.pile_seats)
        result = game.apply(action)
        self.store.record_action(self, count, action_to_dict(action), self.clock())
        if isinstance(result, Refused):
            self._refused(pending, game, result)
        else:
            if isinstance(action, Play):
                pile = piles if action.pile is None else action.pile
                self.judge.placed(pile, len(game.pile_seats[pile]), pending.compensated)
            self._ack(index, pending.client_id, result)
            self.broadcast(messages.events(self.round_number, count, index, result.events))
            if game.over:
                self._round_over()
        waited = self.clock() - pending.arrival if pending.held else 0.0
        reason = result.reason.value if isinstance(result, Refused) else None
        metrics.action(time.perf_counter() - start + waited, reason)
        if pending.held:
            metrics.held(waited)
            if index in self.bots:
                self.bots.settled(index)
        return result

    def _refused(self, pending: Pending, game: Round, result: Refused) -> None:
        """A refused action's ack; for a lost race, who won it and by how much, to all."""
        lost = race_lost(game, pending.action, result)
        if lost is None:
            self._ack(pending.seat, pending.client_id, result)
            return
        pile, height, winner = lost
        ms = self.judge.margin_ms(pile, height, pending.compensated)
        self._ack(pending.seat, pending.client_id, result, winner, ms)
        self.broadcast(messages.race(self.round_number, pile, winner, pending.seat, ms))
        metrics.race()

    def _ack(
        self,
        index: int,
        client_id: str | int | None,
        result: Applied | Refused,
        faster: int | None = None,
        faster_ms: int | None = None,
    ) -> None:
        if client_id is None:
            return
        message = messages.ack(client_id, result, faster, faster_ms)
        for listener in self.listeners:
            if listener.seat == index:
                listener.send(message)

    def _answer_held(self) -> None:
        """The round ended (or the table closes) with plays still held or waiting behind
        one: each is answered as a play after the end (the engine's ``round_over``); none
        reached the engine, so none is logged."""
        refused = Refused(Reason.ROUND_OVER)
        for pending in self.judge.drain():
            self._ack(pending.seat, pending.client_id, refused)
            metrics.action(self.clock() - pending.arrival, refused.reason.value)
