"""Names are text in the browser too: people named like Rich markup or HTML show exactly
as written (``textContent`` is the name, no element made of it) in the waiting room, on
the board and on the score sheet.

The host is the page; four people join over raw WebSockets, and everyone votes the round
a stalemate at once, so the score sheet comes without a round to play out.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from browserkit import host_table, start_match, wait_round_over
from playwright.sync_api import Page, expect
from websockets.sync.client import ClientConnection, connect

HOST = "Host"
GUESTS = ("[/x]", "[red]x", "[link=http://x]x[/link]", "<b>x</b><img src=x>")

READ_NAMES = """(nodes) => nodes.map((node) => [
  node.textContent,
  // Elements made of the name: any but the text-only parts a chip cuts a name into (board.js).
  node.querySelectorAll('*').length - node.querySelectorAll(':scope > span.name-part:not(:has(*))').length,
])"""


def join(sockets: contextlib.ExitStack, url: str, code: str, name: str) -> ClientConnection:
    socket = sockets.enter_context(connect(url))
    socket.send(json.dumps({"type": "hello", "v": 1, "code": code, "name": name}))
    while (message := json.loads(socket.recv(timeout=10)))["type"] != "welcome":
        assert message["type"] != "error", message
    return socket


def wait_for(socket: ClientConnection, kind: str) -> None:
    while (message := json.loads(socket.recv(timeout=10)))["type"] != kind:
        assert message["type"] != "error", message


def names_in(page: Page, selector: str) -> list[str]:
    """The texts of the elements that show names; none holds an element made of the name (an
    opponent's chip holds its name in two text-only parts, cut in the middle), and no element
    of the last guest's name is anywhere in the page (it has no ``<b>`` of its own)."""
    found: list[list[Any]] = page.eval_on_selector_all(selector, READ_NAMES)
    assert all(children == 0 for _, children in found), f"an element was made of a name: {found}"
    assert page.locator("b, img[src='x']").count() == 0, "a name was read as HTML"
    return sorted(text for text, _ in found)


def test_names_like_markup_or_html_show_as_written_in_the_waiting_room_on_the_board_and_the_sheet(
    pages: Any, server: Any
) -> None:
    page = pages.open("/")
    code = host_table(page, HOST, seats=5, rounds=1)
    with contextlib.ExitStack() as sockets:
        guests = [join(sockets, server.ws_url, code, name) for name in GUESTS]
        expect(page.locator("#seats .seat:not(.free)")).to_have_count(5)
        assert names_in(page, "#seats .seat-name") == sorted([HOST, *GUESTS])

        for guest in guests:
            guest.send(json.dumps({"type": "ping", "t": 0}))  # not silent through the countdown
        start_match(page)
        for guest in guests:
            wait_for(guest, "go")
            guest.send(json.dumps({"type": "act", "id": 1, "action": {"kind": "vote"}}))
        assert names_in(page, ".board .opp-name") == sorted(GUESTS)

        page.keyboard.press("v")  # the last vote: a stalemate
        wait_round_over(page)
        assert names_in(page, "#score-sheet .sheet-name") == sorted([HOST, *GUESTS])
