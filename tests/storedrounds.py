"""Matches played in process into a real SQLite file, for the tests and benchmarks that
need stored rounds (history, statistics, ratings, replays): people, with a profile or
without, whose seats their stand-in bots play, and bots, all on one virtual clock; a real
``ligretto serve`` may then serve the file.

    with StoredRounds(path) as stored:
        ann, _ = stored.profile("Ann", "sun")
        table = stored.table("HIST", [Person("Ann", ann)], ["smart:skilled"], rules=rules, seed=4000)
        stored.play(table, rounds=3)

Leaving the ``with`` commits the store, closes every table and then the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.records.store import SqliteStore
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.seats import Listener
from ligretto.server.table.table import Table

ROUND_LIMIT_S = 3600.0
"""Virtual seconds a round of stand-ins and bots may take before the test fails."""


class Away:
    """A person's connection, gone: the stand-in plays and what the table sends goes nowhere."""

    def __init__(self) -> None:
        self.seat: int | None = None

    def detach(self) -> None:
        self.seat = None

    def send(self, message: Any) -> None:
        pass


@dataclass(frozen=True)
class Person:
    """A person at the table: the seat's name, its profile's id (``None``: none) and the
    listener the table sends to (by default :class:`Away`)."""

    name: str
    profile: str | None = None
    listener: Listener = field(default_factory=Away)


class StoredRounds:
    """One store (an SQLite file, or a database's URL) and one virtual clock that tables
    play their matches into.
    ``start``: the clock's first reading (the store dates matches and deals by it)."""

    def __init__(self, path: Path | str, *, start: float | None = None) -> None:
        self.store = SqliteStore(path)
        self.scheduler = VirtualScheduler() if start is None else VirtualScheduler(start=start)
        self.tables: list[Table] = []

    def __enter__(self) -> StoredRounds:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def profile(self, name: str, symbol: str) -> tuple[str, str]:
        """A new profile of the store: its public id and its secret."""
        made, secret = self.store.profiles.create(name, symbol)
        return made.id, secret

    def table(
        self,
        code: str,
        people: Sequence[Person],
        bots: Sequence[str] = (),
        *,
        rules: RuleSet,
        seed: int | None = None,
        **options: Any,
    ) -> Table:
        """A table of ``people`` (in seat order, the first is the host; stand-ins play
        their seats) and then ``bots`` (by spec, added by the host), with just as many
        seats; its ``n``-th match dealt from ``seed + n``.  ``options``: the rest of
        ``Table``'s (``countdown_s``, ``rated``, ``public``, ``replays``)."""
        table = Table(
            code,
            seats=len(people) + len(bots),
            rules=rules,
            store=self.store,
            scheduler=self.scheduler,
            **options,
        )
        if seed is not None:
            table.match_seeds = lambda n: seed + n
        for person in people:
            table.join(person.listener, person.name, person.profile)
        for bot in bots:
            table.add_bot(0, bot)
        for seat in table.seats[: len(people)]:
            assert seat is not None
            seat.stand_in = True
        self.tables.append(table)
        return table

    def play(self, table: Table, rounds: int = 1) -> None:
        """One match from the host's start to its end, which must come after ``rounds``
        rounds (between them the host gets ready for the next)."""
        table.start(0)
        for number in range(1, rounds + 1):
            self.scheduler.run_until(lambda: table.phase in (Phase.SCORING, Phase.OVER), limit_s=ROUND_LIMIT_S)
            if number < rounds:
                table.ready(0)
        assert table.phase is Phase.OVER

    def close(self) -> None:
        """Commit what was played, then close every table and the store."""
        self.store.commit()
        for table in self.tables:
            table.close()
        self.store.close()
