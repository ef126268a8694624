"""What the terminal says of races for a pile, of the table's judging and of a seat
flagged for inhuman speed (to the host), in words.

Plain functions of the protocol's values (docs/protocol.md, "Races: fair judging"): who
was faster and by how many milliseconds of compensated time, as the loser's ``ack`` and
everyone's ``race`` message tell it.  A margin is only shown when it is a real one
(``ms > 0``): a negative one means the loser's play came too late for the window, none
means it was no race (the loser came more than ``engine.races.RACE_MS`` after the card
that took its place) or it is not known (that card was laid before a restart of the server).
"""

from __future__ import annotations

from collections.abc import Callable

Name = Callable[[int | None], str]
"""A seat's display name (``TableModel.name``)."""


def margin(ms: int | None) -> int | None:
    """The margin worth showing, in ms: a positive one, else ``None``."""
    return ms if ms is not None and ms > 0 else None


def beaten(faster: int | None, ms: int | None, *, seat: int | None, name: Name) -> str:
    """Who got to the pile first (the ack's ``by``, ``by_ms``), as the loser reads it."""
    if faster is None:
        return "Beaten to it!"
    if faster == seat:
        return "Your other card got there first!"
    shown = margin(ms)
    if shown is None:
        return f"Beaten to it by {name(faster)}!"
    return f"{name(faster)} was {shown} ms faster!"


def speed(seat: int, why: str, fast: int, *, name: Name) -> str:
    """A ``speed`` message (to the host only): a seat flagged for inhuman speed."""
    if why == "regular":
        return f"{name(seat)} is playing as regularly as a machine: flagged, this match will not count for ratings"
    return (
        f"{name(seat)} is playing faster than any person can ({fast} plays answered in under 150 ms):"
        " flagged, this match will not count for ratings"
    )


def race(winner: int, loser: int, pile: int, ms: int | None, *, seat: int | None, name: Name) -> str | None:
    """A ``race`` message as a line for this client, or ``None`` for the loser (its
    ``ack`` said it already: one notice per refusal)."""
    if loser == seat:
        return None
    shown = margin(ms)
    by = "" if shown is None else f" by {shown} ms"
    where = f"pile {pile + 1}"
    if winner == loser:
        return f"{name(winner)}'s other card got to {where} first"
    if winner == seat:
        return f"You beat {name(loser)} to {where}{by}"
    return f"{name(winner)} beat {name(loser)} to {where}{by}"


def judging(arbitration: str | None, window_ms: int | None) -> str | None:
    """How the table judges races (its ``table`` message), in words; ``None``: not said."""
    if arbitration == "fair":
        return "fair" if window_ms is None else f"fair, window {window_ms} ms"
    if arbitration == "arrival":
        return "by arrival"
    return None
