"""Proving a stalemate: no card can ever be played again (RULES.md §4).

A *witness* is evidence that the round can go on: a card that can be played
now, or one that turning the hand will surely or possibly bring to a discard
top.  The engine keeps the last witness and re-checks it in O(1) after each
action; only when it fails does it search for a new one.  No witness means a
proven stalemate.  Invariant: after every applied action of a live round the
stored witness holds (or is ``None`` in a state built by hand, which makes
the next check search).

Base game (exact): while nobody plays, only turning changes anything, so a
card can become playable only as a discard top.  With ``recycle_shuffle`` every
card of hand and discard can reach the top; without it, the turning sequence is
followed until it repeats (:func:`reachable_tops`).

Expert variant (conservative): cards may also go onto row columns, which can
expose buried cards or empty a stack (Stop).  The round is declared stuck only
if no card of hand, discard, stack top or row fits the center and no stack top
or hand/discard card could go onto any column; then nothing but turning can
ever happen.
"""

from __future__ import annotations

from ligretto.engine.area import Area
from ligretto.engine.cards import NUMBERS
from ligretto.engine.hand import reachable_tops
from ligretto.engine.rules import RuleSet

# Kinds of witness (plain ints: checked after every action).
ROW = 0
STACK = 1
DISCARD = 2
HELD = 3
"""A fitting card somewhere in hand or discard (reachable, or possibly so)."""
TURNED = 4
"""A fitting card that the unshuffled turning sequence will show; valid until the player acts."""
PLACEMENT = 5
"""Expert: a card that could go onto a column; valid until the player acts."""

Witness = tuple[int, int, int, int]
"""(kind, seat, detail, moves): detail is a row position or a face."""


def witness_holds(areas: list[Area], wanted: list[list[int]], witness: Witness) -> bool:
    """Whether a witness found earlier still proves that the round can go on.

    ``areas`` and ``wanted`` are the round's (:class:`~ligretto.engine.state.Round`).
    """
    kind, seat, detail, moves = witness
    area = areas[seat]
    if kind == ROW:
        return bool(wanted[area.row[detail][-1]])
    if kind == STACK:
        return bool(area.stack) and bool(wanted[area.stack[-1]])
    if kind == DISCARD:
        return bool(area.discard) and bool(wanted[area.discard[-1]])
    if kind == HELD:
        return bool(wanted[detail]) and (detail in area.hand or detail in area.discard)
    if kind == TURNED:
        return area.moves == moves and bool(wanted[detail])
    return area.moves == moves


def find_witness(areas: list[Area], wanted: list[list[int]], rules: RuleSet) -> Witness | None:
    """Evidence that some card can still be played, or ``None`` for a proven stalemate.

    ``areas``, ``wanted`` and ``rules`` are the round's (:class:`~ligretto.engine.state.Round`).
    """
    # 1. A card that can be played right now.
    for seat, area in enumerate(areas):
        for position, column in enumerate(area.row):
            if wanted[column[-1]]:
                return (ROW, seat, position, 0)
        if area.stack and wanted[area.stack[-1]]:
            return (STACK, seat, 0, 0)
        if area.discard and wanted[area.discard[-1]]:
            return (DISCARD, seat, 0, 0)
    # 2. A card that turning may bring to the discard top.
    for seat, area in enumerate(areas):
        held = [f for f in area.hand if wanted[f]] + [f for f in area.discard if wanted[f]]
        if not held:
            continue
        if rules.recycle_shuffle or rules.expert:
            return (HELD, seat, held[0], 0)
        for face in reachable_tops(area.hand, area.discard, rules.short_turn):
            if wanted[face]:
                return (TURNED, seat, face, area.moves)
    # 3. Expert: a card that could still go onto a column.
    if rules.expert:
        for seat, area in enumerate(areas):
            if _could_place(area):
                return (PLACEMENT, seat, 0, area.moves)
    return None


def _could_place(area: Area) -> bool:
    movers = set(area.hand) | set(area.discard)
    if area.stack:
        movers.add(area.stack[-1])
    for column in area.row:
        exposed = column[-1]
        below = exposed % NUMBERS - 1
        if below < 0:
            continue
        for colour in range(4):
            if colour != exposed // NUMBERS and colour * NUMBERS + below in movers:
                return True
    return False
