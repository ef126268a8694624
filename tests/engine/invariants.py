"""State invariants of a round and checks that views hide what RULES.md §9 hides.

Shared by the property (``test_stateful.py``) and soak (``test_soak.py``) tests.
Every check raises :class:`AssertionError` with a message naming the seat, pile
or face at fault, and reads the engine's state only (it never mutates it).

What is checked, and where RULES.md says so:

* every player's 40 cards (§1) are each in exactly one place: a row column, the
  Ligretto stack, the hand, the discard pile, or a center pile whose seat list
  records that seat at position ``number - 1`` of a pile of that colour;
* every center pile (§3) is one colour, grows from 1 by one: it holds 1 to 10
  cards, and its seats are real seats;
* ``wanted`` (the engine's index of piles accepting a face) agrees with the piles;
* row columns are never empty (§3 "a gap may not be kept open", §7); in the base
  game each column is one card and every row has the same length; in the expert
  variant a column descends by one with alternating colours (§7);
* nothing ever enters a stack (§2: 10 cards, only leaving) nor a hand or discard
  pile from outside (§2, §3: only turning moves cards between them), so
  ``len(stack) <= 10`` and ``len(hand) + len(discard) <= 30 - row length``;
* a stack empties only with a Stop (§4): while the round is live every stack holds
  a card; after ``STOP`` exactly the ``stopped_by`` player's stack is empty; after a
  stalemate none is;
* ``stopped_by`` is set for ``STOP`` only; a round ended by vote has every vote
  cast, and a live round never has every player's vote.
"""

from __future__ import annotations

import itertools
from typing import Any

from ligretto.engine import Ending, Round, state_to_dict, view
from ligretto.engine.cards import DECK_SIZE, NUMBERS, face_text

STACK_SIZE = 10


def _where(seat: int, face: int) -> str:
    return f"seat {seat} card {face_text(face)}"


def card_places(game: Round) -> list[dict[int, list[str]]]:
    """For each seat, every place each of its faces was found in (a face must have exactly one)."""
    places: list[dict[int, list[str]]] = [{} for _ in range(game.players)]
    for seat, area in enumerate(game.areas):
        found = places[seat]
        for c, column in enumerate(area.row):
            for face in column:
                found.setdefault(face, []).append(f"row column {c}")
        for name, cards in (("stack", area.stack), ("hand", area.hand), ("discard", area.discard)):
            for face in cards:
                found.setdefault(face, []).append(name)
    for pile, (colour, seats) in enumerate(zip(game.pile_colours, game.pile_seats, strict=False)):
        for position, seat in enumerate(seats):
            if 0 <= seat < game.players and 0 <= colour < 4 and position < NUMBERS:
                places[seat].setdefault(colour * NUMBERS + position, []).append(f"center pile {pile}")
    return places


_ONCE = [1] * DECK_SIZE


def check_cards(game: Round) -> None:
    """Every player's 40 cards are each in exactly one place."""
    counts = [[0] * DECK_SIZE for _ in range(game.players)]
    for seat, area in enumerate(game.areas):
        count = counts[seat]
        for column in area.row:
            for face in column:
                count[face] += 1
        for face in area.stack:
            count[face] += 1
        for face in area.hand:
            count[face] += 1
        for face in area.discard:
            count[face] += 1
    for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True):
        base = colour * NUMBERS
        for position, seat in enumerate(seats):
            counts[seat][base + position] += 1
    for seat, count in enumerate(counts):
        if count != _ONCE:  # slow path: say exactly what is wrong
            found = card_places(game)[seat]
            for face in range(DECK_SIZE):
                where = found.get(face, [])
                assert len(where) == 1, f"{_where(seat, face)} is in {len(where)} places: {where or 'nowhere'}"
            raise AssertionError(f"seat {seat} holds faces outside 0..39: {sorted(set(found) - set(range(40)))}")


