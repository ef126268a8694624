"""The stress harness's scans of what its clients saw.

:func:`cards_lost`: every seat's 40 cards must be somewhere in a round's view (its row,
stack, discard pile and hand, and the center's piles by the back of each card); the
count of cards missing or extra.
"""

from __future__ import annotations

from typing import Any

from ligretto.engine.cards import DECK_SIZE


def cards_of(view: dict[str, Any]) -> dict[int, int]:
    """How many of each seat's cards a round's view (the wire's ``view``) shows, face up or
    counted face down."""
    counts = {
        area["seat"]: sum(len(column) for column in area["row"])
        + area["stack_size"]
        + area["discard_size"]
        + area["hand_size"]
        for area in view["areas"]
    }
    for pile in view["center"]:
        for seat in pile["backs"]:
            counts[seat] = counts.get(seat, 0) + 1
    return counts


def cards_lost(view: dict[str, Any]) -> int:
    """Cards missing from or extra in a round's view: 0 when every seat's deck is whole."""
    return sum(abs(DECK_SIZE - count) for count in cards_of(view).values())
