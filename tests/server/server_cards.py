"""The cards of a live round as (seat, card) pairs, face up and face down: what the
scans for hidden cards compare the server's messages against."""

from __future__ import annotations

from ligretto.engine.state import Round


def public_cards(game: Round) -> set[tuple[int, str]]:
    """Every card face up: row cards, stack and discard tops, center cards."""
    cards = set()
    for seat, area in enumerate(game.areas):
        cards |= {(seat, str(game.card(seat, f))) for column in area.row for f in column}
        for pile in (area.stack, area.discard):
            if pile:
                cards.add((seat, str(game.card(seat, pile[-1]))))
    for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True):
        cards |= {(seat, str(game.card(seat, colour * 10 + n))) for n, seat in enumerate(seats)}
    return cards


def hidden_cards(game: Round) -> set[tuple[int, str]]:
    """Every card face down: hands, stacks below their top, discard piles below their top."""
    cards = set()
    for seat, area in enumerate(game.areas):
        for faces in (area.hand, area.stack[:-1], area.discard[:-1]):
            cards |= {(seat, str(game.card(seat, f))) for f in faces}
    return cards
