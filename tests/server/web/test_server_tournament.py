"""A tournament of duplicate deals end to end, in process on a virtual clock: 16 entrants
(14 bots and two people with profiles, for whom stand-ins play) at tables of 4 through 3
Swiss stages of real tables (``Director``, ``Lobby``, ``Table``) into a real SQLite store.
Every table of a stage must have been dealt the same deals, the standings must equal a
recomputation from the score sheets the history stored, and each person's history must
show the tournament's matches; no answer names a deal's seed."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from pathlib import Path

import pytest

from ligretto import protocol
from ligretto.server.records.history import MatchFilter, matches_of
from ligretto.server.records.store import Store
from ligretto.server.records.tournaments import TournamentRefusal
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.web.director import Director, details_of
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings
from ligretto.tournament import duplicate_scores, stage_seed

SEED = 2929
STAGES = 3


async def run_tournament(store: Store) -> tuple[Director, str, dict[str, str]]:
    scheduler = VirtualScheduler()
    lobby = Lobby(Settings(countdown_s=1.0), store, scheduler=scheduler)
    director = Director(lobby, store.tournaments)
    spec = protocol.CreateTournament(
        "Duplicate cup", table_size=4, stages=STAGES, options={"match_end": "rounds:2"}, bots=["smart:machine"] * 14
    )
    created = director.create(spec, seed=SEED)
    people = {}
    for name in ("Ann", "Bob"):
        profile, _secret = store.profiles.create(name, "sun")
        people[name] = profile.id
        director.join(created.id, name, profile.id)
    with pytest.raises(TournamentRefusal, match="only the host"):
        await director.start(created.id, "not the secret")
    await director.start(created.id, created.host)
    with pytest.raises(TournamentRefusal, match="has started"):
        director.join(created.id, "Cid", None)
    while store.tournaments.get(created.id).ended is None:
        assert scheduler.now() < 3600, "the tournament never ended"
        scheduler.advance(5.0)
        await director.settled()
    store.commit()
    return director, created.id, people


def test_sixteen_entrants_play_three_stages_of_the_same_deals(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "ligretto.db"))
    try:
        director, ident, people = asyncio.run(run_tournament(store))
        stored = store.tournaments.get(ident)
        details = details_of(stored)
        db = store.db
        assert details.state == "over" and len(details.played) == STAGES
        # every table of a stage was dealt the same deals: the stage's match seed, round by round
        for stage in details.played:
            codes = [table.code for table in stage.tables]
            assert len(codes) == 4 and stage.over
            seeds = {
                code: db.execute(
                    "SELECT number, seed FROM rounds WHERE code = ? AND match = 1 ORDER BY number", (code,)
                ).fetchall()
                for code in codes
            }
            assert [len(rows) for rows in seeds.values()] == [2, 2, 2, 2]
            assert len({tuple(rows) for rows in seeds.values()}) == 1, seeds
            assert sorted(e for t in stage.tables for e in t.seats if e is not None) == list(range(16))
        # the standings: recomputed from the score sheets the history filed for each table
        duplicate = {entrant: Fraction(0) for entrant in range(16)}
        points = dict.fromkeys(range(16), 0)
        for stage in details.played:
            sheets = []
            for table in stage.tables:
                (sheet,) = db.execute(
                    "SELECT sheet FROM matches WHERE code = ? AND match = 1", (table.code,)
                ).fetchone()
                sheets.append([[line["score"] for line in row["lines"]] for row in json.loads(sheet)["rounds"]])
                assert table.rounds == sheets[-1]
            for table, scores, rounds in zip(stage.tables, duplicate_scores(sheets), sheets, strict=True):
                for seat, entrant in enumerate(table.seats):
                    assert entrant is not None
                    duplicate[entrant] += scores[seat]
                    points[entrant] += sum(row[seat] for row in rounds)
        assert {line.entrant: line.duplicate for line in details.standings} == {
            e: round(float(d), 3) for e, d in duplicate.items()
        }
        assert {line.entrant: line.points for line in details.standings} == points
        by_standing = sorted(range(16), key=lambda e: (-duplicate[e], -points[e]))
        assert [line.duplicate for line in details.standings] == [round(float(duplicate[e]), 3) for e in by_standing]
        # each person's history: the three matches of the tables they sat at
        for name, profile in people.items():
            entrant = next(e.entrant for e in details.entrants if e.name == name)
            theirs = {t.code for s in details.played for t in s.tables if entrant in t.seats}
            history = matches_of(db, MatchFilter(profile))
            assert {m.code for m in history} == theirs and len(theirs) == STAGES
            assert all(m.ended is not None for m in history)
        # nothing is left pinned, and no answer names a deal's seed
        assert not director.lobby.kept
        body = protocol.encode(details).decode()
        assert all(str(stage_seed(SEED, n)) not in body for n in range(1, STAGES + 1))
    finally:
        store.close()
