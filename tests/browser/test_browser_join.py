"""Joining by invite link in the browser: the name prompt of a first visit keeps what the
person typed, the caret and the focus when the page draws the table screen again (the
socket opening, the server refusing the name), and a name sent before the socket opened
is not lost.

The game socket of the joining page is held at its opening (:class:`browserkit.Gate`), so
the redraw that comes with the ``open`` event falls between two keystrokes every time.
"""

from __future__ import annotations

from typing import Any

from browserkit import Gate, host_table
from playwright.sync_api import Page, expect

TOO_LONG = "B" + "o" * 24
"""25 characters: the server refuses it (``bad_name``), the page lets it be typed."""


def seat_names(gate: Gate) -> list[str | None]:
    """The seat names of the last ``table`` message the server sent this page."""
    table = [message for message in gate.seen if message["type"] == "table"][-1]
    return [seat["name"] if seat else None for seat in table["seats"]]


def wait_seat_name(alice: Page, page: Page, seat: int, name: str) -> None:
    """Both pages show ``name`` at ``seat`` of the waiting room, and ``page`` sits there."""
    for shown in (alice, page):
        expect(shown.locator(f'#seats li[data-seat="{seat}"] .seat-name')).to_have_text(name)
    expect(page.locator(f'#seats li[data-seat="{seat}"] .badge.me')).to_have_count(1)


def invited(pages: Any) -> tuple[Page, Gate, Page]:
    """Alice hosts a table; a second page opens her invite link with its socket held connecting."""
    alice = pages.open("/")
    code = host_table(alice, "Alice", seats=3, rounds=1)
    context = pages.context()
    gate = Gate(context, hold_opening=True)
    return alice, gate, pages.open(f"/?t={code}", context=context)


def test_a_name_typed_while_the_socket_opens_keeps_its_text_caret_and_focus(pages: Any) -> None:
    alice, gate, zoe = invited(pages)

    field = zoe.locator("#prompt-name")
    field.click()
    zoe.keyboard.type("Zenbia")
    for _ in range(3):
        zoe.keyboard.press("ArrowLeft")  # the caret after "Zen"
    assert gate.connections == 0, "the socket opened before the test let it"

    gate.open()  # the page's socket opens: it asks for a name, and draws the screen again
    expect(zoe.locator("#net")).to_have_attribute("data-status", "open")
    zoe.keyboard.type("o")  # the person goes on typing where the caret was
    expect(field).to_have_value("Zenobia")
    expect(field).to_be_focused()
    zoe.keyboard.press("Enter")

    wait_seat_name(alice, zoe, 1, "Zenobia")
    assert seat_names(gate) == ["Alice", "Zenobia", None]


def test_a_name_sent_while_connecting_and_refused_by_the_server_stays_in_the_prompt(pages: Any) -> None:
    alice, gate, bob = invited(pages)

    field = bob.locator("#prompt-name")
    field.fill(TOO_LONG)
    bob.keyboard.press("Enter")  # before the socket is open: the hello goes when it opens
    expect(bob.locator(".connecting")).to_be_visible()
    gate.open()

    # The server refuses the name: the prompt comes back with it, ready to be corrected.
    error = gate.wait_seen(bob, lambda m: m["type"] == "error")
    assert error["code"] == "bad_name", error
    expect(field).to_have_value(TOO_LONG)
    expect(field).to_be_focused()
    expect(bob.locator("#toasts")).to_contain_text("Names are 1 to 24 characters.")
    bob.keyboard.press("Backspace")
    bob.keyboard.press("Enter")

    wait_seat_name(alice, bob, 1, TOO_LONG[:-1])
    assert seat_names(gate) == ["Alice", TOO_LONG[:-1], None]
