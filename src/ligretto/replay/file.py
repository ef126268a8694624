"""The replay file: one finished round as a versioned JSON document that anyone can re-verify.

A round is fully described by its rule set, its players and its own seed (the round's,
``engine.scoring.round_seed(match_seed, n)`` -- never the match's, so no other round of
the match can be dealt from a file) and its action log; the file adds, for each action,
its seat, its time in seconds from the round's start (``null`` when the store did not
keep one), what the engine answered (``applied`` or the refusal's reason) and a digest
of the board after it, and at the end the round's outcome and scores.  Verification
(``verify.py``) deals the round again and checks every answer and digest.

The digest (:func:`digest`) is the first 12 hex digits of SHA-256 over the canonical
JSON (sorted keys, no spaces) of the *spectator view* after that many actions, with that
count: the board as a spectator saw it is what a replay shows and what the browser's
replay must reach at each step, it is independent of how the engine stores a state, and
it is built from public information only.  The count makes a dropped or added refused
action (which changes no board) visible too.

Pure: encode and decode bytes, nothing else (no files, no clock).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from ligretto.engine.actions import Action
from ligretto.engine.cards import Back
from ligretto.engine.events import Refused, Result
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import score_round
from ligretto.engine.serial import action_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import RoundView, view

FORMAT = "ligretto-replay"
VERSION = 1
APPLIED = "applied"
"""The answer of an applied action; a refused one's answer is its reason (``does_not_fit`` ...)."""
MAX_BYTES = 16 * 1024 * 1024
"""A replay file larger than this is refused before it is parsed."""


class ReplayFormatError(ValueError):
    """Bytes that are not a replay document of a version this code reads."""


class BackDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The back of a seat's deck, as in the views' JSON: ``{"box": "red", "symbol": "sun"}``."""

    box: str
    symbol: str


class SeatDoc(msgspec.Struct, forbid_unknown_fields=True):
    """One player as the table showed them."""

    name: str
    back: BackDoc


class Step(msgspec.Struct, forbid_unknown_fields=True):
    """One action of the log and what the engine answered."""

    seat: int
    t: float | None
    """Seconds from the round's start when it took effect; ``None`` if not stored."""
    action: dict[str, Any]
    """The action as the store keeps it (``engine.serial.action_to_dict``)."""
    answer: str
    """``applied``, or the refusal's reason."""
    state: str
    """:func:`digest` of the board after this action."""


class End(msgspec.Struct, forbid_unknown_fields=True):
    """How the round ended (``ending`` ``None``: it never did, e.g. its table was closed)."""

    ending: str | None
    stopped_by: int | None
    actions: int
    """How many actions the log has."""
    scores: list[int]
    center: list[int]
    stack: list[int]


class RoundRef(msgspec.Struct, forbid_unknown_fields=True):
    """Where the round was played: its table's invite code, match (1-based) and round number."""

    code: str
    match: int
    number: int


class ReplayDoc(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The whole document; field order is the order in the file."""

    format: str
    version: int
    rules: dict[str, Any]
    players: int
    seats: list[SeatDoc]
    seed: int
    """The round's own seed."""
    deal: str
    """:func:`digest` of the board as dealt, before any action."""
    actions: list[Step]
    end: End
    round: RoundRef | None = None


# --- the digest -------------------------------------------------------------------------


def digest(game: Round, count: int) -> str:
    """The board a spectator sees after ``count`` actions, as 12 hex digits."""
    return view_digest(view(game, None), count)


def view_digest(board: RoundView, count: int) -> str:
    """:func:`digest` of a spectator view already made."""
    text = json.dumps({"actions": count, "view": board.to_dict()}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def answer_of(result: Result) -> str:
    return result.reason.value if isinstance(result, Refused) else APPLIED


def end_of(game: Round) -> End:
    """The round's end as the file writes it: outcome, number of actions, every seat's score."""
    scores = score_round(game)
    outcome = game.outcome
    return End(
        ending=None if outcome is None else outcome.ending.value,
        stopped_by=None if outcome is None else outcome.stopped_by,
        actions=len(game.log),
        scores=[line.score for line in scores],
        center=[line.center for line in scores],
        stack=[line.stack for line in scores],
    )


def seat_doc(seat: int, name: str) -> SeatDoc:
    back = Back.for_seat(seat)
    return SeatDoc(name, BackDoc(back.box.name.lower(), back.symbol.name.lower()))


# --- writing ----------------------------------------------------------------------------


def write_round(
    rules: RuleSet,
    names: Sequence[str],
    seed: int,
    log: Iterable[tuple[Action, float | None]],
    *,
    where: RoundRef | None = None,
) -> ReplayDoc:
    """The document of a round dealt from ``seed`` for ``len(names)`` players and played
    by ``log`` (each action with its time from the round's start, or ``None``): the round
    is played here through the engine, whose answers and boards go into the file."""
    game = Round.deal(rules, len(names), seed)
    deal = digest(game, 0)
    steps: list[Step] = []
    for action, t in log:
        result = game.apply(action)
        steps.append(
            Step(action.player, _seconds(t), action_to_dict(action), answer_of(result), digest(game, len(steps) + 1))
        )
    return ReplayDoc(
        format=FORMAT,
        version=VERSION,
        rules=rules.to_dict(),
        players=len(names),
        seats=[seat_doc(seat, name) for seat, name in enumerate(names)],
        seed=seed,
        deal=deal,
        actions=steps,
        end=end_of(game),
        round=where,
    )


def _seconds(t: float | None) -> float | None:
    return None if t is None else round(float(t), 3)


# --- bytes ------------------------------------------------------------------------------


def encode(doc: ReplayDoc) -> bytes:
    """The file's bytes: compact JSON, one document."""
    return msgspec.json.encode(doc)


def decode(data: bytes) -> ReplayDoc:
    """Read a replay file; raises :class:`ReplayFormatError` with a clear message for
    anything that is not a replay document of this version (what the fields mean is
    checked by verification)."""
    if len(data) > MAX_BYTES:
        raise ReplayFormatError(f"not a replay file: larger than {MAX_BYTES // (1024 * 1024)} MiB")
    try:
        head = msgspec.json.decode(data, type=dict[str, Any])
    except msgspec.DecodeError as error:
        raise ReplayFormatError(f"not a replay file: {error}") from None
    if head.get("format") != FORMAT:
        raise ReplayFormatError(f"not a replay file: 'format' must be {FORMAT!r}, not {head.get('format')!r}")
    if head.get("version") != VERSION:
        raise ReplayFormatError(f"replay version {head.get('version')!r} is not one this ligretto reads ({VERSION})")
    try:
        return msgspec.convert(head, type=ReplayDoc)
    except msgspec.ValidationError as error:
        raise ReplayFormatError(f"not a valid replay file: {error}") from None
