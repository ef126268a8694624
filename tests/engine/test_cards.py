"""The card rules shared by the engine and the clients: "fits" and "goes on a column"."""

from __future__ import annotations

from ligretto.engine.cards import Colour, face_of, face_text, fits, goes_on, parse_face


def test_a_card_fits_a_pile_of_its_colour_one_below_it() -> None:
    red5 = face_of(Colour.RED, 5)
    assert fits(red5, Colour.RED, 4)
    assert not fits(red5, Colour.RED, 5)
    assert not fits(red5, Colour.RED, 3)
    assert not fits(red5, Colour.BLUE, 4)
    assert fits(face_of(Colour.BLUE, 1), Colour.BLUE, 0)


def test_a_complete_pile_takes_nothing() -> None:
    assert not any(fits(face, colour, 10) for face in range(40) for colour in Colour)


def test_goes_on_a_column_one_lower_of_another_colour() -> None:
    assert goes_on(parse_face("r4"), parse_face("b5"))
    assert not goes_on(parse_face("r4"), parse_face("r5"))
    assert not goes_on(parse_face("r4"), parse_face("b6"))
    assert not goes_on(parse_face("r10"), parse_face("b1"))


def test_card_text_round_trips_every_face() -> None:
    assert [parse_face(face_text(face)) for face in range(40)] == list(range(40))
