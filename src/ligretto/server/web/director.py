"""The director of a server's tournaments (``ligretto.tournament``, stored by
``records.tournaments``): it makes each stage's tables, starts their matches, watches
them end and pairs the next stage.

A stage's tables are real public tables of the lobby (spectators welcome), each dealt
from the stage's one match seed (``Table(match_seeds=...)``), so every table of a stage
plays the same deals.  Their seats are the pairing's: a bot entrant plays as itself, a
bye is filled by :data:`BYE_BOT`, a person's seat is kept for them (``Table.seat_away``:
they take it with the token ``POST /api/tournaments/{id}/seat`` gives; a stand-in plays
it until they come).  Each table names its tournament and stage (``Table.in_tournament``)
and keeps the entrants of the stage's other tables from watching it until every table of
the stage is over: it is dealt their cards.  The director watches each table as a
spectator (:class:`Watcher`): after each round the next is dealt once everyone is ready or at the latest the table's
``ready_s`` later (``Table.keep_going``: no person need be there); when its match is over
its rounds' scores are recorded and, once every table of the stage is in, the next stage
is paired from the standings; after the last, the tournament ends.
The sweep leaves a stage table alone while its match is on (``Lobby.kept``).  After a
restart :meth:`Director.resume` carries every running tournament on.  The matches
are filed in the history as every match is (a person's history shows them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Literal

from ligretto import protocol
from ligretto.bots.spec import BotSpec, BotSpecError
from ligretto.engine.rules import RuleSet
from ligretto.protocol import Phase
from ligretto.server.cluster import keys
from ligretto.server.records.tournaments import StoredTournament, TournamentRefusal, Tournaments
from ligretto.server.table.record import SeatRecord
from ligretto.server.table.table import Seat, Table
from ligretto.server.table.timing import DEFAULT_GRACE_S
from ligretto.server.web.lobby import Lobby
from ligretto.tournament import MAX_ENTRANTS, Pairing, Stage, Tournament, knockout_stages

__all__ = ["BYE_BOT", "Director", "Elsewhere", "Watcher", "dealt_from", "details_of"]

log = logging.getLogger("ligretto.server")

BYE_BOT = BotSpec("smart", "skilled")
"""The bot that fills a bye (a seat short at a table of the stage)."""


class Elsewhere(Exception):
    """The entrant's table of the stage is another process's (``code``): ask it there."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class Watcher:
    """The director's window on a stage table: a spectator that calls ``scored`` after
    each round but the last and ``over`` when the table says its match is over (the
    ``round_over`` of its last round)."""

    seat: int | None = None

    def __init__(self, scored: Callable[[], None], over: Callable[[], None]) -> None:
        self.scored = scored
        self.over = over

    def send(self, message: protocol.Outgoing) -> None:
        inner = message.message if isinstance(message, protocol.Broadcast) else message
        if isinstance(inner, protocol.RoundOver):
            (self.over if inner.match_over else self.scored)()

    def detach(self) -> None:
        """Nothing to close: the director watches in process."""


