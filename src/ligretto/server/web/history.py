"""The HTTP API of a profile's history and statistics, and the leaderboard
(docs/protocol.md, "Profiles, history and ratings"): ``GET /api/profiles/{id}/matches``
and ``.../stats``, filtered by rules preset and number of players, and ``GET
/api/leaderboard``.  Public: a profile's id is public, and nothing answered holds a card
(rules, players, score sheets, counts, times and ratings)."""

from __future__ import annotations

import math
from collections.abc import Callable

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from ligretto.engine.rules import PRESETS
from ligretto.engine.scoring import ScoreSheet
from ligretto.ratings import Rating, RatingError, Season, nearest_bot, season_named, season_of
from ligretto.server.records import history, ratingstore, stats
from ligretto.server.records.history import MatchFilter, StoredMatch
from ligretto.server.records.profiles import ProfileError
from ligretto.server.records.store import Store
from ligretto.server.web import http
from ligretto.server.web.profiles import NO_STORE, secret_of

NO_PROFILE = protocol.HttpError("no_profile", "there is no profile with that id")


MAX_PAGE = 10**6
"""The highest ``page`` asked for (a page past the last is answered empty)."""


def filter_of(request: Request, profile: str) -> MatchFilter:
    """The filter of the query (``preset``, ``players``), else :class:`http.BadQuery`."""
    preset = request.query_params.get("preset") or None
    if preset is not None and preset not in PRESETS:
        raise http.BadQuery(f"unknown preset {preset!r}: presets are {', '.join(PRESETS)}")
    return MatchFilter(profile, preset, http.query_number(request, "players", MIN_PLAYERS, MAX_PLAYERS))


def _entry(match: StoredMatch, shown: Callable[[str], bool], replays: list[str] | None) -> protocol.MatchEntry:
    players = [protocol.MatchPlayer(p.seat, p.name, p.profile, p.bot) for p in match.players]
    sheet = protocol.sheet_message(ScoreSheet.from_dict(match.sheet)) if match.sheet else None
    return protocol.MatchEntry(
        match.code if shown(match.code) else None,
        match.match,
        match.started,
        match.ended,
        match.rules,
        match.preset,
        match.rated,
        players,
        sheet,
        match.places,
        replays,
        "table" if match.kind == "table" else "online",
        match.tournament,
    )


def is_owner(request: Request, store: Store, profile: str) -> bool:
    """Whether the request is ``profile``'s owner's (``Authorization: Bearer`` its secret)."""
    try:
        return store.profiles.by_secret(secret_of(request)).id == profile
    except ProfileError:
        return False


def codes_shown(store: Store, owner: bool) -> Callable[[str], bool]:
    """Whether a table's invite code may be shown in a profile's history: always to the
    profile's ``owner`` (:func:`is_owner`), to anyone else only for a public table (a
    private table's code lets whoever has it join or watch it)."""
    public: dict[str, bool] = {}

    def shown(code: str) -> bool:
        if owner:
            return True
        if code not in public:
            record = store.table_record(code)
            public[code] = record is not None and record.public
        return public[code]

    return shown


def _store_and_profile(request: Request) -> tuple[Store, str] | Response:
    store: Store | None = request.app.state.lobby.store
    if store is None:
        return http.answer(NO_STORE, 503)
    profile = request.path_params["id"]
    if store.profiles.by_id(profile) is None:
        return http.answer(NO_PROFILE, 404)
    return store, profile


async def profile_matches(request: Request) -> Response:
    """``GET /api/profiles/{id}/matches?preset=&players=&page=``: one page of the
    profile's matches, newest first (:data:`history.PAGE_SIZE` a page)."""
    found = _store_and_profile(request)
    if isinstance(found, Response):
        return found
    store, profile = found
    db = store.db
    try:
        which = filter_of(request, profile)
        page = http.query_number(request, "page", 1, MAX_PAGE) or 1
    except http.BadQuery as error:
        return http.error(400, "bad_query", str(error))
    total = history.count_of(db, which)
    matches = history.matches_of(db, which, page)
    pages = max(1, math.ceil(total / history.PAGE_SIZE))
    owner = is_owner(request, store, profile)
    shown = codes_shown(store, owner)

    def replays(match: StoredMatch) -> list[str] | None:
        scored = len(match.sheet.get("rounds", ()))
        return history.replays_of(db, match.code, match.match, scored) if owner else None

    entries = [_entry(m, shown, replays(m)) for m in matches]
    return http.answer(protocol.MatchHistory(profile, entries, page, pages, total))


