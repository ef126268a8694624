"""The bodies of the history, statistics and leaderboard answers of the HTTP API
(docs/protocol.md, "Profiles, history and ratings").  None holds a card: a match is its
rules, players and score sheet; statistics are counts and times."""

from __future__ import annotations

from typing import Literal

import msgspec

from ligretto.protocol.game import SheetMsg


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    pass


class MatchPlayer(_Body):
    """Who sat at a seat of a match: the display name then, the profile's public id (or
    ``None``), the bot spec (or ``None``: a person)."""

    seat: int
    name: str
    profile: str | None
    bot: str | None


class MatchEntry(_Body):
    """One match of a profile's history: ``sheet`` ``None`` before its first round was
    scored; ``ended`` and ``places`` ``None`` while it is not over (or was abandoned);
    ``code`` ``None`` for a private table, unless the profile's owner asks."""

    code: str | None
    match: int
    started: float
    ended: float | None
    rules: dict[str, str | int | bool]
    preset: str | None
    rated: bool
    players: list[MatchPlayer]
    sheet: SheetMsg | None
    places: list[int] | None
    replays: list[str] | None = None
    """The share token of each round on the sheet, in order (its replay:
    ``GET /api/replays/{token}``): only to the profile's owner, who played them; ``None``
    to anyone else (a link is the table's players' to share)."""
    kind: Literal["online", "table"] = "online"
    """``online``: played on this server; ``table``: played with real cards, scored with
    the score keeper (never rated; no replays)."""
    tournament: str | None = None
    """The id of the tournament this match was a stage table's (``#/tournament/ID``;
    ``GET /api/tournaments/{id}``); ``None``: no tournament's."""


class MatchHistory(_Body):
    """``GET /api/profiles/{id}/matches``: one page, newest first."""

    profile: str
    matches: list[MatchEntry]
    page: int
    pages: int
    total: int


class MatchStats(_Body):
    """The profile's figures in one match (statistics over time); ``code`` as in
    :class:`MatchEntry`."""

    code: str | None
    match: int
    started: float
    rounds: int
    rounds_won: int
    stops: int
    center: int
    stack: int
    races_won: int
    races_lost: int


class RatingMsg(_Body):
    """A rating: ``mu`` and its uncertainty ``sigma``, the conservative value shown and
    ranked (``rating`` = mu - 3 sigma), the rated matches it comes from, and the
    calibrated bot level nearest to it (``None``: none is calibrated)."""

    mu: float
    sigma: float
    rating: float
    matches: int
    like_bot: str | None


class ProfileStats(_Body):
    """``GET /api/profiles/{id}/stats``: totals over the matches filtered, per-round
    means, median reaction times (seconds) by kind of move, and each match's figures."""

    profile: str
    matches: int
    rounds: int
    rounds_won: int
    stops: int
    center_per_round: float
    stack_per_round: float
    races_won: int
    races_lost: int
    reaction_s: dict[str, float]
    by_match: list[MatchStats]
    rating: RatingMsg
    """The overall rating, or of ``players`` if the query gives it (not filtered by preset)."""


class LeaderboardEntry(_Body):
    place: int
    id: str
    name: str
    symbol: str
    mu: float
    sigma: float
    rating: float
    matches: int


class SeasonMsg(_Body):
    """A season of ratings: its name (``2026-Q4``) and bounds (seconds since the epoch,
    ``starts`` included, ``ends`` not)."""

    name: str
    starts: float
    ends: float


class Leaderboard(_Body):
    """``GET /api/leaderboard?players=&page=&season=``: one page, best conservative rating
    first; only profiles with at least ``min_matches`` rated matches (overall, or of
    ``players``; in ``season``, or ``"all"``: of all time); ``seasons``: the current season
    and every past one with rated matches, newest first."""

    players: int | None
    season: str
    seasons: list[SeasonMsg]
    min_matches: int
    page: int
    pages: int
    total: int
    entries: list[LeaderboardEntry]


HISTORY_BODIES: tuple[type[msgspec.Struct], ...] = (MatchHistory, ProfileStats, Leaderboard)
"""The answers docs/protocol.md shows in examples (their parts are shown inside them)."""
