"""The bodies of the HTTP API (docs/protocol.md, The HTTP API): requests validated on
arrival like client messages, answers typed like server messages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol

import msgspec

from ligretto.engine.actions import Action, Play, Turn, Vote
from ligretto.engine.rules import OPTIONS, PRESETS, RuleSet
from ligretto.protocol.history import HISTORY_BODIES
from ligretto.protocol.phase import Phase
from ligretto.protocol.tournaments import LobbyTournament

# --- requests ----------------------------------------------------------------------------


class CreateTutorial(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/tutorial``: the learner's display name (checked as in ``hello``)."""

    name: str = "You"


class CreateTable(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/tables``: every field optional.  ``bots`` seats bots
    (``strategy:level``) at once; ``start`` starts the match as soon as the first person
    takes a seat (play now: one request, one ``hello``, and the round is dealt).
    ``grace_s`` and ``ready_s`` ``None`` are the server's defaults."""

    seats: int = 4
    preset: str = "classic"
    options: dict[str, str | int | bool] = {}
    public: bool = False
    grace_s: float | None = None
    ready_s: float | None = None
    bots: list[str] = []
    start: bool = False
    arbitration: Literal["arrival", "fair"] = "fair"
    window_ms: int | None = None
    rated: bool | None = None
    """Its matches update the players' ratings; ``None``: rated if public or ``start``."""
    replays: str = "link"
    """Who may watch its replays: ``link`` (anyone with the link) or ``players`` (``bad_replays`` else)."""


class CreateProfile(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/profiles``: the display name (checked as in ``hello``) and
    the back symbol (``sun``, ``moon``, ``star``, ``heart``)."""

    name: str
    symbol: str


class UpdateProfile(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``PATCH /api/profiles/me``: what changes (an absent field does not)."""

    name: str | None = None
    symbol: str | None = None


class ClaimProfile(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/profiles/claim``: a one-time code from another device."""

    code: str


# --- answers -----------------------------------------------------------------------------


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    pass


class TableSummary(_Body):
    """A table as the lobby lists it (and the answer to ``POST /api/tables``)."""

    code: str
    phase: Phase
    seats: int
    taken: int
    host: str | None
    rules: dict[str, str | int | bool]


class PlayerEntry(_Body):
    """Who sits at a seat, for the invite page: no token, no card."""

    seat: int
    name: str
    bot: str | None


class TableDetails(_Body):
    """``GET /api/tables/{code}``: the summary and who sits where."""

    code: str
    phase: Phase
    seats: int
    taken: int
    host: str | None
    rules: dict[str, str | int | bool]
    players: list[PlayerEntry | None]


class TableList(_Body):
    """``GET /api/tables``: the public tables, at most ``LOBBY_TABLES`` of them (those
    waiting for players first, newest first), and how many there are in all; and the
    tournaments being played, once each (their stage tables are not in ``tables``)."""

    tables: list[TableSummary]
    total: int
    tournaments: list[LobbyTournament] = []


class Now(_Body):
    """Who is playing now (``GET /api/now``, and in every ``lobby`` message), in the whole
    service: open WebSockets (``online``: table, lobby and queue sockets alike), people
    waiting in the matchmaking queue, connections seated at a table (``playing``) and
    spectators' connections (``watching``)."""

    online: int
    queued: int
    playing: int
    watching: int


class ScriptPlay(_Body, tag_field="kind", tag="play"):
    """A play of the tutorial's script, without its card (most are still hidden)."""

    source: Literal["row", "stack", "discard"]
    position: int
    pile: int | None


class ScriptTurn(_Body, tag_field="kind", tag="turn"):
    pass


class ScriptVote(_Body, tag_field="kind", tag="vote"):
    """The stalemate vote in the tutorial's script."""


ScriptMove = ScriptPlay | ScriptTurn | ScriptVote


class ScriptStep(_Body):
    """One move of the tutorial's script: its lesson, its round, who makes it, the move;
    ``beaten_by``: at a race the tutorial stages, the seat whose card for the same place
    arrives first (the move is then refused, beaten to it), else ``None``."""

    step: str
    round: int
    seat: int
    action: ScriptMove
    beaten_by: int | None = None


class TutorialCreated(_Body):
    """``POST /api/tutorial``: the table, the learner's seat token, the tutor's seat and the script."""

    code: str
    token: str
    seat: int
    tutor: int
    steps: list[ScriptStep]


class PresetEntry(_Body):
    name: str
    rules: dict[str, str | int | bool]


class Presets(_Body):
    """``GET /api/presets``: every rule option (``Option.to_dict``) and every preset."""

    options: list[dict[str, Any]]
    presets: list[PresetEntry]


class Emotes(_Body):
    """``GET /api/emotes``: the reactions a player may send."""

    emotes: list[str]


class Health(_Body, omit_defaults=True):
    """``GET /healthz``: up, and the tables this process holds; in a service of several
    processes (``--redis``) which process this is (its id and address)."""

    status: str
    tables: int
    process: str | None = None
    address: str | None = None


class Readiness(_Body):
    """``GET /readyz``: whether this process should be given players now (``ready`` or
    ``not_ready``) and each check's finding, ``ok`` or what is missing: ``database`` (a
    query on a connection of its own), ``redis`` (a process of a service), ``loop`` (the
    process is stopping, or its event loop has stalled)."""

    status: str
    checks: dict[str, str]


class ProfileMsg(_Body):
    """``GET``/``PATCH /api/profiles/me``: the profile as its owner sees it."""

    id: str
    name: str
    symbol: str


class ProfileSecret(_Body):
    """``POST /api/profiles`` and ``POST /api/profiles/claim``: the profile and this
    device's secret (shown once: the server keeps only its hash)."""

    id: str
    secret: str
    name: str
    symbol: str


class ProfileLink(_Body):
    """``POST /api/profiles/me/link``: a one-time code for another device, and for how
    many seconds it is valid."""

    code: str
    expires_s: float


class HttpError(_Body):
    """Every HTTP error answer."""

    error: str
    message: str


HTTP_BODIES: tuple[type[msgspec.Struct], ...] = (
    CreateTable,
    TableSummary,
    TableList,
    Now,
    TableDetails,
    TutorialCreated,
    Presets,
    Emotes,
    Health,
    Readiness,
    CreateProfile,
    UpdateProfile,
    ClaimProfile,
    ProfileMsg,
    ProfileSecret,
    ProfileLink,
    *HISTORY_BODIES,
)
"""The JSON bodies docs/protocol.md shows in examples (errors are shown in a table)."""


# --- building answers --------------------------------------------------------------------


class SeatName(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def bot(self) -> object | None: ...


def _bot(seat: SeatName) -> str | None:
    return None if seat.bot is None else str(seat.bot)


def table_summary(
    *, code: str, phase: str, seats: Sequence[SeatName | None], host: int | None, rules: RuleSet
) -> TableSummary:
    """What the lobby shows of a table: the host by name."""
    host_seat = None if host is None else seats[host]
    host_name = None if host_seat is None else host_seat.name
    taken = sum(seat is not None for seat in seats)
    return TableSummary(code, Phase(phase), len(seats), taken, host_name, rules.to_dict())


def table_details(summary: TableSummary, seats: Sequence[SeatName | None]) -> TableDetails:
    """A summary with who sits where."""
    players = [None if seat is None else PlayerEntry(i, seat.name, _bot(seat)) for i, seat in enumerate(seats)]
    s = summary
    return TableDetails(s.code, s.phase, s.seats, s.taken, s.host, s.rules, players)


class StepInfo(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def seat(self) -> int: ...
    @property
    def action(self) -> Action: ...
    @property
    def beaten_by(self) -> int | None: ...


def script_step(step: StepInfo) -> ScriptStep:
    """A move of the script as the client's ``act`` would say it, without the card."""
    action = step.action
    move: ScriptMove
    if isinstance(action, Play):
        move = ScriptPlay(action.source.name.lower(), action.position, action.pile)  # type: ignore[arg-type]
    elif isinstance(action, Turn):
        move = ScriptTurn()
    elif isinstance(action, Vote):
        move = ScriptVote()
    else:
        raise ValueError(f"no tutorial step makes a {type(action).__name__}")
    return ScriptStep(step.name, step.round, step.seat, move, step.beaten_by)


def tutorial_created(code: str, token: str, seat: int, tutor: int, script: Iterable[StepInfo]) -> TutorialCreated:
    return TutorialCreated(code, token, seat, tutor, [script_step(step) for step in script])


def presets_body() -> Presets:
    """Every rule option and preset, classic first: what a client needs to build its rule form."""
    return Presets(
        [option.to_dict() for option in OPTIONS.values()],
        [PresetEntry(name, RuleSet.preset(name).to_dict()) for name in PRESETS],
    )
