"""One player's cards on the table (RULES.md §2): row, Ligretto stack, hand and discard.

Its own module so that the round (``state.py``) and the stalemate proof
(``stalemate.py``), which both read areas, import it without importing each other.
"""

from __future__ import annotations


class Area:
    """One player's cards on the table: row columns, Ligretto stack, hand and discard pile."""

    __slots__ = ("row", "stack", "hand", "discard", "recycles", "voted", "moves")

    def __init__(self, row: list[list[int]], stack: list[int], hand: list[int], discard: list[int]) -> None:
        self.row = row
        """Columns bottom first; in the base game each column holds exactly one card."""
        self.stack = stack
        self.hand = hand
        self.discard = discard
        self.recycles = 0
        """How often the discard pile went back into the hand (numbers the shuffles)."""
        self.voted = False
        self.moves = 0
        """Applied card actions of this player; lets the stalemate proof cache its witness."""

    def copy(self) -> Area:
        area = Area([list(c) for c in self.row], list(self.stack), list(self.hand), list(self.discard))
        area.recycles, area.voted, area.moves = self.recycles, self.voted, self.moves
        return area

    def faces(self) -> list[int]:
        """Every face this player still holds, in no meaningful order."""
        return [f for column in self.row for f in column] + self.stack + self.hand + self.discard
