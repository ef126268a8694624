"""Tournaments of duplicate deals (issue 29): Swiss, mixed or knockout pairing into tables, every table of a
stage dealt the same deals, standings by duplicate score.  Pure: no I/O, no clock, no
global random; only the standard library.
"""

from .duplicate import Rounds, duplicate_scores, seat_means
from .knockout import going_on, knockout_stages, table_ranking
from .plan import (
    MAX_ENTRANTS,
    MAX_STAGES,
    Pairing,
    Stage,
    StageTable,
    Standing,
    Tournament,
    TournamentError,
    replay,
    restore,
    stage_seed,
)
from .swiss import capacities, pair, repeats

__all__ = [
    "MAX_ENTRANTS",
    "MAX_STAGES",
    "Pairing",
    "Rounds",
    "Stage",
    "StageTable",
    "Standing",
    "Tournament",
    "TournamentError",
    "capacities",
    "duplicate_scores",
    "going_on",
    "knockout_stages",
    "pair",
    "repeats",
    "replay",
    "restore",
    "seat_means",
    "stage_seed",
    "table_ranking",
]
