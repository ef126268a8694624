"""The replay document of one stored round.

The server's store gives a round's log (``SqliteStore.round_log(code, match, round)``):
its rule set as a dict, its number of players, its own seed and its actions in order,
each with its seat and the server's time when it took effect (``None`` for actions
stored before times were).  :class:`RoundLog` and :class:`LoggedAction` say exactly what
is read of it, so this module imports nothing of the server; the integrator hands the
store's value (and the seats' names, from the table's record) to :func:`replay_of`.
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


class RoundLog(Protocol):
    """One stored round, as the store reads it back."""

    @property
    def rules(self) -> dict[str, Any]: ...
    @property
    def players(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def actions(self) -> Sequence[LoggedAction]: ...


def replay_of(
    log: RoundLog,
    names: Sequence[str] | None = None,
    *,
    started: float | None = None,
    where: RoundRef | None = None,
) -> ReplayDoc:
    """The replay document of a stored round.

    ``names`` are the seats' display names (``Player 1`` ... if not given); ``started`` the
    store's time of the round's start, subtracted from every action's ``at`` (``None``: the
    times are already from the round's start).  An action stored without a time gets
    ``t: null``; the document still verifies.  The engine plays the log again here, so
    the answers and boards in the file are the engine's.
    """
    names = list(names) if names is not None else [f"Player {seat + 1}" for seat in range(log.players)]
    if len(names) != log.players:
        raise ValueError(f"{len(names)} names for a round of {log.players} players")
    offset = 0.0 if started is None else started
    entries = []
    for index, logged in enumerate(log.actions):
        action = action_from_dict(logged.action)
        if action.player != logged.seat:
            raise ValueError(f"stored action {index} is by seat {action.player}, stored for seat {logged.seat}")
        entries.append((action, None if logged.at is None else max(0.0, logged.at - offset)))
    return write_round(RuleSet.from_dict(log.rules), names, log.seed, entries, where=where)
