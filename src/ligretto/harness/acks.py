"""Acknowledged actions lost: the ``kill -9`` scenario's check (``harness/kills.py``).

An ``ack`` with ``applied: true`` is sent only once the action is in the server's
database (docs/protocol.md, ``ack``), so after a ``kill -9`` and a restart every such
action must still be there.  What is checked of each one, an :class:`Acked`:

* **the store's log** (every kind: play, turn, place, vote, withdraw): the round's log in
  the database holds the action, by that seat, of that kind (a play or a placement: that
  card from that source), at its ``seq`` (the index the action's ``events`` named), or,
  when the kill came before its ``events`` reached the client, at some index after the
  last one the client knew.  The restored round is that log replayed by the server, so
  this is the round's own record; a turn or a vote leaves nothing in a view that later
  actions could not change (the next turn moves the discard top, a card played clears
  every vote), so the log is where they are checked.
* **the restored view** (a play, when the snapshot after the restart is of the same
  round): its card is in the center where it went -- the pile it was played on (or, a 1
  whose ``events`` never came, some pile of its colour) has that colour, a top at least
  the card's number, and the seat's back at the card's place in it -- and it is nowhere
  face up in the seat's own area (a card in the center never comes back).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ligretto.client.mirror import face
from ligretto.engine.cards import NUMBERS, Colour

Log = Mapping[int, dict[str, Any]]
"""One round's stored actions by index (the store's ``actions.idx``, the ``events`` ``seq``)."""


@dataclass(slots=True)
class Acked:
    """One action the server acknowledged as applied, as the acting client knew it."""

    match: int
    round: int
    seat: int
    action: dict[str, Any]
    """The ``act`` message's ``action`` (``{"kind": "play", "source": "row", ...}``)."""
    after: int
    """The last ``seq`` of this round the client had seen when the ack came (-1: none)."""
    seq: int | None = None
    """The action's index in the round's log, from its ``events`` (``None``: they never came)."""
    pile: int | None = None
    """For a play: the pile its card went to, from its ``events``."""


def _same(acked: Acked, stored: dict[str, Any]) -> bool:
    action = acked.action
    if stored.get("type") != action["kind"] or stored.get("player") != acked.seat:
        return False
    if action["kind"] in ("play", "place"):
        return bool(stored.get("source") == action["source"] and stored.get("card") == action.get("card"))
    return True


def in_log(acked: Acked, log: Log) -> bool:
    """The round's stored log holds the action (see the module's docstring)."""
    if acked.seq is not None:
        stored = log.get(acked.seq)
        return stored is not None and _same(acked, stored)
    return any(index > acked.after and _same(acked, stored) for index, stored in log.items())


def lies_on(view: dict[str, Any], card: str, seat: int, pile: int | None) -> bool:
    """Whether ``seat``'s ``card`` (as the wire writes it) lies in the center of ``view``:
    on pile ``pile`` (``None``: on any).  A pile's ``backs`` name whose each of its cards
    is, its 1 first, so seat ``s``'s ``n`` on a pile is its ``backs[n - 1] == s``."""
    f = face(card)
    colour, value = Colour(f // NUMBERS).name.lower(), f % NUMBERS + 1
    piles = view["center"] if pile is None else [p for p in view["center"] if p["index"] == pile]
    return any(p["colour"] == colour and len(p["backs"]) >= value and p["backs"][value - 1] == seat for p in piles)


def in_center(acked: Acked, view: dict[str, Any]) -> bool:
    """A played card is in the view's center where it went, and not face up in its seat's
    area."""
    card = acked.action.get("card")
    if not isinstance(card, str):
        return False
    pile = acked.pile if acked.pile is not None else acked.action.get("pile")
    placed = lies_on(view, card, acked.seat, pile)
    area = next(a for a in view["areas"] if a["seat"] == acked.seat)
    face_up = [card for column in area["row"] for card in column] + [area["stack_top"], area["discard_top"]]
    return placed and card not in face_up


def acks_lost(
    acked: Iterable[Acked], match: int, round_number: int, view: dict[str, Any], logs: Mapping[tuple[int, int], Log]
) -> list[Acked]:
    """The acknowledged actions missing after a restart: from the stored log of their round
    (``logs`` by ``(match, round)``), or, for a play of the round the snapshot shows
    (``match``, ``round_number``, its ``view``), from that view's center."""
    lost = []
    for one in acked:
        found = in_log(one, logs.get((one.match, one.round), {}))
        if found and one.action["kind"] == "play" and (one.match, one.round) == (match, round_number):
            found = in_center(one, view)
        if not found:
            lost.append(one)
    return lost
