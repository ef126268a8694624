"""A readable text notation for positions: the language of test fixtures and debugging.

One line per center and per seat; cards are written ``r5`` (colour letter and
number; r g y b).  Every list is written bottom card first, so the **last card
is the one on top** (the visible one for the stack and discard, the next to be
turned for the hand)::

    center: r:0,0,1 g:1
    0: row r5 g2 b7 | stack y3 b1 | discard b4 | hand *
    1: row r4 y9>g8 b2 | stack b9 | discard | hand *

A pile ``r:0,0,1`` is a red pile 1-3 whose 1 and 2 belong to seat 0 and whose
3 to seat 1.  A row column of several cards (expert variant) is written
``y9>g8``.  ``hand *`` is every card of the deck not written elsewhere, in
ascending order (so the highest face is turned first).  Optional lines
``voted: 0 2`` (who voted for a stalemate), ``recycles: 2 0`` (how often each
seat's discard pile went back into the hand: it numbers the next shuffle) and
``ending: stop 1`` complete a position.
"""

from __future__ import annotations

from ligretto.engine.area import Area
from ligretto.engine.cards import DECK_SIZE, NUMBERS, Colour, face_of, face_text, parse_face
from ligretto.engine.events import Ending
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round


class NotationError(ValueError):
    """Text that is not a valid position."""


_KEYS = {"center", "voted", "ending", "recycles"}


def parse_position(text: str, rules: RuleSet | None = None, seed: int = 0) -> Round:
    """Build a round from notation (see the module docstring); :class:`NotationError` if it is not one."""
    try:
        return _parse(text, rules or RuleSet(), seed)
    except NotationError:
        raise
    except ValueError as error:
        raise NotationError(str(error)) from None


def _parse(text: str, rules: RuleSet, seed: int) -> Round:
    lines = {}
    for raw in text.strip().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise NotationError(f"line {raw!r} has no 'name:' in front")
        key = key.strip()
        if not key.isdigit() and key not in _KEYS:
            raise NotationError(f"unknown line {key!r}: expected a seat number or one of {', '.join(sorted(_KEYS))}")
        lines[key] = value.strip()
    seats = sorted(int(k) for k in lines if k.isdigit())
    if seats != list(range(len(seats))):
        raise NotationError(f"seats must be numbered 0, 1, 2, ... without gaps, not {seats}")
    players = len(seats)
    used: list[set[int]] = [set() for _ in range(players)]
    pile_colours, pile_seats = _parse_center(lines.get("center", ""), players, used)
    areas = [_parse_area(lines[str(seat)], seat, used[seat]) for seat in range(players)]
    game = Round(rules, players, seed, areas)
    for colour, seats_of_pile in zip(pile_colours, pile_seats, strict=True):
        game.add_pile(colour, seats_of_pile)
    for voter in lines.get("voted", "").split():
        area = game.areas[_seat(voter, players)]
        game.votes += not area.voted
        area.voted = True
    for index, count in enumerate(lines.get("recycles", "").split()):
        game.areas[_seat(str(index), players)].recycles = int(count)
    if "ending" in lines:
        ending, *who = lines["ending"].split() or [""]
        try:
            game.ending = Ending(ending)
        except ValueError:
            raise NotationError(
                f"unknown ending {ending!r}: expected one of {', '.join(e.value for e in Ending)}"
            ) from None
        game.stopped_by = _seat(who[0], players) if who else None
    return game


def _seat(text: str, players: int) -> int:
    if not text.isdigit() or int(text) >= players:
        raise NotationError(f"no seat {text!r} at a table of {players}")
    return int(text)


def _parse_center(text: str, players: int, used: list[set[int]]) -> tuple[list[int], list[list[int]]]:
    colours, piles = [], []
    for token in text.split():
        letter, sep, owners = token.partition(":")
        if not sep or not owners:
            raise NotationError(f"bad pile {token!r}: expected e.g. 'r:0,0,1'")
        colour = Colour.from_letter(letter)
        seats = [int(s) for s in owners.split(",")]
        if len(seats) > NUMBERS:
            raise NotationError(f"pile {token!r} has more than 10 cards")
        for number, seat in enumerate(seats, start=1):
            if not 0 <= seat < players:
                raise NotationError(f"pile {token!r} names seat {seat}, but there are {players} seats")
            _take(used[seat], face_of(colour, number), seat)
        colours.append(int(colour))
        piles.append(seats)
    return colours, piles


def _parse_area(text: str, seat: int, used: set[int]) -> Area:
    parts: dict[str, str] = {}
    for part in text.split("|"):
        name, _, cards = part.strip().partition(" ")
        parts[name] = cards.strip()
    unknown = set(parts) - {"row", "stack", "discard", "hand"}
    if unknown or "row" not in parts:
        raise NotationError(f"seat {seat}: expected 'row ... | stack ... | discard ... | hand ...', got {text!r}")
    row = [[_take(used, parse_face(c), seat) for c in column.split(">")] for column in parts["row"].split()]
    stack = [_take(used, parse_face(c), seat) for c in parts.get("stack", "").split()]
    discard = [_take(used, parse_face(c), seat) for c in parts.get("discard", "").split()]
    hand_text = parts.get("hand", "*")
    if hand_text == "*":
        hand = [f for f in range(DECK_SIZE) if f not in used]
        used.update(hand)
    else:
        hand = [_take(used, parse_face(c), seat) for c in hand_text.split()]
    if len(used) != DECK_SIZE:
        missing = " ".join(face_text(f) for f in range(DECK_SIZE) if f not in used)
        raise NotationError(f"seat {seat}: cards missing from the position: {missing}")
    return Area(row, stack, hand, discard)


def _take(used: set[int], face: int, seat: int) -> int:
    if face in used:
        raise NotationError(f"seat {seat}: card {face_text(face)} appears twice")
    used.add(face)
    return face


def format_position(game: Round) -> str:
    """The position in notation, every card written out (``hand *`` is never used)."""
    piles = " ".join(
        f"{'rgyb'[colour]}:{','.join(str(s) for s in seats)}"
        for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True)
    )
    lines = [f"center: {piles}".rstrip()]
    for seat, area in enumerate(game.areas):
        row = " ".join(">".join(face_text(f) for f in column) for column in area.row)
        stack = " ".join(face_text(f) for f in area.stack)
        discard = " ".join(face_text(f) for f in area.discard)
        hand = " ".join(face_text(f) for f in area.hand)
        lines.append(f"{seat}: row {row} | stack {stack} | discard {discard} | hand {hand}".replace("  ", " "))
    if any(area.recycles for area in game.areas):
        lines.append(f"recycles: {' '.join(str(area.recycles) for area in game.areas)}")
    voted = [str(seat) for seat, area in enumerate(game.areas) if area.voted]
    if voted:
        lines.append(f"voted: {' '.join(voted)}")
    if game.ending is not None:
        who = "" if game.stopped_by is None else f" {game.stopped_by}"
        lines.append(f"ending: {game.ending.value}{who}")
    return "\n".join(lines)