async def profile_stats(request: Request) -> Response:
    """``GET /api/profiles/{id}/stats?preset=&players=``: the profile's statistics over
    its matches (``server.stats``)."""
    found = _store_and_profile(request)
    if isinstance(found, Response):
        return found
    store, profile = found
    db = store.db
    try:
        which = filter_of(request, profile)
    except http.BadQuery as error:
        return http.error(400, "bad_query", str(error))
    matches = history.matches_of(db, which, 1, size=history.count_of(db, which) or 1)
    shown = codes_shown(store, is_owner(request, store, profile))
    figures = stats.figures_of(db, profile, matches, store.round_log)
    per_match = figures.matches
    rounds = sum(m.rounds for m in per_match)
    body = protocol.ProfileStats(
        profile=profile,
        matches=len(per_match),
        rounds=rounds,
        rounds_won=sum(m.rounds_won for m in per_match),
        stops=sum(m.stops for m in per_match),
        center_per_round=sum(m.center for m in per_match) / rounds if rounds else 0.0,
        stack_per_round=sum(m.stack for m in per_match) / rounds if rounds else 0.0,
        races_won=sum(m.races_won for m in per_match),
        races_lost=sum(m.races_lost for m in per_match),
        reaction_s=figures.medians,
        by_match=[m if shown(m.code or "") else msgspec.structs.replace(m, code=None) for m in per_match],
        rating=rating_message(*ratingstore.rating_of(db, profile, which.players or ratingstore.OVERALL)),
    )
    return http.answer(body)


def rating_message(rating: Rating, matches: int) -> protocol.RatingMsg:
    return protocol.RatingMsg(rating.mu, rating.sigma, rating.conservative, matches, nearest_bot(rating))


ALL_TIME = "all"
"""The ``season`` of the leaderboard of all time."""


def season_of_query(request: Request, now: float) -> Season | None:
    """The ``season`` asked for (``2026-Q4``; none: the current one; ``all``: all time,
    ``None``), else :class:`http.BadQuery`."""
    name = request.query_params.get("season") or None
    if name is None:
        return season_of(now)
    if name == ALL_TIME:
        return None
    try:
        return season_named(name)
    except RatingError as error:
        raise http.BadQuery(f"{error} (or {ALL_TIME!r})") from None


async def leaderboard(request: Request) -> Response:
    """``GET /api/leaderboard?players=&page=&season=``: the rated profiles, best first
    (overall, or of one number of players; of a season, by default the current one, or of
    all time), each with its rated matches; and the seasons there are."""
    store: Store | None = request.app.state.lobby.store
    if store is None:
        return http.answer(NO_STORE, 503)
    now = store.profiles.clock()
    try:
        players = http.query_number(request, "players", MIN_PLAYERS, MAX_PLAYERS)
        page = http.query_number(request, "page", 1, MAX_PAGE) or 1
        season = season_of_query(request, now)
    except http.BadQuery as error:
        return http.error(400, "bad_query", str(error))
    rows, total = ratingstore.leaderboard(store.db, players or ratingstore.OVERALL, page, season=season)
    entries = [
        protocol.LeaderboardEntry(
            r.place, r.profile, r.name, r.symbol, r.rating.mu, r.rating.sigma, r.rating.conservative, r.matches
        )
        for r in rows
    ]
    pages = max(1, math.ceil(total / ratingstore.PAGE_SIZE))
    seasons = [protocol.SeasonMsg(s.name, s.starts, s.ends) for s in ratingstore.seasons(store.db, now)]
    return http.answer(
        protocol.Leaderboard(
            players,
            ALL_TIME if season is None else season.name,
            seasons,
            ratingstore.LEADERBOARD_MIN_MATCHES,
            page,
            pages,
            total,
            entries,
        )
    )
