"""Cards, colours and backs.

Inside the engine a card of a player's own deck is a *face*: the int
``colour * 10 + (number - 1)`` (0..39).  The owner is implied by where the
face lies, so the hot path never allocates.  :class:`Card` is the public value
(face plus back) used in views, events and actions.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

NUMBERS = 10
"""Numbers per colour (1..10)."""
DECK_SIZE = 40
"""Cards in one player's deck: four colours times ten numbers."""
BACKS_PER_BOX = 4
MAX_PLAYERS = 12
MIN_PLAYERS = 2


class Colour(enum.IntEnum):
    """A card's face colour."""

    RED = 0
    GREEN = 1
    YELLOW = 2
    BLUE = 3

    @property
    def letter(self) -> str:
        return "rgyb"[self]

    @classmethod
    def from_letter(cls, letter: str) -> Colour:
        index = "rgyb".find(letter.lower())
        if index < 0 or len(letter) != 1:
            raise ValueError(f"unknown colour {letter!r}: expected one of r, g, y, b")
        return cls(index)


class Box(enum.IntEnum):
    """The box a deck comes from; each box holds four decks (RULES.md §1)."""

    RED = 0
    BLUE = 1
    GREEN = 2


class Symbol(enum.IntEnum):
    """The symbol printed on a deck's back; distinct within a box."""

    SUN = 0
    MOON = 1
    STAR = 2
    HEART = 3


@dataclass(frozen=True, slots=True, order=True)
class Back:
    """What is printed on the back of every card of one deck: box colour and symbol."""

    box: Box
    symbol: Symbol

    @classmethod
    def for_seat(cls, seat: int) -> Back:
        """The back of the deck dealt to ``seat``: seats 0-3 use the red box, 4-7 blue, 8-11 green."""
        if not 0 <= seat < MAX_PLAYERS:
            raise ValueError(f"seat {seat} out of range 0..{MAX_PLAYERS - 1}")
        return _BACKS[seat]

    @property
    def seat(self) -> int:
        return self.box * BACKS_PER_BOX + self.symbol

    def __str__(self) -> str:
        return f"{self.box.name.lower()} {self.symbol.name.lower()}"


_BACKS = tuple(Back(Box(s // BACKS_PER_BOX), Symbol(s % BACKS_PER_BOX)) for s in range(MAX_PLAYERS))


def boxes_needed(players: int) -> int:
    """Boxes needed for ``players`` (one box per four players)."""
    return (players + BACKS_PER_BOX - 1) // BACKS_PER_BOX


def face_of(colour: Colour | int, number: int) -> int:
    """The engine's int code of a face."""
    return int(colour) * NUMBERS + number - 1


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One physical card: a face (colour and number) and the back of its deck."""

    colour: Colour
    number: int
    back: Back

    @property
    def face(self) -> int:
        return self.colour * NUMBERS + self.number - 1

    @property
    def owner(self) -> int:
        """The seat whose deck this card belongs to."""
        return self.back.seat

    def __str__(self) -> str:
        return f"{self.colour.letter}{self.number}"

    @classmethod
    def parse(cls, text: str, owner: int) -> Card:
        """Parse ``r5`` / ``b10`` as a card of ``owner``'s deck."""
        return CARDS[owner][parse_face(text)]


def parse_face(text: str) -> int:
    """Parse a face written as colour letter and number, e.g. ``r5`` or ``B10``."""
    text = text.strip()
    if len(text) < 2 or not text[1:].isdigit():
        raise ValueError(f"bad card {text!r}: expected a colour letter (r, g, y, b) and a number 1-10")
    number = int(text[1:])
    if not 1 <= number <= NUMBERS:
        raise ValueError(f"bad card {text!r}: number must be 1-10")
    return face_of(Colour.from_letter(text[0]), number)


def fits(face: int, pile_colour: int, pile_top: int) -> bool:
    """Whether a card goes onto a center pile: same colour, one higher than the pile's top
    number (``pile_top`` 0: no card yet; a complete pile, top 10, takes nothing).  The
    one rule of "fits", for the engine and every Python client."""
    return face // NUMBERS == pile_colour and face % NUMBERS == pile_top


def goes_on(face: int, exposed: int) -> bool:
    """Expert variant: whether a card goes onto a row column whose exposed card is
    ``exposed``: one lower, another colour."""
    return face % NUMBERS + 1 == exposed % NUMBERS and face // NUMBERS != exposed // NUMBERS


def face_text(face: int) -> str:
    """``r5`` for the face code of red 5."""
    return f"{'rgyb'[face // NUMBERS]}{face % NUMBERS + 1}"


CARDS: tuple[tuple[Card, ...], ...] = tuple(
    tuple(Card(Colour(f // NUMBERS), f % NUMBERS + 1, _BACKS[seat]) for f in range(DECK_SIZE))
    for seat in range(MAX_PLAYERS)
)
"""``CARDS[seat][face]``: the interned :class:`Card` objects of every deck."""
