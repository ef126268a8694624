"""A tournament of duplicate deals: entrants, stages of paired tables, standings.

A :class:`Tournament` is its entrants (numbered ``0 .. N-1`` in the order they joined;
whether each is a person or a bot is not its business), a table size, a number of
stages, a seed and a way of pairing (:class:`Pairing`).  Each stage
(:meth:`Tournament.next_stage`) pairs the entrants into tables
(:func:`~ligretto.tournament.swiss.pair`) in an order: Swiss (the default), by their
current standing, so that players of a like standing meet; mixed, in an order shuffled
from the seed for each stage, so that everyone meets as many others as the stages allow
(the first stage is shuffled from the seed either way); knockout, by the standings of
those still in, the bottom half of each table out after each stage until one table plays
the final (:mod:`~ligretto.tournament.knockout`: its stages follow from the entrants);
and it gives every table of the stage the same match seed (:func:`stage_seed`), so every
table is dealt the same deals.  A table's seats are its entrants best-placed first, then
the bots filling its byes (``None``).  Once
every table of a stage has its match recorded (:meth:`Tournament.record`), the next
stage may be paired; after the last one the tournament is over.

Standings (:meth:`Tournament.standings`) order the entrants by

1. total duplicate score over every stage (:mod:`~ligretto.tournament.duplicate`), highest first;
2. then total points (the plain round scores), highest first;
3. then rounds won at their tables, most first;
4. then the entrant's number (who joined first);

a knockout's by the last stage reached first, then the place at their table in it
(:func:`~ligretto.tournament.knockout.table_ranking`), then as above.

Pure and deterministic: the same entrants, seed and results give the same stages and
standings (:func:`replay` pairs a tournament again from its results alone); a stored one
is rebuilt from its stages' seats and results without pairing again (:func:`restore`).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from .duplicate import Rounds, duplicate_scores
from .knockout import going_on, knockout_stages, table_ranking
from .swiss import capacities, pair

MAX_ENTRANTS = 256
MAX_STAGES = 12


class Pairing(StrEnum):
    """How a stage's tables are filled: the order :func:`~ligretto.tournament.swiss.pair` takes."""

    SWISS = "swiss"
    """By the standings: the leaders meet, and so on down."""
    MIXED = "mixed"
    """In an order shuffled from the seed each stage: as many new table-mates as can be."""
    KNOCKOUT = "knockout"
    """By the standings, of those still in: after each stage the bottom half of each table
    is out, until one table plays the final (:mod:`~ligretto.tournament.knockout`)."""


class TournamentError(ValueError):
    """A tournament asked for something its state does not allow (with the reason)."""