def check_center(game: Round) -> None:
    """Piles: one valid colour each, 1..10 cards from real seats; ``wanted`` matches them."""
    assert len(game.pile_colours) == len(game.pile_seats), (
        f"{len(game.pile_colours)} pile colours for {len(game.pile_seats)} piles"
    )
    players = range(game.players)
    expected: list[list[int]] = [[-1] if face % NUMBERS == 0 else [] for face in range(DECK_SIZE)]
    for pile, (colour, seats) in enumerate(zip(game.pile_colours, game.pile_seats, strict=True)):
        assert colour in (0, 1, 2, 3), f"pile {pile} has colour {colour!r}, not 0..3"
        assert 1 <= len(seats) <= NUMBERS, f"pile {pile} holds {len(seats)} cards, not 1..10"
        for seat in seats:
            assert seat in players, f"pile {pile} names seat {seat!r} at a table of {game.players}"
        if len(seats) < NUMBERS:
            expected[colour * NUMBERS + len(seats)].append(pile)  # piles in ascending order
    if game.wanted != expected:
        assert len(game.wanted) == DECK_SIZE, f"wanted has {len(game.wanted)} entries, not 40"
        for face in range(DECK_SIZE):
            assert game.wanted[face] == expected[face], (
                f"wanted[{face_text(face)}] is {game.wanted[face]}, but the piles accepting it are {expected[face]}"
            )


def check_areas(game: Round) -> None:
    """Rows, stack and hand sizes, the shape of expert columns."""
    assert len(game.areas) == game.players, f"{len(game.areas)} areas for {game.players} players"
    row_length = game.row_length
    assert 1 <= row_length <= 5, f"row length {row_length}"
    for seat, area in enumerate(game.areas):
        assert len(area.row) == row_length, f"seat {seat} has {len(area.row)} row columns, not {row_length}"
        for c, column in enumerate(area.row):
            assert column, f"seat {seat} row column {c} is empty (a gap may not be kept open)"
            if not game.rules.expert:
                assert len(column) == 1, f"seat {seat} row column {c} holds {len(column)} cards in the base game"
            for under, over in itertools.pairwise(column):
                # bottom first: every card is one lower than the one under it, in another colour
                assert over % NUMBERS + 1 == under % NUMBERS and over // NUMBERS != under // NUMBERS, (
                    f"seat {seat} row column {c}: {face_text(over)} on {face_text(under)} "
                    "is not one lower in another colour"
                )
        assert len(area.stack) <= STACK_SIZE, f"seat {seat} stack holds {len(area.stack)} > 10 cards"
        held = len(area.hand) + len(area.discard)
        assert held <= DECK_SIZE - STACK_SIZE - row_length, (
            f"seat {seat} hand + discard hold {held} > {DECK_SIZE - STACK_SIZE - row_length} cards"
        )
        assert area.recycles >= 0, f"seat {seat} recycles {area.recycles}"
        assert area.moves >= 0, f"seat {seat} moves {area.moves}"


def check_ending(game: Round) -> None:
    """Empty stacks, ``stopped_by`` and votes agree with how (and whether) the round ended."""
    empty = [seat for seat, area in enumerate(game.areas) if not area.stack]
    voted = [seat for seat, area in enumerate(game.areas) if area.voted]
    if game.ending is None:
        assert not empty, f"live round, but the stacks of seats {empty} are empty (an empty stack is a Stop)"
        assert game.stopped_by is None, f"live round stopped by {game.stopped_by}"
        assert len(voted) < game.players, "live round although every player voted to end it"
    elif game.ending is Ending.STOP:
        assert game.stopped_by is not None and 0 <= game.stopped_by < game.players, (
            f"STOP with stopped_by {game.stopped_by!r}"
        )
        assert empty == [game.stopped_by], f"STOP by seat {game.stopped_by}, but the empty stacks are {empty}"
    else:
        assert game.ending in (Ending.STALEMATE_VOTE, Ending.STALEMATE_PROVEN), f"unknown ending {game.ending!r}"
        assert game.stopped_by is None, f"{game.ending.value} with stopped_by {game.stopped_by}"
        assert not empty, f"{game.ending.value}, but the stacks of seats {empty} are empty"
        if game.ending is Ending.STALEMATE_VOTE:
            assert len(voted) == game.players, f"ended by vote, but only seats {voted} voted"


def check_invariants(game: Round) -> None:
    """Every invariant above; raises AssertionError naming what is wrong."""
    check_center(game)
    check_cards(game)
    check_areas(game)
    check_ending(game)


