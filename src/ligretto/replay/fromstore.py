"""The replay document of one stored round.

The server's store gives a round's log back (``SqliteStore.round_log(code, match,
number)``, h15-store): where it was played, its rule set as a dict, its players (seat,
display name), its own seed, when it started (``started``: the store's clock when the
round was dealt, before its countdown) and its actions in order, applied or refused, each
with its seat and the table's clock when it took effect (``at``; ``None`` for actions
stored before times were).  :class:`RoundLog`, :class:`RoundPlayer` and
:class:`LoggedAction` say exactly what is read of it, so this module imports nothing of
the server; the integrator hands the store's value to :func:`replay_of`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.replay.file import ReplayDoc, RoundRef, write_round


class LoggedAction(Protocol):
    """One stored action: the seat that sent it, when it took effect, the action's dict."""

    @property
    def seat(self) -> int: ...
    @property
    def at(self) -> float | None: ...
    @property
    def action(self) -> dict[str, Any]: ...


class RoundPlayer(Protocol):
    """A seat of a stored round and the name it played under."""

    @property
    def seat(self) -> int: ...
    @property
    def name(self) -> str: ...


class RoundLog(Protocol):
    """One stored round, as the store reads it back."""

    @property
    def code(self) -> str: ...
    @property
    def match(self) -> int: ...
    @property
    def number(self) -> int: ...
    @property
    def rules(self) -> dict[str, Any]: ...
    @property
    def players(self) -> Sequence[RoundPlayer]: ...
    @property
    def seed(self) -> int: ...
    @property
    def started(self) -> float: ...
    @property
    def actions(self) -> Sequence[LoggedAction]: ...


def replay_of(log: RoundLog, *, start: float | None = None, where: bool = True) -> ReplayDoc:
    """The replay document of a stored round.

    Each action's time is ``at - start`` (at least 0), ``start`` the round's start on
    the actions' clock: the log's ``started`` unless given (the integrator may pass
    ``started`` plus the table's countdown, so times count from "go").  An action stored
    without a time gets ``t: null``; the document still verifies.  The engine plays the
    log again here, so the answers and boards in the file are the engine's.  ``where``
    ``False`` leaves out where it was played (the table's invite code: a shared replay
    does not hand out the table).
    """
    seats = sorted(log.players, key=lambda player: player.seat)
    if [player.seat for player in seats] != list(range(len(seats))):
        raise ValueError(f"the stored players' seats are {[p.seat for p in seats]}, not 0-{len(seats) - 1}")
    offset = log.started if start is None else start
    entries = []
    for index, logged in enumerate(log.actions):
        action = action_from_dict(logged.action)
        if action.player != logged.seat:
            raise ValueError(f"stored action {index} is by seat {action.player}, stored for seat {logged.seat}")
        entries.append((action, None if logged.at is None else max(0.0, logged.at - offset)))
    ref = RoundRef(log.code, log.match, log.number) if where else None
    return write_round(RuleSet.from_dict(log.rules), [p.name for p in seats], log.seed, entries, where=ref)