class Director:
    """The tournaments of one lobby (see the module's docstring)."""

    def __init__(self, lobby: Lobby, tournaments: Tournaments) -> None:
        self.lobby = lobby
        self.tournaments = tournaments
        self.tasks: set[asyncio.Task[None]] = set()
        """Matches over being recorded (and the next stage paired), one task each."""
        self._locks: dict[str, asyncio.Lock] = {}
        self._overseeing: asyncio.Task[None] | None = None
        lobby.taken_over = self.taken_over  # a stage table taken over from another process

    # --- the host's and the entrants' requests ----------------------------------------

    def create(self, spec: protocol.CreateTournament, seed: int | None = None) -> protocol.TournamentCreated:
        """A new tournament with its bot entrants (``seed``: its pairings' and deals'; by
        default a random one).  Bad rules, bots or settings: ``TournamentRefusal``."""
        name = protocol.check_name(spec.name)
        try:
            Tournament(MAX_ENTRANTS, spec.table_size, spec.stages, 0)  # the table size and stages
        except ValueError as error:
            raise TournamentRefusal("bad_tournament", str(error)) from None
        rules = RuleSet.preset(spec.preset).replace(**spec.options)  # RuleError: the caller's 400
        rules.row_length(spec.table_size)  # a table size the rules can deal (RuleError too)
        try:
            bots = [BotSpec.parse(text) for text in spec.bots]
        except BotSpecError as error:
            raise TournamentRefusal("bad_bot", str(error)) from None
        seed = secrets.randbits(62) if seed is None else seed
        ident, host = self.tournaments.create(
            name, rules.to_dict(), spec.table_size, spec.stages, seed=seed, pairing=Pairing(spec.pairing)
        )
        for number, bot in enumerate(bots, 1):
            self.tournaments.join(ident, f"{bot.strategy.capitalize()} bot {number}", bot=str(bot))
        return protocol.TournamentCreated(ident, host)

    def join(self, ident: str, name: str, profile: str | None) -> protocol.Entered:
        """A person enters (``profile``: the id of their profile, or ``None``)."""
        entrant, secret = self.tournaments.join(ident, protocol.check_name(name), profile)
        assert secret is not None
        return protocol.Entered(entrant, secret)

    async def start(self, ident: str, host: str) -> None:
        """The host starts the tournament: its first stage is paired and dealt, here (the
        lease is taken before the tournament is running, so no other process's oversight
        can pair it first and leave the host's answer without its first stage)."""
        await self.lobby.directory.lead(ident)
        self.tournaments.start(ident, host)
        await self._next_stage(ident)

    def seat_of(self, ident: str, secret: str) -> protocol.TournamentSeat:
        """The entrant's seat at the stage being played, and its token."""
        entrant = self.tournaments.entrant_of(ident, secret)
        if entrant is None:
            raise TournamentRefusal("not_entrant", "that is no entrant's secret of this tournament", 403)
        stored = self.tournaments.get(ident)
        model = stored.model()
        if not model.stages or model.over:
            raise TournamentRefusal("no_stage", "no stage is being played", 409)
        stage = model.stages[-1]
        for table in stage.tables:
            if entrant in table.seats:
                code = next(t.code for t in stored.tables if (t.stage, t.number) == (stage.number, table.number))
                live = self.lobby.tables.get(code)
                seat = table.seats.index(entrant)
                person = None if live is None else live.seats[seat]
                if live is None:
                    raise Elsewhere(code)  # another process's table (or nobody's yet: taken over there)
                if person is None:
                    raise TournamentRefusal("no_stage", "the table of your stage is not here", 409)
                return protocol.TournamentSeat(code, seat, person.token)
        out = model.knocked_out().get(entrant)
        if out is not None:
            raise TournamentRefusal("knocked_out", f"you went out at stage {out}: you may watch its tables", 409)
        raise TournamentRefusal("no_stage", "no stage is being played", 409)  # pragma: no cover - paired everyone

    # --- the stages -------------------------------------------------------------------

    async def _next_stage(self, ident: str) -> None:
        """Pair the next stage and deal its tables: by the tournament's director only (the
        process holding its lease, ``Directory.lead``), once (under the tournament's lock
        here, and ``Tournaments.add_stage`` across the service: a stage paired already by
        another process, that held the lease while this one stalled, is left to it)."""
        if not await self.lobby.directory.lead(ident):
            return  # another process directs it: its oversight pairs the stage
        async with self._lock(ident):
            stored = self.tournaments.get(ident)
            model = stored.model()
            if model.over or (model.stages and not model.stage_complete(len(model.stages))):
                return
            stage = model.next_stage()
            codes: list[str] = []  # grows as they are dealt: each is a stage table from its start
            tables = [
                await self._table(stored, model.stage_count, stage, codes, seats)
                for seats in (t.seats for t in stage.tables)
            ]
            if not self.tournaments.add_stage(ident, stage, codes):
                for table in tables:  # paired by another process meanwhile: these are nobody's
                    self.lobby.kept.discard(table.code)
                    self.lobby.tables.pop(table.code, None)
                    table.drop()
                return
            for number, table in enumerate(tables, 1):
                self._watch(ident, stage.number, number, table)
                table.begin()

    async def _table(
        self, stored: StoredTournament, stages: int, stage: Stage, codes: list[str], seats: tuple[int | None, ...]
    ) -> Table:
        """A stage table: public, unrated, dealt from the stage's seed, its seats the
        pairing's; named a stage table (``_tag``) before anything can list it, its code
        added to ``codes``, the stage's tables so far."""
        code = await self.lobby.reserve_code()
        table = self.lobby.create(
            stored.table_size,
            RuleSet.from_dict(stored.rules),
            True,
            DEFAULT_GRACE_S,
            rated=False,
            code=code,
            match_seeds=dealt_from(stage.seed),
        )
        codes.append(code)
        self._tag(stored, stages, stage.number, codes, table)
        self.lobby.kept.add(code)
        for entrant in seats:
            who = None if entrant is None else stored.entrants[entrant]
            if who is None:
                table.seat_bot(BYE_BOT)
            elif who.bot is not None:
                table.seat_bot(BotSpec.parse(who.bot))
            else:
                table.seat_away(who.name, who.profile)
        return table

    def _tag(self, stored: StoredTournament, stages: int, stage: int, codes: list[str], table: Table) -> None:
        """Name the tournament and stage at a stage table, and keep the entrants of the
        stage's other tables from watching it while the stage is on (``Table.watch``);
        ``codes``, the stage's tables, may still grow (``_table``)."""

        def peeks(profile: str | None, token: str | None) -> bool:
            def theirs(seat: Seat | SeatRecord | None) -> bool:
                if seat is None or seat.bot is not None:
                    return False
                return (profile is not None and seat.profile == profile) or (token is not None and seat.token == token)

            if profile is None and token is None:
                return False
            others = [self._seen(code) for code in codes if code != table.code]
            if not any(theirs(seat) for _over, seats in others for seat in seats):
                return False
            # the stage is over: its deals are no secret to its entrants now
            return not (table.phase is Phase.OVER and all(over for over, _seats in others))

        tag = protocol.TableTournament(stored.id, stored.name, stage, stages)
        table.in_tournament(tag, peeks)

    def _seen(self, code: str) -> tuple[bool, Sequence[Seat | SeatRecord | None]]:
        """Whether the stage table ``code`` is over, and its seats: as it is here, or as
        stored if another process has it (``peeks`` asks of the stage's every table)."""
        live = self.lobby.tables.get(code)
        if live is not None:
            return live.phase is Phase.OVER, live.seats
        store = self.lobby.store
        record = None if store is None else store.table_record(code)
        if record is None:
            return True, ()
        return Phase(record.phase) is Phase.OVER, record.seats

    def _watch(self, ident: str, stage: int, number: int, table: Table) -> None:
        def over() -> None:
            self._later(ident, (stage, number, table))

        def scored() -> None:
            # after the table has finished telling the round's end: the next round comes
            # once everyone is ready, at the latest ``ready_s`` later (bots alone may sit)
            table.timers.later(0.0, table.keep_going)

        table.watch(Watcher(scored, over))

    async def _table_over(self, ident: str, stage: int, number: int, table: Table) -> None:
        """A stage table's match is over: its scores recorded; the stage's last pairs the next."""
        assert table.match is not None and table.phase is Phase.OVER
        self.lobby.kept.discard(table.code)
        rounds = [[line.score for line in scores] for scores in table.match.sheet.rounds]
        self.tournaments.record(ident, stage, number, rounds)
        if self.tournaments.get(ident).model().stage_complete(stage):
            await self._next_stage_or_end(ident)

    async def resume(self) -> None:
        """After a restart (the lobby's tables restored from the store): every tournament
        started and not over carries on.  Its tables here name it again (``_tag``), those
        of the stage being played are carried on (:meth:`_carry_on`), and a stage found
        complete (or a tournament started with no stage yet) is paired (by its director,
        ``_next_stage``)."""
        for ident in self.tournaments.running():
            stored = self.tournaments.get(ident)
            model = stored.model()
            for table in stored.tables:
                if (live := self.lobby.tables.get(table.code)) is not None:
                    self._carry_on(stored, model, table.stage, table.number, live)
            if not model.stages or model.stage_complete(len(model.stages)):
                self._later(ident, None)

    def taken_over(self, table: Table) -> None:
        """This process took ``table`` over from another (``failover.adopt``): if it is a
        stage table, it names its tournament again and, its stage being played, carries on
        here (:meth:`_carry_on`): its match's end is recorded here."""
        try:
            found = self.tournaments.of_code(table.code)
            if found is None:
                return
            stored = self.tournaments.get(found[0])
        except self.tournaments.db.errors as error:  # the database away: the table plays on untagged
            log.warning("could not look up the tournament of table %s (%s)", table.code, error)
            return
        self._carry_on(stored, stored.model(), found[1], found[2], table)

    def _carry_on(self, stored: StoredTournament, model: Tournament, stage: int, number: int, live: Table) -> None:
        """A stage table restored here (a restart, or taken over): it names its tournament
        (``_tag``); if its stage is the one being played and its match not recorded, it is
        dealt from the stage's seed, kept, watched and carried on: begun if still in its
        lobby, recorded if its match ended while no one watched, dealt on from a score sheet."""
        codes = [other.code for other in stored.tables if other.stage == stage]
        self._tag(stored, model.stage_count, stage, codes, live)
        recorded = next(t.rounds for t in stored.tables if (t.stage, t.number) == (stage, number))
        if stored.ended is not None or stage != len(model.stages) or recorded is not None:
            return
        live.match_seeds = dealt_from(model.stages[-1].seed)
        self.lobby.kept.add(live.code)
        self._watch(stored.id, stage, number, live)
        if live.phase is Phase.LOBBY:
            live.begin()
        elif live.phase is Phase.OVER:
            self._later(stored.id, (stage, number, live))
        elif live.phase is Phase.SCORING:
            live.keep_going()

    # --- several processes ------------------------------------------------------------

    def oversee(self, every_s: float = keys.RENEW_S) -> None:
        """Several processes (``--redis``): every ``every_s`` this process takes or renews
        the lease of each running tournament nobody else directs (``Directory.lead``), and
        pairs its next stage once every table of the stage is in, whichever process
        recorded the last (or ends it).  A director that dies leaves its lease to run out:
        another process takes it over at its next look and carries on."""
        self._overseeing = asyncio.get_running_loop().create_task(self._oversee_forever(every_s))

    async def _oversee_forever(self, every_s: float) -> None:
        while True:
            await asyncio.sleep(every_s)
            try:
                await self.oversee_once()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis or the database away a moment: the next look tries again
                log.warning("could not oversee the tournaments (%s): trying again", error)

    async def oversee_once(self) -> None:
        """One look at the running tournaments (see :meth:`oversee`)."""
        led = [ident for ident in self.tournaments.running() if await self.lobby.directory.lead(ident)]
        if led:
            waiting = set(self.tournaments.unpaired())
            for ident in led:
                if ident in waiting:
                    await self._next_stage_or_end(ident)

    async def stop(self) -> None:
        """No more oversight (the process is shutting down)."""
        if self._overseeing is not None:
            self._overseeing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._overseeing

    def _later(self, ident: str, over: tuple[int, int, Table] | None) -> None:
        """A task: a table's match over recorded (``over``), or the next stage paired."""
        work = self._table_over(ident, *over) if over is not None else self._next_stage_or_end(ident)
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _next_stage_or_end(self, ident: str) -> None:
        if self.tournaments.get(ident).model().over:
            self.tournaments.end(ident)
        else:
            await self._next_stage(ident)

    async def settled(self) -> None:
        """Wait until every match over has been recorded (and its next stage paired)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks))

    def _lock(self, ident: str) -> asyncio.Lock:
        return self._locks.setdefault(ident, asyncio.Lock())


def dealt_from(seed: int) -> Callable[[int], int]:
    """A stage table's ``match_seeds``: its match (any match) dealt from the stage's seed."""
    return lambda _number: seed


def details_of(stored: StoredTournament) -> protocol.TournamentDetails:
    """``GET /api/tournaments/{id}``'s body: no seed, no card."""
    model = stored.model() if stored.tables else None  # (open: not yet paired, maybe 0 entrants)
    state: Literal["open", "playing", "over"] = (
        "open" if stored.started is None else "over" if stored.ended is not None else "playing"
    )
    entrants = [protocol.EntrantLine(e.entrant, e.name, e.profile, e.bot) for e in stored.entrants]
    standings = [
        protocol.StandingLine(s.place, s.entrant, round(float(s.duplicate), 3), s.points, s.rounds_won, s.rounds, s.out)
        for s in (model.standings() if model is not None else [])
    ]
    codes = {(t.stage, t.number): t.code for t in stored.tables}
    played = [] if model is None else _played(model, codes)
    return protocol.TournamentDetails(
        stored.id,
        stored.name,
        state,
        stored.table_size,
        _stage_count(stored, model),
        stored.pairing.value,
        stored.rules,
        entrants,
        standings,
        played,
    )


def _played(model: Tournament, codes: dict[tuple[int, int], str]) -> list[protocol.StageLine]:
    """The stages paired so far, each table with its code and (once over) its rounds."""
    return [
        protocol.StageLine(
            stage.number,
            model.stage_complete(stage.number),
            [
                protocol.StageTableLine(
                    table.number,
                    codes[stage.number, table.number],
                    list(table.seats),
                    _rounds(model, stage.number, table.number),
                )
                for table in stage.tables
            ],
        )
        for stage in model.stages
    ]


def _stage_count(stored: StoredTournament, model: Tournament | None) -> int:
    """The stages it has: a knockout's follow from its entrants (before the start, those
    entered so far)."""
    if model is not None:
        return model.stage_count
    if stored.pairing is Pairing.KNOCKOUT and len(stored.entrants) >= 2:
        return knockout_stages(len(stored.entrants), stored.table_size)
    return stored.stages


def _rounds(model: Tournament, stage: int, number: int) -> list[list[int]] | None:
    found = model.results.get((stage, number))
    return None if found is None else [list(line) for line in found]