def stage_seed(seed: int, stage: int) -> int:
    """The match seed every table of ``stage`` (1-based) is dealt from."""
    digest = hashlib.sha256(f"ligretto:tournament:{seed}:stage:{stage}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True, slots=True)
class StageTable:
    """One table of a stage: the entrant in each seat, ``None`` a bot filling a bye."""

    number: int
    """1-based within its stage."""
    seats: tuple[int | None, ...]

    @property
    def entrants(self) -> tuple[int, ...]:
        return tuple(entrant for entrant in self.seats if entrant is not None)


@dataclass(frozen=True, slots=True)
class Stage:
    """A stage: its number (1-based), the match seed of all its tables, the tables."""

    number: int
    seed: int
    tables: tuple[StageTable, ...]


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line of the standings."""

    place: int
    entrant: int
    duplicate: Fraction
    points: int
    rounds_won: int
    rounds: int
    out: int | None = None
    """A knockout's: the stage the entrant went out at (the final's all but its winner);
    ``None``: still in, the winner, or no knockout."""


class Tournament:
    """The stages and results of one tournament (see the module's docstring)."""

    def __init__(
        self, entrants: int, table_size: int, stages: int, seed: int, *, pairing: Pairing = Pairing.SWISS
    ) -> None:
        if not 2 <= entrants <= MAX_ENTRANTS:
            raise TournamentError(f"a tournament has 2-{MAX_ENTRANTS} entrants, not {entrants}")
        if not 1 <= stages <= MAX_STAGES:
            raise TournamentError(f"a tournament has 1-{MAX_STAGES} stages, not {stages}")
        capacities(entrants, table_size)  # validates the table size
        self.entrants = entrants
        self.table_size = table_size
        self.stage_count = stages
        """How many stages it has: ``stages``, or for a knockout as many as its entrants take."""
        self.seed = seed
        self.pairing = Pairing(pairing)
        if self.pairing is Pairing.KNOCKOUT:
            self.stage_count = knockout_stages(entrants, table_size)
        self.stages: list[Stage] = []
        self.results: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}

    # --- the stages ----------------------------------------------------------------------

    def stage_complete(self, stage: int) -> bool:
        """Whether every table of ``stage`` has its match recorded."""
        return all((stage, table.number) in self.results for table in self.stages[stage - 1].tables)

    @property
    def over(self) -> bool:
        return len(self.stages) == self.stage_count and self.stage_complete(self.stage_count)

    def next_stage(self) -> Stage:
        """Pair the next stage: by the standings so far (Swiss) or in a shuffled order
        (mixed); the first stage in an order shuffled from the seed."""
        if self.stages and not self.stage_complete(len(self.stages)):
            raise TournamentError(f"stage {len(self.stages)} is still being played")
        if len(self.stages) == self.stage_count:
            raise TournamentError("every stage has been played")
        number = len(self.stages) + 1
        if number == 1 or self.pairing is Pairing.MIXED:
            order = list(range(self.entrants))
            key = "" if number == 1 else f":{number}"
            random.Random(f"ligretto:tournament:{self.seed}:order{key}").shuffle(order)
        else:
            left = self.still_in()
            order = [line.entrant for line in self.standings() if line.entrant in left]
        tables = pair(order, self.table_size, self.met())
        stage = Stage(
            number,
            stage_seed(self.seed, number),
            tuple(
                StageTable(index + 1, (*seated, *[None] * (self.table_size - len(seated))))
                for index, seated in enumerate(tables)
            ),
        )
        self.stages.append(stage)
        return stage

    def record(self, stage: int, table: int, rounds: Rounds) -> None:
        """File the match of ``table`` of ``stage``: each round's score per seat."""
        if not 1 <= stage <= len(self.stages):
            raise TournamentError(f"no stage {stage}")
        tables = self.stages[stage - 1].tables
        if not 1 <= table <= len(tables):
            raise TournamentError(f"stage {stage} has no table {table}")
        if (stage, table) in self.results:
            raise TournamentError(f"table {table} of stage {stage} is recorded already")
        if not rounds:
            raise TournamentError("a match has at least one round")
        if any(len(scores) != self.table_size for scores in rounds):
            raise TournamentError(f"every round has {self.table_size} scores, one per seat")
        self.results[stage, table] = tuple(tuple(scores) for scores in rounds)

    def met(self) -> dict[int, set[int]]:
        """Who has shared a table with whom so far."""
        met: dict[int, set[int]] = {}
        for stage in self.stages:
            for table in stage.tables:
                for entrant in table.entrants:
                    met.setdefault(entrant, set()).update(set(table.entrants) - {entrant})
        return met

    # --- the standings -------------------------------------------------------------------

    def still_in(self) -> set[int]:
        """The entrants who play the next stage: every one, but in a knockout those who
        went out at a stage over (:meth:`knocked_out`)."""
        return set(range(self.entrants)) - set(self.knocked_out())

    def knocked_out(self) -> dict[int, int]:
        """A knockout's entrants out so far, each with the stage they went out at: at
        each stage over, those below the top half of their table (at the final, all but
        its first).  Empty for any other pairing."""
        out: dict[int, int] = {}
        if self.pairing is not Pairing.KNOCKOUT:
            return out
        for stage in self.stages:
            if not self.stage_complete(stage.number):
                break
            for ranking in self.rankings(stage.number):
                stays = 1 if stage.number == self.stage_count else going_on(len(ranking))
                out.update(dict.fromkeys(ranking[stays:], stage.number))
        return out

    def rankings(self, stage: int) -> list[list[int]]:
        """Each table's entrants of a stage over, best first (``knockout.table_ranking``)."""
        played = self.stages[stage - 1]
        matches = [self.results[stage, table.number] for table in played.tables]
        return [
            table_ranking(table.seats, rounds, scores)
            for table, rounds, scores in zip(played.tables, matches, duplicate_scores(matches), strict=True)
        ]

    def standings(self) -> list[Standing]:
        """Every entrant, in order (the tie-breaks in the module's docstring; a knockout's
        by the stage reached first, then the place at their table in it)."""
        duplicate = [Fraction(0)] * self.entrants
        points = [0] * self.entrants
        won = [0] * self.entrants
        played = [0] * self.entrants
        for stage in self.stages:
            if not self.stage_complete(stage.number):
                continue  # a stage counts once every table of it is in
            matches = [self.results[stage.number, table.number] for table in stage.tables]
            for table, rounds, scores in zip(stage.tables, matches, duplicate_scores(matches), strict=True):
                for seat, entrant in enumerate(table.seats):
                    if entrant is None:
                        continue
                    duplicate[entrant] += scores[seat]
                    points[entrant] += sum(line[seat] for line in rounds)
                    won[entrant] += sum(1 for line in rounds if line[seat] == max(line))
                    played[entrant] += len(rounds)
        out = self.knocked_out()
        reached, placed = self._reached() if self.pairing is Pairing.KNOCKOUT else ({}, {})
        order = sorted(
            range(self.entrants),
            key=lambda e: (-reached.get(e, 0), placed.get(e, 0), -duplicate[e], -points[e], -won[e], e),
        )
        return [
            Standing(place, e, duplicate[e], points[e], won[e], played[e], out.get(e))
            for place, e in enumerate(order, 1)
        ]

    def _reached(self) -> tuple[dict[int, int], dict[int, int]]:
        """Each entrant's last stage in a knockout, and their place at their table in it
        if it is over (0 while it is played)."""
        reached: dict[int, int] = {}
        placed: dict[int, int] = {}
        for stage in self.stages:
            reached.update(dict.fromkeys((e for table in stage.tables for e in table.entrants), stage.number))
            if self.stage_complete(stage.number):
                for ranking in self.rankings(stage.number):
                    placed.update({entrant: place for place, entrant in enumerate(ranking)})
        return reached, placed


