"""Turning the hand: the one place that moves cards between hand and discard pile.

Lists hold faces with the top card last.  Turning a packet of three onto the
discard pile puts the third card on top; turning the discard pile face down
makes its bottom card the new top of the hand (RULES.md §3).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from ligretto.engine.cards import DECK_SIZE
from ligretto.engine.rules import ShortTurn

PACKET = 3


def shuffled(cards: list[int], key: str) -> list[int]:
    """A deterministic shuffle of one player's cards, drawn from ``key``.

    SHAKE-128 of ``key`` gives every face (0..39) a 16-bit sort key, and the cards
    are sorted by it: a uniformly random order for our purpose (ties are about
    1 in 65,536 per pair), with no generator state to store or replay, and
    several times cheaper than seeding a ``random.Random`` -- the simulator
    recycles a hand every few turns.
    """
    keys = memoryview(hashlib.shake_128(key.encode()).digest(2 * DECK_SIZE)).cast("H").tolist()
    return sorted(cards, key=keys.__getitem__)


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
