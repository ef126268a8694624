"""A table's plays: every game action taken (``act``), judged, applied in the order judged,
answered and told to everyone (docs/fairness.md, docs/protocol.md "Races").

:class:`Plays` is the part of a :class:`~ligretto.server.table.table.Table` between a client's
``act`` and the engine: the phase and the seat are checked, the table's ``Judge``
(``server/table/judging.py``) decides when the action takes effect (at once, or held for rivals
at a ``fair`` table), and :meth:`Plays.take_effect` applies it: the engine decides, the
table's log gets it in that order (``log``: the store, so a replay gives the judged round),
the sender gets the ack and everyone the events, or for a play refused because another
card took its place, who took it, and if the two came at the same time (a race:
``engine.races.same_time``) by how much, told to everyone (``race``); an action that ends
the round ends it (``Rounds.round_over``).  Plays still held when the round ends or the
table closes are answered ``round_over``.
It is given the rounds, the seats (whose connections it answers), the judge, the bots
(told when a held play of theirs took effect) and the log.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any

from ligretto.engine.actions import Action, Play
from ligretto.engine.events import Applied, Reason, Refused
from ligretto.engine.races import landed, race_lost, rivals
from ligretto.engine.serial import action_to_dict
from ligretto.engine.state import Round
from ligretto.engine.tempo import Flag, TableTempo, face_played
from ligretto.protocol import Phase
from ligretto.server.ops import metrics
from ligretto.server.table import messages
from ligretto.server.table.bots import TableBots
from ligretto.server.table.judging import Judge, Pending
from ligretto.server.table.latency import NO_DELAY
from ligretto.server.table.rounds import Rounds
from ligretto.server.table.seats import Seating, TableError
from ligretto.server.table.tutorial import TUTOR, Tutor

ActionLog = Callable[[int, dict[str, Any], float, float], None]
"""Where the actions go, in the order they took effect: ``log(index, action, at, ranked)``,
the ``index``-th action of the round, as JSON, taken effect at ``at`` and ranked at
``ranked`` (its compensated time), on the table's clock."""


