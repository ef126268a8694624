"""What everyone may see of a table: :class:`Views`, the part of a
:class:`~ligretto.server.table.table.Table` that gathers, from the parts it is given (the
seats, the settings, the rounds, the judge), the values of the ``table`` message every
player and spectator gets and of what the lobby shows (``summary``, ``details``), and
hands them to ``messages``, which makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ligretto import protocol
from ligretto.server.table import messages
from ligretto.server.table.host import Settings
from ligretto.server.table.judging import Judge
from ligretto.server.table.rounds import Rounds
from ligretto.server.table.seats import Seating


@dataclass(eq=False, slots=True)
class Views:
    """What everyone may see of a table (see the module's docstring)."""

    seating: Seating
    settings: Settings
    rounds: Rounds
    judge: Judge
    tournament: protocol.TableTournament | None = field(default=None)
    """A tournament's stage table: which tournament and stage, in its ``table`` message."""

    def summary(self) -> protocol.TableSummary:
        """What the public lobby list shows of the table."""
        seating = self.seating
        return messages.summary(seating.code, self.rounds.phase, seating.seats, seating.host, self.settings.rules)

    def details(self) -> protocol.TableDetails:
        """The summary and who sits where (``None``: a free seat), for the invite page before joining."""
        return messages.details(self.summary(), self.seating.seats)

    def table_message(self) -> protocol.TableState:
        """Everything about the table that everyone may see."""
        seating, settings, rounds = self.seating, self.settings, self.rounds
        return messages.table_message(
            code=seating.code,
            phase=rounds.phase,
            seats=seating.seats,
            host=seating.host,
            replays=settings.replays.value,
            rules=settings.rules,
            public=settings.public,
            rated=settings.rated,
            grace_s=settings.grace_s,
            ready_s=settings.ready_s,
            fairness=self.judge.fairness,
            match=rounds.match,
            matches_played=rounds.matches_played,
            start_at=rounds.start_at,
            ready_by=rounds.ready_by,
            replay_token=rounds.replay_token,
            tournament=self.tournament,
        )
