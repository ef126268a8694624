"""Names are text in the browser too: people named like Rich markup or HTML show exactly
as written (``textContent`` is the name, no element made of it) in the waiting room, on
the board and on the score sheet.  And names that differ only at their end (bots: "Bot
Schlau 2" … "Bot Schlau 12") are told apart at 12 seats on a 360x640 phone, in German and
English, on the board and the score sheet: cut in the middle, never at the end.

In the first test the host is the page; four people join over raw WebSockets, and
everyone votes the round a stalemate at once, so the score sheet comes without a round to
play out.
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


CUT_NAMES = """(nodes) => nodes.map((node) => {
  const cut = (e) => Boolean(e) && e.scrollWidth > e.clientWidth + 0.5;
  const head = node.querySelector('.name-head');
  const tail = node.querySelector('.name-tail');
  const box = node.getBoundingClientRect();
  const end = tail && tail.getBoundingClientRect();
  return {
    name: node.textContent,
    tail: tail ? tail.textContent : '',
    tailShown: Boolean(tail) && end.width > 0 && !cut(tail) && end.left >= box.left - 0.5
      && end.right <= box.right + 0.5 && end.left >= 0 && end.right <= innerWidth + 0.5,
    whole: !cut(head) && !cut(tail),
  };
})"""


MEASURE_THE_DEALT_BOARD = (
    """(count) => {
  const measure = """
    + CUT_NAMES
    + """;
  const look = () => {
    const names = [...document.querySelectorAll('.table-screen.in-round .opponents .opp-name')];
    if (!window.dealtBoard && names.length === count) window.dealtBoard = measure(names);
  };
  new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
}"""
)
"""The opponents' names measured (``CUT_NAMES``) as soon as the board is drawn, whether or
not the page painted it before the round moved on: machine bots may end a round a moment
after the go, and a loaded page may draw the countdown's board and the go's in one frame."""


def cut_names(
    page: Page, selector: str, names: list[str], where: str, found: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The names shown by ``selector`` (or ``found``, measured so already): each whole in
    the page's text, its last four characters in view whatever its width (cut in the
    middle), so that no two read alike."""
    if found is None:
        found = page.eval_on_selector_all(selector, CUT_NAMES)
    assert sorted(each["name"] for each in found) == sorted(names), where
    for each in found:
        assert (
            each["tailShown"] and each["name"].endswith(each["tail"]) and len(each["tail"]) >= min(4, len(each["name"]))
        ), (where, each)
    assert len({each["tail"] for each in found}) == len(found), f"{where}: two names end alike: {found}"
    return found


def test_bots_of_twelve_seats_are_told_apart_on_the_board_and_the_sheet_in_german_and_english(
    pages: Any, shot: Any
) -> None:
    """Eleven bots whose names differ only by their number ("Bot Schlau 2" … "Bot Schlau 12"
    in German): on a 360x640 phone each opponent's chip and each line of the score sheet
    shows the name's end, cut in its middle where it is too long; at 1280x800 every name is
    whole.  The same sheet in English ("Smart bot 10" is no "Smart bo…")."""
    page = pages.open("/", context=pages.context(width=360, height=640, locale="de-DE"))
    host_table(page, "Ada", seats=12, rounds=2, bots=("smart:machine",) * 11)
    page.evaluate(MEASURE_THE_DEALT_BOARD, 11)
    page.click("#start-button")
    german = [f"Bot Schlau {n}" for n in range(2, 13)]
    english = [f"Smart bot {n}" for n in range(2, 13)]
    # The board as it is dealt (machine bots may end the round a moment after the go).
    dealt = page.wait_for_function("() => window.dealtBoard").json_value()
    cut_names(page, ".opponents .opp-name", german, "the board at 360x640", dealt)
    shot(page, "board-de-360")
    wait_round_over(page)
    for lang, bots in (("de", german), ("en", english)):
        page.select_option("#lang", lang)
        page.wait_for_selector(f"html[lang='{lang}']")
        page.set_viewport_size({"width": 360, "height": 640})
        cut_names(page, "#score-sheet .sheet-name", ["Ada", *bots], f"the {lang} sheet at 360x640")
        shot(page, f"sheet-{lang}-360")
        page.set_viewport_size({"width": 1280, "height": 800})
        shown = cut_names(page, "#score-sheet .sheet-name", ["Ada", *bots], f"the {lang} sheet at 1280x800")
        assert all(each["whole"] for each in shown), shown
        shot(page, f"sheet-{lang}-1280")
    page.click("#show-board-button")
    shown = cut_names(page, ".opponents .opp-name", english, "the board at 1280x800")
    assert all(each["whole"] for each in shown), shown