def check_conservation(game: Round) -> None:
    """A cheap subset for soak loops: card counts per seat, empty stacks and the ending."""
    counts = [0] * game.players
    for seats in game.pile_seats:
        for seat in seats:
            counts[seat] += 1
    for seat, area in enumerate(game.areas):
        total = counts[seat] + len(area.stack) + len(area.hand) + len(area.discard)
        total += sum(len(column) for column in area.row)
        assert total == DECK_SIZE, f"seat {seat} has {total} cards, not 40"
    check_ending(game)


def without_log(game: Round) -> dict[str, Any]:
    """``state_to_dict`` but for the log, which callers compare as actions: serialising the whole log
    at every step would make checks after every action quadratic in a round's length.  The log is
    set aside while the rest is serialised and then put back: the state is left as it was."""
    log, game.log = game.log, []
    try:
        data = state_to_dict(game)
    finally:
        game.log = log
    del data["log"]
    return data


def same_state(one: Round, other: Round) -> bool:
    """Whether ``state_to_dict`` gives the same for both: the state but for the log, then the log."""
    return without_log(one) == without_log(other) and one.log == other.log


# --- what views may show -----------------------------------------------------------------


def hidden_cards(game: Round) -> set[tuple[int, str]]:
    """``(seat, "r5")`` for every card nobody may see (RULES.md §9): every hand card,
    every stack card below the top and every discard card below the top."""
    hidden: set[tuple[int, str]] = set()
    for seat, area in enumerate(game.areas):
        for face in (*area.hand, *area.stack[:-1], *area.discard[:-1]):
            hidden.add((seat, face_text(face)))
    return hidden


def _strings(value: Any) -> list[str]:
    """Every string anywhere in a JSON-like value (keys included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def check_view_hides(game: Round, data: dict[str, Any], hidden: set[tuple[int, str]] | None = None) -> None:
    """One view dict (``view(game, seat).to_dict()``) shows no hidden card and every public fact.

    ``hidden`` is ``hidden_cards(game)`` if the caller already has it."""
    if hidden is None:
        hidden = hidden_cards(game)
    assert len(data["areas"]) == game.players, f"view lists {len(data['areas'])} areas for {game.players} players"
    for seat, (area, shown) in enumerate(zip(game.areas, data["areas"], strict=True)):
        assert shown["seat"] == seat, f"area {seat} of the view is labelled seat {shown['seat']}"
        leaked = sorted({s for s in _strings(shown) if (seat, s) in hidden})
        assert not leaked, f"view for {data['viewer']!r} shows hidden cards of seat {seat}: {leaked}"
        # ... while showing everything public (§9)
        assert shown["row"] == [[face_text(f) for f in column] for column in area.row], f"seat {seat} row"
        assert shown["stack_top"] == (face_text(area.stack[-1]) if area.stack else None), f"seat {seat} stack top"
        assert shown["discard_top"] == (face_text(area.discard[-1]) if area.discard else None), (
            f"seat {seat} discard top"
        )
        assert shown["stack_size"] == len(area.stack), f"seat {seat} stack size"
        assert shown["discard_size"] == len(area.discard), f"seat {seat} discard size"
        assert shown["hand_size"] == len(area.hand), f"seat {seat} hand size"
        assert shown["voted"] == area.voted, f"seat {seat} vote"
    assert [(p["colour"][0], p["top"], p["backs"]) for p in data["center"]] == [
        ("rgyb"[colour], len(seats), seats) for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True)
    ], "the view's center piles differ from the state's"
    assert data["ending"] == (None if game.ending is None else game.ending.value), "view ending"
    assert data["stopped_by"] == game.stopped_by, "view stopped_by"


def check_views(game: Round) -> None:
    """Every seat's view and the spectator's: no hidden card, and (§9: hidden from everyone,
    the owner included) all of them identical apart from ``viewer``."""
    hidden = hidden_cards(game)
    spectator = view(game, None).to_dict()
    check_view_hides(game, spectator, hidden)
    assert spectator["viewer"] is None
    for seat in range(game.players):
        data = view(game, seat).to_dict()
        assert data["viewer"] == seat, f"view for seat {seat} says viewer {data['viewer']!r}"
        check_view_hides(game, data, hidden)
        assert {**data, "viewer": None} == spectator, f"seat {seat} sees more or less than a spectator"
