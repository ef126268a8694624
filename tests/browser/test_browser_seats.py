"""Seats in the browser: a name with emoji sequences (joiners, variation selectors, a
subdivision flag) of 24 visible characters fits the name field whole, and a start that closes a gap between the
seats moves a page to its new seat, with a new ``welcome`` and without a "back at your
seat" notice; the kept token brings a reload back to the new seat."""

from __future__ import annotations

from typing import Any

from browserkit import Gate, host_table, join_by_link, read_board, start_match
from playwright.sync_api import expect

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧
HEART = "\u2764\ufe0f"  # ❤️
ENGLAND = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbeng") + "\U000e007f"  # 🏴󠁧󠁢󠁥󠁮󠁧󠁿
NAME = f"{FAMILY} {ENGLAND}{HEART * 19}"
"""24 characters as a person counts them; 51 code points, 61 UTF-16 units."""


def test_a_start_that_closes_a_gap_moves_the_page_to_its_new_seat_quietly(pages: Any) -> None:
    alice = pages.open("/")
    code = host_table(alice, "Alice", seats=3, rounds=1)
    xena = pages.open(f"/?t={code}")
    join_by_link(xena, "Xena")
    context = pages.context()
    gate = Gate(context)
    bob = pages.open(f"/?t={code}", context=context)
    join_by_link(bob, NAME)
    expect(alice.locator('#seats li[data-seat="2"]')).to_contain_text(NAME)  # the whole name

    alice.click('#seats li[data-seat="1"] .remove-seat')  # seat 1 is free: Bob's seat 2 becomes 1
    expect(alice.locator('#seats li[data-seat="1"].free')).to_have_count(1)
    start_match(alice, bob)

    welcomes = [m for m in gate.seen if m["type"] == "welcome"]
    assert [m["seat"] for m in welcomes] == [2, 1]
    assert welcomes[0]["token"] == welcomes[1]["token"]
    board = read_board(bob)
    assert board is not None and board["seat"] == 1
    expect(bob.locator(".own-name")).to_have_text(NAME)
    expect(bob.locator('.opponent[data-seat="0"]')).to_contain_text("Alice")
    expect(bob.locator("#toasts")).not_to_contain_text("back at your seat")
    token = bob.evaluate(f"() => localStorage.getItem('ligretto.seat.{code}')")
    assert token == welcomes[1]["token"]
    assert read_board(alice)["seat"] == 0  # type: ignore[index]

    bob.reload()  # the kept token names the new seat
    bob.wait_for_selector(".board.live")
    again = read_board(bob)
    assert again is not None and again["seat"] == 1
    expect(bob.locator(".own-name")).to_have_text(NAME)
