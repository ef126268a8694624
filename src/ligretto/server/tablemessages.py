"""Every message a table sends, and what the lobby shows of it, built in one place.

Plain dicts in the wire format of docs/protocol.md (the app encodes them; what goes to
every listener is encoded once, as a :class:`~ligretto.server.protocol.Broadcast`).
Only public information goes in: a view made by the engine for its viewer, events
(public by construction), names, seats and the score sheet; a seat's token goes only
into the ``welcome`` of its owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ligretto.engine.events import Event, Refused
from ligretto.engine.scoring import Match, RoundScore
from ligretto.engine.serial import event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view

if TYPE_CHECKING:
    from ligretto.server.seats import Seat
    from ligretto.server.table import Table

Message = dict[str, Any]


def seat_public(seat: Seat, index: int) -> Message:
    """One seat as the ``table`` message shows it (never its token)."""
    return {
        "seat": index,
        "name": seat.name,
        "bot": None if seat.bot is None else str(seat.bot),
        "connected": seat.connected or seat.bot is not None,
        "stand_in": seat.stand_in,
        "ready": seat.ready,
    }


def summary(table: Table) -> Message:
    """What the public lobby list shows of a table."""
    host = table.seats[table.host] if table.host is not None else None
    return {
        "code": table.code,
        "phase": table.phase.value,
        "seats": table.size,
        "taken": sum(seat is not None for seat in table.seats),
        "host": None if host is None else host.name,
        "rules": table.rules.to_dict(),
    }


def players(table: Table) -> list[Message | None]:
    """Who sits where (``None``: a free seat): names and bots, as the ``table`` message
    shows them, for the invite page before joining."""
    return [
        None if seat is None else {"seat": i, "name": seat.name, "bot": None if seat.bot is None else str(seat.bot)}
        for i, seat in enumerate(table.seats)
    ]


def table_message(table: Table) -> Message:
    """Everything about the table that everyone may see."""
    match = table.match
    return {
        "type": "table",
        "code": table.code,
        "phase": table.phase.value,
        "seats": [None if seat is None else seat_public(seat, i) for i, seat in enumerate(table.seats)],
        "host": table.host,
        "rules": table.rules.to_dict(),
        "public": table.public,
        "grace_s": table.grace_s,
        "round": 0 if match is None else match.round_number,
        "start_at": table.start_at,
        "sheet": None if match is None else match.sheet.to_dict(),
        "winners": list(match.winners()) if table.phase.value == "over" and match else None,
    }


def snapshot_message(match: Match | None, viewer: int | None) -> Message | None:
    """The round as ``viewer`` (a seat, ``None``: a spectator) may see it; ``None``: no round."""
    if match is None or match.current is None:
        return None
    return {"type": "snapshot", "view": view(match.current, viewer).to_dict(), "round": match.round_number}


def welcome(code: str, seat: int | None, token: str | None) -> Message:
    """To one connection: where it sits (``None``: watching) and its seat's token."""
    return {"type": "welcome", "v": 1, "code": code, "seat": seat, "token": token}


def taken_over() -> Message:
    return {"type": "error", "code": "replaced", "message": "this seat was taken over by a new connection"}


def removed() -> Message:
    return {"type": "error", "code": "removed", "message": "the host removed you from the table"}


def go(round_number: int) -> Message:
    return {"type": "go", "round": round_number}


def ack(client_id: str | int, body: Message) -> Message:
    return {"type": "ack", "id": client_id, **body}


def applied() -> Message:
    """An ack's body: the action was applied."""
    return {"applied": True}


def refused(result: Refused, faster: int | None) -> Message:
    """An ack's body: the engine's reason, and who was faster (``by``) when a play lost a race."""
    body: Message = {"applied": False, "reason": result.reason.value, "message": result.reason.text}
    if faster is not None:
        body["by"] = faster
    return body


def events(round_number: int, seq: int, by: int, applied_events: Sequence[Event]) -> Message:
    """The events of the action number ``seq`` of the round, made by seat ``by``."""
    return {
        "type": "events",
        "round": round_number,
        "seq": seq,
        "by": by,
        "events": [event_to_dict(e) for e in applied_events],
    }


def round_over(match: Match, game: Round, scores: Sequence[RoundScore]) -> Message:
    """The round's ending, each seat's scores and the totals; the winners if the match is over."""
    assert game.ending is not None
    return {
        "type": "round_over",
        "round": match.round_number,
        "ending": game.ending.value,
        "stopped_by": game.stopped_by,
        "scores": [{"center": s.center, "stack": s.stack, "score": s.score} for s in scores],
        "totals": list(match.sheet.totals()),
        "match_over": match.over,
        "winners": list(match.winners()) if match.over else None,
    }


def reaction(seat: int, emote: str) -> Message:
    return {"type": "reaction", "seat": seat, "emote": emote}
