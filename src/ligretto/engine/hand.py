"""Turning the hand: the one place that moves cards between hand and discard pile.

Lists hold faces with the top card last.  Turning a packet of three onto the
discard pile puts the third card on top; turning the discard pile face down
makes its bottom card the new top of the hand (RULES.md §3).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator

from ligretto.engine.rules import ShortTurn

PACKET = 3


def shuffled(cards: list[int], key: str) -> list[int]:
    """A brief, deterministic shuffle of up to 32 cards, drawn from ``key``.

    Each card gets a 16-bit key from BLAKE2b of ``key`` and the cards are sorted
    by it: as random as a seeded ``random.Random`` shuffle for this purpose, and
    about three times faster, which matters because the simulator recycles a
    hand every few turns.
    """
    if len(cards) > 32:  # never in a real game: a hand holds at most 29 cards
        deck = list(cards)
        random.Random(key).shuffle(deck)
        return deck
    keys = memoryview(hashlib.blake2b(key.encode(), digest_size=64).digest()).cast("H")
    return [card for _, card in sorted(zip(keys, cards, strict=False))]


def turn_hand(hand: list[int], discard: list[int], short_turn: ShortTurn, shuffle_key: str | None) -> tuple[int, int]:
    """Turn the hand in place; return ``(cards recycled into the hand, cards turned)``.

    With a ``shuffle_key`` the recycled discard pile is shuffled (``recycle_shuffle``);
    ``None`` keeps its order.  The caller makes sure hand or discard holds a card.
    """
    recycled = 0
    if not hand or (len(hand) < PACKET and short_turn is ShortTurn.RECYCLE and discard):
        recycled = len(discard)
        under = discard[::-1] if shuffle_key is None else shuffled(discard, shuffle_key)
        hand[:0] = under
        discard.clear()
    count = min(PACKET, len(hand))
    discard += hand[: -count - 1 : -1]
    del hand[-count:]
    return recycled, count


def reachable_tops(hand: list[int], discard: list[int], short_turn: ShortTurn) -> Iterator[int]:
    """Every discard top that turning (without shuffling) will ever show, from this position on.

    Follows the deterministic turning sequence until a position repeats, so it is exact.
    """
    hand = list(hand)
    discard = list(discard)
    if not hand and not discard:
        return
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    shown: set[int] = set()
    total = len(set(hand) | set(discard))
    while len(shown) < total:
        key = (tuple(hand), tuple(discard))
        if key in seen:
            return
        seen.add(key)
        turn_hand(hand, discard, short_turn, None)
        top = discard[-1]
        if top not in shown:
            shown.add(top)
            yield top
