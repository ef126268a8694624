"""The HTTP API of replays (docs/protocol.md, "Replays"): a finished round from the store
as the replay file (``GET /api/replays/{token}/file``, a download that ``ligretto replay
FILE`` verifies) and as the browser's viewer needs it (``GET /api/replays/{token}``: the
round as a spectator saw it).  ``token`` is the round's share token (``replayaccess``),
told to the table in the round's ``round_over``; an unknown one is ``no_round``.  At a
table whose setting ``replays`` is ``players``, only a player of the round's match is
answered (``Authorization: Bearer <profile secret>`` of a profile that sat in it, or
``?seat=<seat token>`` of one of its seats), anyone else ``not_a_player`` (403).

Both are built here by replaying the stored actions through the engine, never from
anything a client sent.  Only a round that is over is answered: the file holds the
round's seed, which deals every hidden card, so a round still being played (its table
in countdown or play at that match and round) is refused ``round_not_over``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.engine.events import Applied
from ligretto.engine.races import Landings
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_from_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.protocol import Phase
from ligretto.replay import encode, replay_of
from ligretto.replay.file import end_of
from ligretto.server.records import history
from ligretto.server.records.profiles import ProfileError, secret_hash
from ligretto.server.records.store import RoundLog, Store
from ligretto.server.table.record import TableRecord
from ligretto.server.table.replayaccess import Replays, may_watch
from ligretto.server.table.table import Table
from ligretto.server.web import http
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.profiles import NO_STORE, secret_of

NO_ROUND = protocol.HttpError("no_round", "there is no stored round with that replay link")
NOT_A_PLAYER = protocol.HttpError(
    "not_a_player",
    "this table shows its replays to its players only: open the link with the profile you played with",
)
NOT_OVER = protocol.HttpError(
    "round_not_over", "this round is still being played: its replay can be watched once it is over"
)


def being_played(lobby: Lobby, code: str, match: int, number: int) -> bool:
    """Whether the round is the one its table is counting down to or playing now."""
    table = lobby.tables.get(code)
    if table is None or table.phase not in (Phase.COUNTDOWN, Phase.PLAYING):
        return False
    return (table.matches_played, table.round_number) == (match, number)


def _finished_log(request: Request) -> RoundLog | Response:
    """The stored round the path's token names, or the answer refusing it."""
    lobby: Lobby = request.app.state.lobby
    store: Store | None = lobby.store
    if store is None:
        return http.answer(NO_STORE, 503)
    found = store.round_of_token(request.path_params["token"])
    if found is None:
        return http.answer(NO_ROUND, 404)
    code, match, number = found
    if being_played(lobby, code, match, number):
        return http.answer(NOT_OVER, 409)
    if not _may_watch(request, store, code, match):
        return http.answer(NOT_A_PLAYER, 403)
    log = store.round_log(code, match, number)
    return http.answer(NO_ROUND, 404) if log is None else log


def _setting(table: Table | None, record: TableRecord | None) -> Replays:
    """The table's choice now: the live table's, else its record's; a table without a
    record (none is made without one) shows nobody but its players."""
    if table is not None:
        return table.replays
    if record is not None:
        return Replays(record.replays)
    return Replays.PLAYERS


def _may_watch(request: Request, store: Store, code: str, match: int) -> bool:
    """The match's setting and players as the history filed them when it started (for a
    match filed before they were kept: the table's setting and seat tokens now), and the
    request's credentials."""
    lobby: Lobby = request.app.state.lobby
    filed = history.watchers_of(store.db, code, match)
    setting, tokens = filed.replays, set(filed.seat_tokens)
    if setting is None or not tokens:
        table = lobby.tables.get(code)
        record = None if table is not None else store.table_record(code)
        if setting is None:
            setting = _setting(table, record)
        if not tokens:
            current = table.seats if table is not None else record.seats if record is not None else ()
            tokens = {secret_hash(seat.token) for seat in current if seat is not None}
    if setting is Replays.LINK:
        return True
    profile = None
    secret = secret_of(request)
    if secret is not None:
        try:
            profile = store.profiles.by_secret(secret).id
        except ProfileError:
            profile = None
    seat = request.query_params.get("seat")
    return may_watch(
        setting,
        profile=profile,
        seat_token=None if seat is None else secret_hash(seat),
        players=filed.profiles,
        seat_tokens=tokens,
    )


def go_time(request: Request, log: RoundLog) -> float:
    """When the round's play started on the actions' clock: dealt, then its countdown."""
    lobby: Lobby = request.app.state.lobby
    return log.started + lobby.settings.countdown_s


def spectator_round(log: RoundLog, start: float) -> protocol.ReplayRound:
    """The round as a spectator saw it: the first snapshot, then for every stored action
    what a spectator was sent (``events``, or the ``race`` a refused play lost: one ranked
    at the same time as the card that took its place, by the stored ranks), with
    its time from ``start``; the end and scores.  The engine plays the log again here."""
    number = log.number
    players = sorted(log.players, key=lambda player: player.seat)
    game = Round.deal(RuleSet.from_dict(log.rules), len(players), log.seed)
    snapshot = protocol.snapshot_message(view(game, None), number)
    steps = []
    landings = Landings()
    for logged in log.actions:
        action = action_from_dict(logged.action)
        seq, piles = len(game.log), len(game.pile_seats)
        result = game.apply(action)
        t = None if logged.at is None else round(max(0.0, logged.at - start), 3)
        step = protocol.ReplayStep(t, action.player)
        race = landings.decided(game, action, result, piles, logged.rank)
        if isinstance(result, Applied):
            step.events = protocol.events_message(number, seq, action.player, result.events)
        elif race is not None:
            pile, _height, winner = race
            step.race = protocol.race_message(number, pile, winner, action.player, None)
        steps.append(step)
    end = end_of(game)
    return protocol.ReplayRound(
        match=log.match,
        round=number,
        rules=log.rules,
        players=[protocol.ReplayPlayer(p.seat, p.name, p.bot) for p in players],
        snapshot=snapshot,
        steps=steps,
        end=protocol.ReplayEnd(end.ending, end.stopped_by, end.scores),
    )


async def replay_round(request: Request) -> Response:
    """``GET /api/replays/{token}``: the round for the browser's viewer."""
    found = _finished_log(request)
    if isinstance(found, Response):
        return found
    return http.answer(spectator_round(found, go_time(request, found)))


async def replay_file(request: Request) -> Response:
    """``GET /api/replays/{token}/file``: the replay file, as a download."""
    found = _finished_log(request)
    if isinstance(found, Response):
        return found
    body = encode(replay_of(found, start=go_time(request, found), where=False))
    name = f"ligretto-replay-{found.match}-{found.number}.json"
    return Response(
        body, media_type="application/json", headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )
