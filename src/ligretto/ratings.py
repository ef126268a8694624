"""Ratings of players: OpenSkill's Plackett-Luce model for free-for-all matches of 2-12.

A rating is a belief about a player's skill: a mean ``mu`` and an uncertainty ``sigma``.
After each rated match :func:`rate` updates every player's rating from the final places
(ties share a place) with the ``openskill`` package's ``PlackettLuce`` model, each player
its own team.  What a player is shown, and what the leaderboard orders by, is the
*conservative* value ``mu - 3 * sigma``: the skill the player has with about 99.7 %
certainty, low while little is known and rising as matches are played.

The bots' ratings never change: :data:`BOT_RATINGS` holds each bot level's rating,
calibrated once by letting the bots play each other in the simulator
(``python -m ligretto.sim.calibrate``, docs/ratings.md), so that :func:`nearest_bot` can
say a player is "about as good as" a given bot.

Ratings also run by **season**, a calendar quarter in UTC (:func:`season_of`): each
season's rating starts from the one its player ended the last season with, pulled halfway
back toward a new player's (:func:`soft_reset`), so a season's leaderboard is a fresh race
that still starts from what is known.

Pure: no I/O, no clock (times are given), no other part of ligretto.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

from openskill.models import PlackettLuce

MIN_PLAYERS = 2
MAX_PLAYERS = 12

T = TypeVar("T")


class RatingError(ValueError):
    """A rating or a match that cannot be rated (bad values, wrong number of players or places)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's skill as OpenSkill sees it: mean ``mu`` and uncertainty ``sigma``."""

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.mu):
            raise RatingError(f"a rating's mu must be a finite number, not {self.mu!r}")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise RatingError(f"a rating's sigma must be a finite number above 0, not {self.sigma!r}")

    @property
    def conservative(self) -> float:
        """``mu - 3 * sigma``: what is shown and ranked (the skill held with ~99.7 % certainty)."""
        return self.mu - 3 * self.sigma


_MODEL = PlackettLuce()
"""The one model, with openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300)."""

DEFAULT = Rating(25.0, 25.0 / 3)
"""A new player's rating: openskill's defaults."""


def check_places(places: Sequence[int], players: int | None = None) -> None:
    """Refuse places that are not a free-for-all result of 2-12 players: each 1-based
    (1 = best, ties share a place), place 1 taken, one per player."""
    count = len(places)
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise RatingError(f"a rated match has {MIN_PLAYERS}-{MAX_PLAYERS} players, not {count}")
    if players is not None and players != count:
        raise RatingError(f"{players} ratings but {count} places: give one place per player")
    for place in places:
        if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= count:
            raise RatingError(f"places are 1-based, from 1 to {count} (the number of players), not {place!r}")
    if 1 not in places:
        raise RatingError(f"places are 1-based: someone must be first, not {list(places)}")


def places_among(places: Sequence[int]) -> list[int]:
    """The places of some of a match's players among themselves, 1-based again (ties
    still share, the next place skips): the rated players' places when seats without a
    rating (no profile, an unrated bot) are left out.  ``places_among([2, 4, 4, 5]) ==
    [1, 2, 2, 4]``."""
    return [1 + sum(other < place for other in places) for place in places]


def rate(ratings: Sequence[Rating], places: Sequence[int]) -> list[Rating]:
    """The new ratings after one free-for-all match, in the same order as ``ratings``.

    ``places[i]`` is player ``i``'s final place, 1-based (1 = best); equal places are a
    tie.  Computed by openskill's ``PlackettLuce`` with each player its own team.
    Bad input raises :class:`RatingError` and nothing is computed.
    """
    check_places(places, len(ratings))
    for rating in ratings:
        if not isinstance(rating, Rating):
            raise RatingError(f"expected a Rating, not {rating!r}")
    teams = [[_MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating in ratings]
    rated = _MODEL.rate(teams, ranks=[float(place) for place in places])
    return [Rating(float(team[0].mu), float(team[0].sigma)) for team in rated]


def leaderboard_order(rows: Iterable[T], key: Callable[[T], Rating]) -> list[T]:
    """``rows`` by their rating's conservative value, highest first; equal values by
    ``mu``, highest first; still equal: in the order given."""

    def rank(row: T) -> tuple[float, float]:
        rating = key(row)
        return (-rating.conservative, -rating.mu)

    return sorted(rows, key=rank)


BOT_RATINGS: dict[str, Rating] = {
    "sharp:expert": Rating(64.32, 2.10),
    "smart:expert": Rating(57.06, 2.01),
    "greedy:expert": Rating(56.54, 2.00),
    "sharp:skilled": Rating(38.35, 1.94),
    "smart:skilled": Rating(32.48, 1.92),
    "greedy:skilled": Rating(31.62, 1.91),
    "sharp:casual": Rating(15.46, 1.88),
    "smart:casual": Rating(10.81, 1.87),
    "greedy:casual": Rating(10.14, 1.88),
    "sharp:beginner": Rating(-2.26, 1.92),
    "smart:beginner": Rating(-5.11, 1.95),
    "greedy:beginner": Rating(-6.34, 1.97),
}
"""Each calibrated bot spec's fixed rating, best first: generated by
``python -m ligretto.sim.calibrate --matches 30000 --seed 1`` (docs/ratings.md has the run).
The ``machine`` level is not rated: it wins nearly every match, its rating never settles."""


def bot_rating(spec: str) -> Rating | None:
    """The fixed rating of a bot spec such as ``"smart:skilled"``; None: not calibrated."""
    return BOT_RATINGS.get(spec.strip())


def nearest_bot(rating: Rating) -> str | None:
    """The calibrated bot whose conservative value is nearest to ``rating``'s (on a tie,
    the first in :data:`BOT_RATINGS`): "about as good as a skilled bot"; None if none is."""
    return bot_near(rating.conservative)


def bot_near(conservative: float) -> str | None:
    """The calibrated bot whose conservative value is nearest to ``conservative`` (a
    table's people's mean: the matchmaking queue's bots for its empty seats)."""
    best: str | None = None
    distance = math.inf
    for spec, bot in BOT_RATINGS.items():
        gap = abs(bot.conservative - conservative)
        if gap < distance:
            best, distance = spec, gap
    return best


SEASON_MONTHS = 3
"""A season's length: a calendar quarter (January-March, April-June, ...), in UTC."""
SOFT_RESET = 0.5
"""How far a rating is pulled back toward :data:`DEFAULT` when a season starts: its
``mu`` and its ``sigma`` each go this share of the way (0: kept, 1: a new player's)."""
_SEASON_NAME = re.compile(r"(\d{4})-Q([1-4])")


@dataclass(frozen=True, slots=True)
class Season:
    """One season: its name (``"2026-Q4"``) and its bounds, seconds since the epoch
    (``starts`` included, ``ends`` not)."""

    name: str
    starts: float
    ends: float

    @property
    def previous(self) -> Season:
        return season_of(self.starts - 1)


def _quarter(year: int, quarter: int) -> Season:
    month = 1 + (quarter - 1) * SEASON_MONTHS
    starts = datetime(year, month, 1, tzinfo=UTC)
    after = (year + 1, 1) if quarter == 4 else (year, month + SEASON_MONTHS)
    ends = datetime(*after, 1, tzinfo=UTC)
    return Season(f"{year:04d}-Q{quarter}", starts.timestamp(), ends.timestamp())


def season_of(when: float) -> Season:
    """The season a moment (seconds since the epoch) falls in."""
    moment = datetime.fromtimestamp(when, tz=UTC)
    return _quarter(moment.year, 1 + (moment.month - 1) // SEASON_MONTHS)


def season_named(name: str) -> Season:
    """The season called ``name`` (``"2026-Q4"``); anything else raises :class:`RatingError`."""
    found = _SEASON_NAME.fullmatch(name) if name.isascii() else None
    if found is None or not 1 <= int(found[1]) <= 9998:
        raise RatingError(f"a season is a year and a quarter such as 2026-Q4, not {name!r}")
    return _quarter(int(found[1]), int(found[2]))


def soft_reset(rating: Rating) -> Rating:
    """The rating a season starts from, given the one the last season ended with: its
    ``mu`` and ``sigma`` each moved :data:`SOFT_RESET` of the way back to :data:`DEFAULT`'s
    (a strong player starts ahead but less sure; a new player's rating stays as it is)."""
    return Rating(
        rating.mu + (DEFAULT.mu - rating.mu) * SOFT_RESET,
        rating.sigma + (DEFAULT.sigma - rating.sigma) * SOFT_RESET,
    )
