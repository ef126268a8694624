"""A tournament of duplicate deals end to end, in process on a virtual clock: 16 entrants
(14 bots and two people with profiles, for whom stand-ins play) at tables of 4 through 3
Swiss stages of real tables (``Director``, ``Lobby``, ``Table``) into a real SQLite store,
with a restart during the second stage (the tables restored from the store, the
tournament carried on by a new director; one table at first another process's, then
taken over, as in a service).
Every table of a stage must have been dealt the same deals, the standings must equal a
recomputation from the score sheets the history stored, and each person's history must
show the tournament's matches; no answer names a deal's seed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import msgspec
import pytest
from inprocess import AppServer

from ligretto import protocol
from ligretto.protocol import Phase, ProtocolError
from ligretto.server.cluster.directory import Directory
from ligretto.server.records.history import MatchFilter, matches_of
from ligretto.server.records.store import Store
from ligretto.server.records.tournaments import TournamentRefusal
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.web.director import Director, Watcher, details_of
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings
from ligretto.tournament import duplicate_scores, going_on, replay, stage_seed

SEED = 2929
STAGES = 3


async def run_tournament(store: Store) -> tuple[Director, str, dict[str, str]]:
    """The tournament played until its second stage is under way, the server restarted
    (every table closed; a new lobby restores them from the store and a new director
    carries on), then to its end."""
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

    def stage_two_begun() -> bool:
        tables = store.tournaments.get(created.id).tables
        return any(t.stage == 2 and lobby.tables[t.code].round_number >= 1 for t in tables)

    await play_until(scheduler, director, stage_two_begun)
    kept_out(lobby, store, created.id, people["Ann"], on=2)
    for table in lobby.tables.values():
        table.close()
    store.commit()
    # the restart: the tables restored from the store, the tournament carried on
    scheduler = VirtualScheduler()
    lobby = Lobby(Settings(countdown_s=1.0), store, scheduler=scheduler)
    await Directory().start(lobby)
    director = Director(lobby, store.tournaments)
    # Ann's table of stage 2 is another process's (of a service) at first: the stage's other
    # tables keep her out all the same (its seats read from the store), and once this
    # process takes it over, it is tagged and carried on here (``taken_over``)
    stage_two = [t.code for t in store.tournaments.get(created.id).tables if t.stage == 2]
    ann_code = next(c for c in stage_two if any(s and s.profile == people["Ann"] for s in lobby.tables[c].seats))
    elsewhere = lobby.tables.pop(ann_code)
    await director.resume()
    kept_out(lobby, store, created.id, people["Ann"], on=2)
    assert elsewhere.tournament is None
    lobby.tables[ann_code] = elsewhere
    director.taken_over(elsewhere)
    kept_out(lobby, store, created.id, people["Ann"], on=2)
    await play_until(scheduler, director, lambda: store.tournaments.get(created.id).ended is not None)
    kept_out(lobby, store, created.id, people["Ann"], on=None)
    store.commit()
    return director, created.id, people


def kept_out(lobby: Lobby, store: Store, ident: str, profile: str, on: int | None) -> None:
    """The entrant of ``profile`` may not watch the other tables of the stage ``on`` (one
    being played; ``None``: none is), and may watch every table of the stages over (of
    those here)."""
    for table in store.tournaments.get(ident).tables:
        live = lobby.tables.get(table.code)
        if live is None:
            continue  # another process's
        assert live.tournament is not None and live.tournament.stage == table.stage
        theirs = any(seat is not None and seat.profile == profile for seat in live.seats)
        spectator = Watcher(lambda: None, lambda: None)
        if table.stage == on and not theirs:
            with pytest.raises(ProtocolError, match="you play in this stage"):
                live.watch(spectator, profile)
            assert spectator not in live.listeners
        else:
            live.watch(spectator, profile)
            assert spectator in live.listeners


def typed(kind: type[msgspec.Struct], body: Any) -> msgspec.Struct:
    """The answer read strictly by its protocol struct, which writes the same body back."""
    value = msgspec.json.decode(json.dumps(body), type=kind)
    assert json.loads(protocol.encode(value)) == body, f"{kind.__name__} writes another body than {body}"
    return value


async def play_until(scheduler: VirtualScheduler, director: Director, done: Callable[[], bool]) -> None:
    while not done():
        assert scheduler.now() < 3600, "the tournament is stuck"
        scheduler.advance(1.0)
        await director.settled()


def test_sixteen_entrants_play_three_stages_of_the_same_deals(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "ligretto.db"))
    try:
        director, ident, people = asyncio.run(run_tournament(store))
        stored = store.tournaments.get(ident)
        details = details_of(stored)
        db = store.db
        assert details.state == "over" and len(details.played) == STAGES
        # a stage paired again (by a process that stalled past the tournament's lease) changes nothing
        assert not store.tournaments.add_stage(ident, stored.model().stages[0], ["again"] * 4)
        assert store.tournaments.get(ident) == stored and not store.tournaments.unpaired()
        # the stored seats are the pairings the seed and the results give again
        results = [[t.rounds or () for t in stored.tables if t.stage == n] for n in range(1, STAGES + 1)]
        again = replay(16, 4, STAGES, SEED, results)
        assert [[t.seats for t in s.tables] for s in again.stages] == [
            [tuple(t.seats) for t in s.tables] for s in details.played
        ]
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
            assert all(m.ended is not None and m.tournament == ident for m in history)
        # nothing is left pinned, and no answer names a deal's seed
        assert not director.lobby.kept
        body = protocol.encode(details).decode()
        assert all(str(stage_seed(SEED, n)) not in body for n in range(1, STAGES + 1))
    finally:
        store.close()


def test_the_http_api_makes_enters_starts_and_seats_and_refuses_bad_requests(tmp_path: Path) -> None:
    """``/api/tournaments`` in process (Starlette's ``TestClient``): every refusal says why
    and changes nothing; a person enters with a profile and takes the seat kept for them at
    the first stage with the token ``…/seat`` gives."""
    with AppServer(tmp_path) as server:
        post = server.http
        for body, code in [
            ({"name": "Cup", "table_size": 1}, "bad_tournament"),
            ({"name": "Cup", "stages": 13}, "bad_tournament"),
            ({"name": "Cup", "preset": "nope"}, "bad_rules"),
            ({"name": "Cup", "bots": ["smart:nope"]}, "bad_bot"),
            ({"name": " "}, "bad_name"),
            ({"name": "Cup", "seed": 1}, "invalid"),
        ]:
            status, answer = post("POST", "/api/tournaments", body)
            assert (status, answer["error"]) == (400, code), body
        assert post("GET", "/api/tournaments/nope")[1]["error"] == "no_tournament"
        status, made = post("POST", "/api/tournaments", {"name": "Cup", "table_size": 3, "stages": 2})
        assert status == 201 and typed(protocol.TournamentCreated, made)
        ident, host = made["id"], made["host"]
        base = f"/api/tournaments/{ident}"
        assert post("POST", f"{base}/start", {"host": host})[1]["error"] == "too_few"
        _, profile = post("POST", "/api/profiles", {"name": "Ann", "symbol": "sun"})
        answer = server.client.post(f"{base}/entrants", json={"name": "Ann"}, headers={"Authorization": "Bearer bad"})
        assert (answer.status_code, answer.json()["error"]) == (401, "bad_profile")
        bearer = {"Authorization": f"Bearer {profile['secret']}"}
        answer = server.client.post(f"{base}/entrants", json={"name": "Ann"}, headers=bearer)
        assert answer.status_code == 201
        ann = answer.json()
        assert typed(protocol.Entered, ann)
        again = server.client.post(f"{base}/entrants", json={"name": "Ann"}, headers=bearer)
        assert again.json()["error"] == "profile_entered"
        status, bob = post("POST", f"{base}/entrants", {"name": "Bob"})
        assert (status, bob["entrant"]) == (201, 1)
        assert post("POST", f"{base}/seat", {"secret": ann["secret"]})[1]["error"] == "no_stage"
        assert post("POST", f"{base}/start", {"host": ann["secret"]})[1]["error"] == "not_host"
        status, open_ = post("GET", base)
        assert (status, open_["state"], open_["played"], open_["standings"]) == (200, "open", [], [])
        assert [e["profile"] for e in open_["entrants"]] == [profile["id"], None]
        # started: two entrants at one table of 3, the third seat a bot's
        status, started = post("POST", f"{base}/start", {"host": host})
        assert (status, started["state"]) == (200, "playing") and typed(protocol.TournamentDetails, started)
        assert post("POST", f"{base}/start", {"host": host})[1]["error"] == "started"
        assert post("POST", f"{base}/entrants", {"name": "Cid"})[1]["error"] == "started"
        assert post("POST", f"{base}/seat", {"secret": "nope"})[1]["error"] == "not_entrant"
        (stage,) = started["played"]
        (table,) = stage["tables"]
        assert sorted(table["seats"], key=str) == [0, 1, None]
        status, seat = post("POST", f"{base}/seat", {"secret": ann["secret"]})
        assert status == 200 and seat["code"] == table["code"] and table["seats"][seat["seat"]] == 0
        assert typed(protocol.TournamentSeat, seat)
        with server.client.websocket_connect("/ws") as socket:
            socket.send_json({"type": "hello", "v": 1, "code": seat["code"], "token": seat["token"]})
            welcome = socket.receive_json()
            assert (welcome["type"], welcome["seat"]) == ("welcome", seat["seat"])
        assert post("GET", base)[1]["entrants"][1]["name"] == "Bob"
        # the refused requests made nothing: one tournament, two entrants, one stage table
        db = server.store.db
        counts = [
            db.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]
            for name in ("tournaments", "tournament_entrants", "tournament_tables")
        ]
        assert counts == [1, 2, 1]


def test_a_knockout_keeps_the_top_half_of_each_table_and_ends_with_a_final(tmp_path: Path) -> None:
    """Eight bots and Ann (a stand-in plays for her) at tables of 3: the top half of each
    table goes on (three tables of 3, two of 3, two of 2, then the final of 2 and a bye);
    the standings say who went out
    at which stage, and Ann, once out, is told so when she asks for her seat.  The lobby
    lists the tournament once while it is on, at its stage, and none of its tables."""
    store = Store(str(tmp_path / "ligretto.db"))

    async def knockout() -> tuple[str, int, list[tuple[int, str]]]:
        scheduler = VirtualScheduler()
        lobby = Lobby(Settings(countdown_s=1.0), store, scheduler=scheduler)
        director = Director(lobby, store.tournaments)
        spec = protocol.CreateTournament(
            "Knockout cup",
            table_size=3,
            pairing="knockout",
            options={"match_end": "rounds:1"},
            bots=["smart:machine"] * 8,
        )
        created = director.create(spec, seed=SEED)
        profile, _ = store.profiles.create("Ann", "sun")
        ann = director.join(created.id, "Ann", profile.id)
        assert details_of(store.tournaments.get(created.id)).stages == 4  # 9 at 3 tables, 6 at 2, 4 at 2, the final
        await director.start(created.id, created.host)
        refusals = []
        while store.tournaments.get(created.id).ended is None:
            assert scheduler.now() < 3600, "the knockout is stuck"
            scheduler.advance(1.0)
            await director.settled()
            stages = details_of(store.tournaments.get(created.id)).played
            tags = [lobby.tables[t.code].tournament for s in stages for t in s.tables]
            assert {(tag.stage, tag.stages) for tag in tags if tag is not None} == {(s.number, 4) for s in stages}
            assert None not in tags
            # the lobby lists it once, at the stage being played, while it is on (none of its tables)
            assert lobby.public_listing().tables == []
            if store.tournaments.get(created.id).ended is None:
                (line,) = lobby.tournaments_played()
                assert (line.id, line.stage, line.stages) == (created.id, len(stages), 4)
                assert line.tables == len(stages[-1].tables)
            if not any(ann.entrant in t.seats for t in stages[-1].tables) and not refusals:
                with pytest.raises(TournamentRefusal) as refused:
                    director.seat_of(created.id, ann.secret)
                refusals.append((refused.value.status, refused.value.code))
        assert lobby.tournaments_played() == []  # over: no longer listed
        return created.id, ann.entrant, refusals

    try:
        ident, ann, refusals = asyncio.run(knockout())
        stored = store.tournaments.get(ident)
        details = details_of(stored)
        assert details.state == "over" and details.pairing == "knockout"
        assert [len(stage.tables) for stage in details.played] == [3, 2, 2, 1]
        model = stored.model()
        for earlier, later in zip(details.played, details.played[1:], strict=False):
            kept = set()
            for table, ranking in zip(earlier.tables, model.rankings(earlier.number), strict=True):
                assert table.rounds is not None and sorted(ranking) == sorted(e for e in table.seats if e is not None)
                kept |= set(ranking[: going_on(len(ranking))])
            assert {e for t in later.tables for e in t.seats if e is not None} == kept
        assert [line.out for line in details.standings] == [None, 4, 3, 3, 2, 2, 1, 1, 1]
        out = next(line.out for line in details.standings if line.entrant == ann)
        assert refusals == ([] if out in (None, 4) else [(409, "knocked_out")])
    finally:
        store.close()


class Leads(Directory):
    """A process of a service that directs the tournaments it is asked of, or not (another
    process holds their leases)."""

    def __init__(self, leads: bool) -> None:
        self.leads = leads

    async def lead(self, tournament: str) -> bool:
        return self.leads


def test_the_director_pairs_a_stage_that_another_process_recorded(tmp_path: Path) -> None:
    """Two lobbies on one store, as two processes of a service: the first starts a
    tournament (it directs it: its lease) and holds the first stage's tables; then the
    second directs it (the first stalled past the lease).  The first records each table's
    match as it ends but pairs nothing; the second's oversight pairs the next stage, in
    its own lobby, and the tournament ends there."""
    store = Store(str(tmp_path / "ligretto.db"))

    async def scenario() -> None:
        owner_clock, director_clock = VirtualScheduler(), VirtualScheduler()
        owner = Director(Lobby(Settings(countdown_s=1.0), store, owner_clock, Leads(True)), store.tournaments)
        director = Director(Lobby(Settings(countdown_s=1.0), store, director_clock, Leads(False)), store.tournaments)
        spec = protocol.CreateTournament(
            "Two cup", table_size=2, stages=2, options={"match_end": "rounds:1"}, bots=["smart:machine"] * 4
        )
        created = owner.create(spec, seed=SEED)
        await owner.start(created.id, created.host)
        assert len(owner.lobby.tables) == 2
        await director.oversee_once()  # not its tournament yet: nothing
        assert not director.lobby.tables
        owner.lobby.directory.leads, director.lobby.directory.leads = False, True  # type: ignore[attr-defined]
        await play_until(owner_clock, owner, lambda: all(t.phase is Phase.OVER for t in owner.lobby.tables.values()))
        stored = store.tournaments.get(created.id)
        assert [t.stage for t in stored.tables] == [1, 1] and all(t.rounds for t in stored.tables)
        assert store.tournaments.unpaired() == [created.id], "stage 1 is in, stage 2 not paired"
        await owner.oversee_once()  # no longer its director: still nothing
        assert len(store.tournaments.get(created.id).tables) == 2
        await director.oversee_once()
        stage_two = {t.code for t in store.tournaments.get(created.id).tables if t.stage == 2}
        assert len(stage_two) == 2 and set(director.lobby.tables) == stage_two
        await play_until(director_clock, director, lambda: store.tournaments.get(created.id).ended is not None)
        assert not store.tournaments.unpaired() and not store.tournaments.running()

    try:
        asyncio.run(scenario())
    finally:
        store.close()


class Listing(Directory):
    """A process of a service whose every code reservation goes to Redis and back (the
    loop runs other work meanwhile): what its lobby lists then, as ``/api/tables`` and the
    directory's published listing would, is kept."""

    def __init__(self) -> None:
        self.lobby: Lobby | None = None
        self.seen: list[set[str]] = []

    async def reserve(self, code: str, stored: bool) -> bool:
        await asyncio.sleep(0)
        assert self.lobby is not None
        self.seen.append({summary.code for summary in self.lobby.public_tables()})
        return True


def test_a_stage_table_is_never_listed_while_its_stage_is_dealt(tmp_path: Path) -> None:
    """The lobby lists a tournament once and none of its stage tables, also between the
    awaits of pairing a stage (each table's code reserved across the service): every table
    is a stage table from its creation."""
    store = Store(str(tmp_path / "ligretto.db"))

    async def scenario() -> None:
        directory = Listing()
        lobby = Lobby(Settings(countdown_s=1.0), store, VirtualScheduler(), directory)
        directory.lobby = lobby
        director = Director(lobby, store.tournaments)
        spec = protocol.CreateTournament("Busy cup", table_size=2, stages=2, bots=["smart:machine"] * 8)
        created = director.create(spec, seed=SEED)
        await director.start(created.id, created.host)
        assert len(lobby.tables) == 4 and len(directory.seen) == 4
        assert directory.seen == [set()] * 4, "a stage table listed while its stage was dealt"
        listing = lobby.public_listing()
        assert not listing.tables and [t.id for t in listing.tournaments] == [created.id]

    try:
        asyncio.run(scenario())
    finally:
        store.close()


class Rival(Directory):
    """A process of a service with a rival: the rival's oversight looks at every running
    tournament and takes the lease of one that nobody holds; this process holds what it
    took first."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.holders: dict[str, str] = {}

    async def lead(self, tournament: str) -> bool:
        if tournament in self.store.tournaments.running():
            self.holders.setdefault(tournament, "rival")  # its look came first
        return self.holders.setdefault(tournament, "me") == "me"


def test_the_host_who_starts_a_tournament_is_answered_with_its_first_stage(tmp_path: Path) -> None:
    """In a service, another process's oversight takes the lease of a running tournament
    that nobody directs: the process that starts it takes the lease before the tournament
    runs, so it pairs the first stage itself and its answer to the host shows it."""
    store = Store(str(tmp_path / "ligretto.db"))

    async def scenario() -> None:
        directory = Rival(store)
        lobby = Lobby(Settings(countdown_s=1.0), store, VirtualScheduler(), directory)
        director = Director(lobby, store.tournaments)
        spec = protocol.CreateTournament("Quick cup", table_size=2, stages=2, bots=["smart:machine"] * 4)
        created = director.create(spec, seed=SEED)
        await director.start(created.id, created.host)
        assert directory.holders == {created.id: "me"}
        details = details_of(store.tournaments.get(created.id))
        assert len(details.played) == 1 and len(details.played[0].tables) == 2
        assert len(lobby.tables) == 2

    try:
        asyncio.run(scenario())
    finally:
        store.close()
