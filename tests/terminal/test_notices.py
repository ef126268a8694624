"""The words of races and judging, from the protocol's values (the model's tests read them
through messages; these pin the rules of the wording)."""

from __future__ import annotations

from ligretto.terminal import notices

NAMES = ["Tess", "Alice", "Bob"]


def name(seat: int | None) -> str:
    return "nobody" if seat is None else NAMES[seat]


def test_a_margin_is_shown_only_when_it_is_one() -> None:
    assert [notices.margin(ms) for ms in (12, 1, 0, -3, None)] == [12, 1, None, None, None]


def test_the_loser_reads_the_winner_and_the_margin() -> None:
    assert notices.beaten(2, 7, seat=0, name=name) == "Bob was 7 ms faster!"
    assert notices.beaten(2, None, seat=0, name=name) == "Beaten to it by Bob!"
    assert notices.beaten(0, 7, seat=0, name=name) == "Your other card got there first!"
    assert notices.beaten(None, 7, seat=0, name=name) == "Beaten to it!"


def test_a_race_reads_from_where_the_client_sits() -> None:
    assert notices.race(1, 2, 0, 30, seat=None, name=name) == "Alice beat Bob to pile 1 by 30 ms"
    assert notices.race(1, 2, 0, 30, seat=1, name=name) == "You beat Bob to pile 1 by 30 ms"
    assert notices.race(1, 2, 0, 30, seat=2, name=name) is None, "the loser's ack says it"
    assert notices.race(1, 2, 0, 30, seat=0, name=name) == "Alice beat Bob to pile 1 by 30 ms"


def test_judging_in_words() -> None:
    assert notices.judging("fair", 80) == "fair, window 80 ms"
    assert notices.judging("fair", None) == "fair"
    assert notices.judging("arrival", 80) == "by arrival"
    assert notices.judging(None, None) is None
