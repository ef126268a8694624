"""The bodies of the history, statistics and leaderboard answers of the HTTP API
(docs/protocol.md, "Profiles, history and ratings").  None holds a card: a match is its
rules, players and score sheet; statistics are counts and times."""

from __future__ import annotations

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
    scored; ``ended`` and ``places`` ``None`` while it is not over (or was abandoned)."""

    code: str
    match: int
    started: float
    ended: float | None
    rules: dict[str, str | int | bool]
    preset: str | None
    rated: bool
    players: list[MatchPlayer]
    sheet: SheetMsg | None
    places: list[int] | None


class MatchHistory(_Body):
    """``GET /api/profiles/{id}/matches``: one page, newest first."""

    profile: str
    matches: list[MatchEntry]
    page: int
    pages: int
    total: int


class MatchStats(_Body):
    """The profile's figures in one match (statistics over time)."""

    code: str
    match: int
    started: float
    rounds: int
    rounds_won: int
    stops: int
    center: int
    stack: int
    races_won: int
    races_lost: int


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


HISTORY_BODIES: tuple[type[msgspec.Struct], ...] = (MatchHistory, ProfileStats)
"""The answers docs/protocol.md shows in examples (their parts are shown inside them)."""