@dataclass(eq=False, slots=True)
class Plays:
    """The plays of a table (see the module's docstring); at a tutorial (``tutor``) only
    the move its script waits for (at a race it stages, the tutor's rival play first), and
    the tutor's move follows in its turn."""

    rounds: Rounds
    seating: Seating
    judge: Judge
    bots: TableBots
    _: KW_ONLY
    log: ActionLog
    tutor: Tutor | None = None
    moved: Callable[[int], None] = lambda index: None
    """Told the seat of each applied action (its aim is cleared if its card moved)."""
    flagged: Callable[[int, Flag], None] = lambda index, flag: None
    """Told a seat flagged for inhuman speed (``engine.tempo``), once per round."""
    _tempo: TableTempo | None = None
    _tempo_round: int = 0

    def act(
        self, index: int | None, action: Action, client_id: str | int | None, sent: float | None, delay: float
    ) -> Applied | Refused | None:
        """``Table.act``: the action checked here (and against a tutorial's script), judged,
        decided by the engine, sent to all."""
        tutor = self.tutor
        if tutor is None:
            return self._act(index, action, client_id, sent, delay)
        step = tutor.check(index, action, self.rounds.phase)
        rival = tutor.staged(step, index, self.rounds.phase)
        if rival is not None:  # a race the script stages: the tutor's card gets there first
            self._act(TUTOR, rival, None, None, NO_DELAY)
        result = self._act(index, action, client_id, sent, delay)
        if tutor.followed(step, index, action, result):
            self.seating.timers.later(tutor.delay_s, self._tutor_moves)
        return result

    def _tutor_moves(self) -> None:
        action = None if self.tutor is None else self.tutor.due(self.rounds.phase)
        if action is not None:
            self.act(TUTOR, action, None, None, NO_DELAY)

    def _act(
        self, index: int | None, action: Action, client_id: str | int | None, sent: float | None, delay: float
    ) -> Applied | Refused | None:
        if index is None:
            raise TableError("not_seated", "spectators cannot play")
        game = self.rounds.game
        phase = self.rounds.phase
        if phase is Phase.COUNTDOWN:
            raise TableError("countdown", "wait for the countdown to end")
        if phase is not Phase.PLAYING or game is None:
            raise TableError("not_playing", "no round is being played")
        if action.player != index:
            raise TableError("not_your_seat", "you can only play your own cards")
        now = self.seating.clock()
        pending = Pending(index, action, client_id, now, now if sent is None else sent, delay)
        if not self.judge.admit(pending):
            return None
        return self.take_effect(pending)

    def rivals(self, action: Action) -> tuple[int, ...]:
        """The other seats that could contest ``action`` now (the judge asks): they show a
        card for its pile (``races.rivals``) and can play it: a bot, a stand-in or a person
        who is connected (nobody waits for the round trip of a person who is away)."""
        game = self.rounds.live_round()
        if game is None:
            return ()
        seats = self.seating.seats
        return tuple(
            index
            for index in rivals(game, action)
            if (seat := seats[index]) is not None and (not seat.human or seat.stand_in or seat.connected)
        )

    def take_effect(self, pending: Pending) -> Applied | Refused:
        """The judge lets ``pending`` go: the engine decides it, the store logs it in this
        order, its sender gets the ack and everyone what changed (or, for a lost race, who
        won it)."""
        rounds = self.rounds
        game = rounds.game
        assert game is not None and rounds.phase is Phase.PLAYING
        start = time.perf_counter()
        index, action = pending.seat, pending.action
        count = len(game.log)
        piles = len(game.pile_seats)
        tempo = self._tempo_of(game)
        face = face_played(game.areas[index], action) if isinstance(action, Play) else None
        result = game.apply(action)
        at = self.seating.clock()
        self.log(count, action_to_dict(action), at, pending.compensated)
        if isinstance(result, Refused):
            self._refused(pending, game, result)
        else:
            place = landed(game, action, piles)
            if place is not None:
                self.judge.placed(*place, pending.compensated)
            self._watch(tempo, game, pending, face=face, pile=None if place is None else place[0], at=at)
            self._ack(index, pending.client_id, result)
            self.seating.broadcast(messages.events(rounds.round_number, count, index, result.events))
            self.moved(index)
            if game.over:
                rounds.round_over()
        waited = self.seating.clock() - pending.arrival if pending.held else 0.0
        reason = result.reason.value if isinstance(result, Refused) else None
        metrics.action(time.perf_counter() - start + waited, reason)
        if pending.held:
            metrics.held(waited)
            if index in self.bots:
                self.bots.settled(index)
        return result

    def _tempo_of(self, game: Round) -> TableTempo:
        """The round's watch on its people's speed (``engine.tempo``), made at its first
        action with every area as dealt, shown at the start of play."""
        rounds = self.rounds
        if self._tempo is None or self._tempo_round != rounds.round_number:
            start = rounds.start_at if rounds.start_at is not None else self.seating.clock()
            people = frozenset(i for i, seat in enumerate(self.seating.seats) if seat is not None and seat.human)
            self._tempo, self._tempo_round = TableTempo(people, start=start), rounds.round_number
            self._tempo.dealt(game.areas)
        return self._tempo

    def _watch(
        self, tempo: TableTempo, game: Round, pending: Pending, *, face: int | None, pile: int | None, at: float
    ) -> None:
        """Inhuman speed: an applied play a person sent (not a stand-in's) is judged by its
        reaction, from when the change that made it possible was sent (``at`` of the action
        that made it) to its arrival, less the seat's round trip; the change every applied
        action made is kept, sent at ``at``."""
        index, action = pending.seat, pending.action
        seat = self.seating.seats[index]
        if isinstance(action, Play) and pending.client_id is not None and seat is not None and not seat.stand_in:
            flag = tempo.played(index, face, action.pile, pending.arrival, 2 * pending.delay)
            if flag is not None:
                self.flagged(index, flag)
        tempo.took_effect(index, game.areas[index], pile, at)

    @property
    def speed_flags(self) -> dict[int, Flag]:
        """The seats flagged for inhuman speed in the round being played (or the last)."""
        return {} if self._tempo is None else self._tempo.flags

    def _refused(self, pending: Pending, game: Round, result: Refused) -> None:
        """A refused action's ack; for a play whose place another card took, whose it was,
        and for a race (the two came at the same time) by how much, to all."""
        lost = race_lost(game, pending.action, result)
        if lost is None:
            self._ack(pending.seat, pending.client_id, result)
            return
        pile, height, winner = lost
        if not self.judge.raced(pile, height, pending.compensated):
            self._ack(pending.seat, pending.client_id, result, winner)  # too late: no race
            return
        ms = self.judge.margin_ms(pile, height, pending.compensated)
        self._ack(pending.seat, pending.client_id, result, winner, ms)
        self.seating.broadcast(messages.race(self.rounds.round_number, pile, winner, pending.seat, ms))
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
        self.seating.send_to(index, messages.ack(client_id, result, faster, faster_ms))

    def answer_held(self) -> None:
        """The round ended (or the table closes) with plays still held or waiting behind
        one: each is answered as a play after the end (the engine's ``round_over``); none
        reached the engine, so none is logged."""
        refused = Refused(Reason.ROUND_OVER)
        for pending in self.judge.drain():
            self._ack(pending.seat, pending.client_id, refused)
            metrics.action(self.seating.clock() - pending.arrival, refused.reason.value)