def replay(
    entrants: int,
    table_size: int,
    stages: int,
    seed: int,
    results: Sequence[Sequence[Rounds]],
    *,
    pairing: Pairing = Pairing.SWISS,
) -> Tournament:
    """A tournament rebuilt from its results, stage by stage (``results[stage][table]``):
    from the entrants, the settings and the rounds, the pairings follow."""
    tournament = Tournament(entrants, table_size, stages, seed, pairing=pairing)
    for number, matches in enumerate(results, 1):
        stage = tournament.next_stage()
        if len(matches) != len(stage.tables):
            raise TournamentError(f"stage {number} has {len(stage.tables)} tables, not {len(matches)}")
        for table, rounds in zip(stage.tables, matches, strict=True):
            tournament.record(number, table.number, rounds)
    return tournament


def restore(
    entrants: int,
    table_size: int,
    stages: int,
    seed: int,
    *,
    played: Sequence[Sequence[Sequence[int | None]]],
    results: Mapping[tuple[int, int], Rounds],
    pairing: Pairing = Pairing.SWISS,
) -> Tournament:
    """A tournament as stored: its stages' seats as they were paired (``played[stage][table]``,
    the entrant per seat) and the results recorded so far (``(stage, table)``: rounds),
    without pairing again (:func:`replay` pairs again, and must give the same seats)."""
    tournament = Tournament(entrants, table_size, stages, seed, pairing=pairing)
    if len(played) > tournament.stage_count:
        raise TournamentError(f"{len(played)} stages stored, {tournament.stage_count} at most")
    for number, tables in enumerate(played, 1):
        seats = [tuple(table) for table in tables]
        seated = sorted(entrant for table in seats for entrant in table if entrant is not None)
        once = len(set(seated)) == len(seated) and set(seated) <= set(range(entrants))
        # every entrant, or (a knockout's later stages) those still in
        fits = seated == list(range(entrants)) or (pairing is Pairing.KNOCKOUT and number > 1 and once)
        if not fits or any(len(table) != table_size for table in seats):
            raise TournamentError(f"stage {number} does not seat every entrant once at tables of {table_size}")
        tables_of = tuple(StageTable(index, table) for index, table in enumerate(seats, 1))
        tournament.stages.append(Stage(number, stage_seed(seed, number), tables_of))
    for (stage, table), rounds in sorted(results.items()):
        tournament.record(stage, table, rounds)
    return tournament
