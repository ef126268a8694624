"""The bodies of the tournaments' HTTP API (docs/protocol.md, "Tournaments"): a host
makes a tournament, people (and bots) enter it, the host starts it; its answer is the
standings, the stages and their tables.  No body holds a card or a deal's seed: a stage's
tables are dealt the same deals, which stay hidden as every deal does."""

from __future__ import annotations

from typing import Literal

import msgspec

from ligretto.protocol.errors import ProtocolError


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    pass


# --- requests ----------------------------------------------------------------------------


class CreateTournament(_Body):
    """The body of ``POST /api/tournaments``: its name, tables of ``table_size`` seats,
    ``stages`` stages (one match each), paired ``swiss`` (by standing), ``mixed`` (as
    many new table-mates as can be) or ``knockout`` (the top half of each table goes on
    until one table plays the final: its stages follow from the entrants, ``stages`` is
    not used), the rules (a preset and options, as a table's), and
    ``bots`` entered at once (``strategy:level`` each)."""

    name: str
    table_size: int = 4
    stages: int = 3
    pairing: Literal["swiss", "mixed", "knockout"] = "swiss"
    preset: str = "classic"
    options: dict[str, str | int | bool] = {}
    bots: list[str] = []


class JoinTournament(_Body):
    """The body of ``POST /api/tournaments/{id}/entrants``: the display name (checked as
    in ``hello``).  With ``Authorization: Bearer <profile secret>`` the matches go in that
    profile's history."""

    name: str


class HostSecret(_Body):
    """The body of ``POST /api/tournaments/{id}/start``: the secret the host was given."""

    host: str


class EntrantSecret(_Body):
    """The body of ``POST /api/tournaments/{id}/seat``: the secret the entrant was given."""

    secret: str


# --- answers -----------------------------------------------------------------------------


class TournamentCreated(_Body):
    """The answer to ``POST /api/tournaments``: its id and the host's secret (given once)."""

    id: str
    host: str


class Entered(_Body):
    """The answer to joining: the entrant's number and its secret (given once), which asks
    for its seat at each stage (``POST …/seat``)."""

    entrant: int
    secret: str


class TournamentSeat(_Body):
    """An entrant's seat at the stage being played: the table's code, the seat, its token
    (``hello`` with the token takes the seat; a stand-in plays it until then)."""

    code: str
    seat: int
    token: str


class EntrantLine(_Body):
    """An entrant: its number, display name, profile's public id (or ``None``), bot spec
    (or ``None``: a person)."""

    entrant: int
    name: str
    profile: str | None
    bot: str | None


class StageTableLine(_Body):
    """A stage's table: its number, code (to watch it: ``#/w/CODE``), the entrant in each
    seat (``None``: a bot filling a bye), and once its match is over each round's scores
    per seat (``None`` until then)."""

    number: int
    code: str
    seats: list[int | None]
    rounds: list[list[int]] | None


class StageLine(_Body):
    """A stage: its number and tables; ``over`` once every table's match is."""

    number: int
    over: bool
    tables: list[StageTableLine]


class StandingLine(_Body):
    """An entrant's line of the standings: place, entrant, total duplicate score (a seat's
    round score minus that seat's mean in that round over the stage's tables; rounded to
    3 decimals), points (plain round scores), rounds won and played; in a knockout, the
    stage the entrant went out at (``out``; ``None``: still in, or the winner)."""

    place: int
    entrant: int
    duplicate: float
    points: int
    rounds_won: int
    rounds: int
    out: int | None = None


class TournamentDetails(_Body):
    """``GET /api/tournaments/{id}``: the settings, ``state``, entrants, standings (counting
    the stages over) and the stages paired so far.  A knockout's ``stages`` are those its
    entrants take (so far: those it would take now)."""

    id: str
    name: str
    state: Literal["open", "playing", "over"]
    table_size: int
    stages: int
    pairing: Literal["swiss", "mixed", "knockout"]
    rules: dict[str, str | int | bool]
    entrants: list[EntrantLine]
    standings: list[StandingLine]
    played: list[StageLine]


# --- at the tables and in the lobby ------------------------------------------------------


class TableTournament(_Body):
    """In a stage table's ``table`` message: the tournament it is a table of (its id, for
    ``#/tournament/ID``; its name) and which of its ``stages`` it plays (``stage``)."""

    id: str
    name: str
    stage: int
    stages: int


class LobbyTournament(_Body):
    """A tournament being played, as the lobby lists it (once, in place of its stage
    tables, which only its page lists): its id (``#/tournament/ID``), name, the stage being
    played of its ``stages``, and how many tables play that stage."""

    id: str
    name: str
    stage: int
    stages: int
    tables: int


OWN_STAGE = "own_stage"
"""The error of a ``hello`` that would watch another table of the stage its sender plays."""


def own_stage() -> ProtocolError:
    """The refusal of an entrant's ``watch`` of another table of the stage they are
    playing, until every table of the stage is over: they are all dealt the same cards."""
    return ProtocolError(
        OWN_STAGE,
        "you play in this stage of the tournament: its other tables are dealt your cards, "
        "so you may watch them once every table of the stage is over",
    )


TOURNAMENT_BODIES: tuple[type[msgspec.Struct], ...] = (
    CreateTournament,
    JoinTournament,
    HostSecret,
    EntrantSecret,
    TournamentCreated,
    Entered,
    TournamentSeat,
    TournamentDetails,
)
"""The bodies docs/protocol.md shows (the lines inside ``TournamentDetails`` with it)."""
