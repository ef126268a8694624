"""The score sheet at a full table on a phone: 12 seats with long German and Finnish
names at 360x640, in German and in Finnish. No name or word is broken, the page never
scrolls sideways, the rows are sorted by total with places (ties share one), the round's
winners carry a mark that is not a colour, every negative number has the one minus sign
(U+2212); "Show board" puts the sheet aside and brings it back (mouse and keys). The 12
deck backs differ by more than colour: symbol and box numeral. At the end of a match the
result gives the places (1st, 2nd: English ordinals). Once someone is ready the sheet counts
down the table's wait for *Ready*, and the host's *Start next round* deals the next round.

At the full table the host is the page; 11 people join over raw WebSockets with long
names and give their seats up once the match starts, so the server's stand-in bots play
them (under their names); the page's player plays no card and only says "stuck".
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import host_table, read_board, start_match, wait_round_over
from playwright.sync_api import Page, expect
from websockets.sync.client import ClientConnection, connect
from wsrival import Rival

from ligretto.server.table.timing import READY_S

HOST = "Bundesverfassungsrichter"
GUESTS = (
    "Schifffahrtskapitänin",
    "Lentokonesuihkuturbiini",
    "Donaudampfschifferin",
    "Rindfleischetikettierer",
    "Kraftfahrzeughaftpflicht",
    "Elintarviketurvallisuus",
    "Järjestelmäasiantuntija",
    "Geschwindigkeitsmesser",
    "Weltmeisterschaftsfinale",
    "Kinderkrankenschwester",
    "Ylioppilastutkintolauta",
)
NAMES = (HOST, *GUESTS)
ROUND_MS = 90_000
MINUS = "\u2212"

READ_SHEET = """() => {
  const panel = document.querySelector('.sheet-panel');
  // The lines a text takes: its text boxes' distinct line positions (an ellipsis adds a box
  // on the same line; a vertical header's line is a column; a name cut in its middle is
  // two texts side by side).
  const lines = (node) => {
    const texts = [];
    if (node.nodeType === Node.TEXT_NODE) texts.push(node);
    const walk = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    if (node.nodeType !== Node.TEXT_NODE) while (walk.nextNode()) texts.push(walk.currentNode);
    const tops = new Set();
    for (const text of texts) {
      const range = document.createRange();
      range.selectNodeContents(text);
      const vertical = getComputedStyle(text.parentElement).writingMode.startsWith('vertical');
      for (const box of range.getClientRects()) tops.add(Math.round(vertical ? box.left : box.top));
    }
    return tops.size;
  };
  const texts = [];
  const walker = document.createTreeWalker(panel.querySelector('#score-sheet'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.textContent.trim() && !node.parentElement.closest('.visually-hidden, caption')) {
      texts.push({ text: node.textContent, lines: lines(node) });
    }
  }
  const box = panel.getBoundingClientRect();
  return {
    rows: [...panel.querySelectorAll('#score-sheet tbody tr')].map((row) => ({
      seat: Number(row.dataset.seat),
      place: Number(row.dataset.place),
      placeText: row.querySelector('td.place').textContent,
      name: row.querySelector('.sheet-name').textContent,
      title: row.querySelector('.sheet-name').title,
      nameLines: lines(row.querySelector('.sheet-name')),
      cells: [...row.querySelectorAll('td.num')].map((cell) => cell.textContent),
      winner: Boolean(row.querySelector('.round-winner svg')),
      winnerLabel: row.querySelector('.round-winner .visually-hidden')?.textContent || null,
      back: [row.querySelector('.back use').getAttribute('href'), row.querySelector('.back .box-mark').textContent],
    })),
    texts,
    text: panel.innerText,
    page: [document.documentElement.scrollWidth, window.innerWidth],
    panel: [box.left, box.right],
  };
}"""

READ_BACKS = """() => [...document.querySelectorAll('.board .back')].map((badge) => ({
  symbol: badge.querySelector('use').getAttribute('href'),
  mark: badge.querySelector('.box-mark').textContent,
  label: badge.getAttribute('aria-label'),
  box: badge.dataset.box,
  markShown: badge.querySelector('.box-mark').getBoundingClientRect().width > 0,
}))"""


def number(text: str) -> int:
    """A number as the sheet writes it: "+16", "−8", "0"."""
    assert "-" not in text, f"a hyphen-minus in {text!r}"
    return int(text.replace(MINUS, "-"))


def join(sockets: contextlib.ExitStack, url: str, code: str, name: str) -> ClientConnection:
    socket = sockets.enter_context(connect(url))
    socket.send(json.dumps({"type": "hello", "v": 1, "code": code, "name": name}))
    while True:
        message = json.loads(socket.recv(timeout=10))
        assert message["type"] != "error", message
        if message["type"] == "welcome":
            return socket


def give_up_seat(socket: ClientConnection) -> None:
    """Once the match is on: leave, and a stand-in bot plays the seat under its name."""
    while json.loads(socket.recv(timeout=10)).get("phase") in (None, "lobby"):
        pass
    socket.send(json.dumps({"type": "leave"}))
    socket.close()


def dotted(place: int) -> str:
    """A place in German and Finnish: "1."."""
    return f"{place}."


def english(place: int) -> str:
    """A place in English: "1st", "2nd", "3rd", "4th", "11th", "12th"."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def stay_stuck(page: Page, timeout_s: float = ROUND_MS / 1000) -> None:
    """The page's player plays no card and says "stuck" again whenever a play lifted the
    votes, so the others are never kept waiting for its vote; until the round is over."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = read_board(page)
        if state is not None and state["ended"]:
            return
        if state is not None and state["live"] and not state["voted"] and not state["pending"]:
            page.keyboard.press("v")
        page.wait_for_timeout(250)
    raise AssertionError(f"the round did not end within {timeout_s} s")


def check_sheet(
    page: Page,
    *,
    names: tuple[str, ...] = NAMES,
    ready_column: bool,
    winner_label: str,
    place_text: Callable[[int], str] = dotted,
) -> dict[str, Any]:
    sheet: dict[str, Any] = page.evaluate(READ_SHEET)
    rows = sheet["rows"]
    assert sorted(row["name"] for row in rows) == sorted(names), "every name whole in the page"
    assert all(row["title"] == row["name"] for row in rows), "the whole name in the title"
    broken = [row["name"] for row in rows if row["nameLines"] != 1]
    assert not broken, f"names on more than one line: {broken}"
    wrapped = [item["text"] for item in sheet["texts"] if item["lines"] != 1]
    assert not wrapped, f"texts of the sheet broken over lines: {wrapped}"
    width, viewport = sheet["page"]
    assert width <= viewport, f"the page scrolls sideways: {width} > {viewport}"
    assert sheet["panel"][0] >= 0 and sheet["panel"][1] <= viewport, sheet["panel"]
    assert len({tuple(row["back"]) for row in rows}) == len(rows), "every back differs by symbol or box numeral"

    # Sorted by total, best first; ties share a place and the next place is skipped.
    columns = 5 if ready_column else 4
    assert all(len(row["cells"]) == columns for row in rows)
    totals = [number(row["cells"][3]) for row in rows]
    assert totals == sorted(totals, reverse=True), totals
    assert [row["place"] for row in rows] == [1 + sum(t > total for t in totals) for total in totals]
    assert [row["placeText"] for row in rows] == [place_text(row["place"]) for row in rows]

    # The round's winners: the best round score, marked by a crown with its name.
    scores = [number(row["cells"][2]) for row in rows]
    assert [row["winner"] for row in rows] == [score == max(scores) for score in scores]
    assert {row["winnerLabel"] for row in rows if row["winner"]} == {winner_label}
    for row in rows:
        center, stack, score = (number(cell) for cell in row["cells"][:3])
        assert center >= 0 and stack >= 0 and score == center - 2 * stack, row["cells"]  # stack: cards left

    # One minus sign throughout: there are negative numbers (the page's player played no
    # card), each written with U+2212, and no hyphen-minus before a digit anywhere.
    assert re.search(rf"{MINUS}\d", sheet["text"]), sheet["text"]
    assert not re.search(r"-\d", sheet["text"]), sheet["text"]
    assert number(next(row for row in rows if row["seat"] == 0)["cells"][2]) < 0  # its round score
    return sheet


def check_toggle(page: Page) -> None:
    """*Show board* puts the sheet aside (the board is there); a button brings it back."""
    panel = page.locator(".sheet-panel")
    page.click("#show-board-button")
    expect(panel).to_be_hidden()
    expect(page.locator("#show-sheet-button")).to_be_focused()
    expect(page.locator(".board .own")).to_be_visible()
    page.keyboard.press("Enter")  # the keyboard way back
    expect(panel).to_be_visible()
    expect(page.locator("#show-board-button")).to_be_focused()
    page.keyboard.press("Escape")  # and away again
    expect(panel).to_be_hidden()
    page.click("#show-sheet-button")
    expect(panel).to_be_visible()


def check_backs(page: Page) -> None:
    """Twelve backs on the board, each told from the others by symbol and box numeral."""
    backs: list[dict[str, Any]] = page.evaluate(READ_BACKS)
    kinds = {(back["symbol"], back["mark"]) for back in backs}
    assert len(kinds) == 12, backs
    assert all(back["markShown"] for back in backs)
    assert {back["box"]: back["mark"] for back in backs} == {"red": "I", "blue": "II", "green": "III"}
    assert all(back["mark"] in back["label"] for back in backs), [back["label"] for back in backs]
    assert page.locator(".own .card-back .box-mark").count() == 1, "the hand's back has its box numeral"
    # The board's totals use the sheet's minus sign too (the page's player has a negative one).
    board = page.inner_text(".board")
    assert re.search(rf"{MINUS}\d", board) and not re.search(r"-\d", board), board


def test_a_full_table_of_long_names_reads_on_a_phone_in_german_and_finnish(
    pages: Any, server: Any, shot: Callable[..., Path]
) -> None:
    context = pages.context(width=360, height=640, locale="de-DE")
    page = pages.open("/", context=context)
    code = host_table(page, HOST, seats=12, rounds=2)
    with contextlib.ExitStack() as sockets:
        guests = [join(sockets, server.ws_url, code, name) for name in GUESTS]
        expect(page.locator("#seats .seat:not(.free)")).to_have_count(12)
        start_match(page)
        for guest in guests:
            give_up_seat(guest)

    # Round 1 in German: the widest sheet (with the "ready" column).
    stay_stuck(page)
    wait_round_over(page)
    check_sheet(page, ready_column=True, winner_label="Rundensieg")
    shot(page, "de-360")
    check_toggle(page)
    page.click("#show-board-button")
    check_backs(page)
    shot(page, "board-360")
    page.click("#show-sheet-button")

    # The same sheet in Finnish.
    page.select_option("#lang", "fi")
    expect(page.locator("#sheet-title")).to_have_text("Pisteet kierroksen 1 jälkeen")
    check_sheet(page, ready_column=True, winner_label="Kierroksen voittaja")
    shot(page, "fi-360")

    for width, height in ((844, 390), (1280, 800)):  # a phone held sideways, a desktop
        page.set_viewport_size({"width": width, "height": height})
        check_sheet(page, ready_column=True, winner_label="Kierroksen voittaja")
        shot(page, str(width))


def test_the_match_result_gives_the_places(pages: Any, shot: Callable[..., Path]) -> None:
    page = pages.open("/", context=pages.context(width=360, height=640))
    host_table(page, HOST, seats=2, rounds=1, bots=("smart:machine",))
    start_match(page)
    stay_stuck(page)
    wait_round_over(page)
    page.wait_for_selector("#match-places")
    sheet = check_sheet(
        page, names=(HOST, "Smart bot 2"), ready_column=False, winner_label="Won this round", place_text=english
    )
    podium = page.locator("#match-places li")
    places = podium.evaluate_all("(items) => items.map((li) => [Number(li.dataset.place), li.textContent])")
    assert [place for place, _ in places] == [row["place"] for row in sheet["rows"]]
    assert [text.split()[0] for _, text in places] == [english(row["place"]) for row in sheet["rows"]]
    winners = [row["name"] for row in sheet["rows"] if row["place"] == 1]
    # A deal the bot cannot play either ends in a tie, and a player among the winners reads
    # "You win"; otherwise the page names the winner.
    result = page.locator("#match-result")
    if HOST in winners:
        expect(result).to_have_text("You win the match!")
    else:
        expect(result).to_contain_text(winners[0])
    expect(page.locator("#rematch-button")).to_be_visible()
    shot(page, "en-360")
    check_toggle(page)


def test_the_wait_for_ready_counts_down_and_the_hosts_button_deals_the_next_round(
    pages: Any, server: Any, shot: Callable[..., Path]
) -> None:
    """Ann hosts on a phone, Gast plays over a WebSocket; both say stuck. On the sheet
    nothing counts down until Gast is ready; then Ann's sheet counts down the table's wait
    (``ready_by``, on the server's clock) and her *Start next round* deals round 2 at once."""
    page = pages.open("/", context=pages.context(width=390, height=844))
    code = host_table(page, "Ann", seats=2, rounds=2)
    guest = Rival(server.port, code, "Gast")
    try:
        expect(page.locator("#seats .seat:not(.free)")).to_have_count(2)
        start_match(page)
        guest.wait(lambda m: m["type"] == "go")
        assert guest.act({"kind": "vote"})["applied"]
        stay_stuck(page)
        wait_round_over(page)
        expect(page.locator("#ready-button")).to_be_visible()
        expect(page.locator("#next-round-button")).to_be_visible()
        expect(page.locator("#ready-wait")).to_have_count(0)  # nobody is ready: nobody waits

        mark = len(guest.messages)
        guest.send({"type": "ready"})
        wait = page.locator("#ready-wait")
        expect(wait).to_have_text(re.compile(r"^The next round starts in \d+ s\.$"))
        left = int(wait.get_attribute("data-left") or "-1")
        assert READY_S - 5 <= left <= READY_S, left
        expect(wait).not_to_have_attribute("data-left", str(left))  # it counts down
        expect(page.locator("#score-sheet .ready-cell")).to_have_text(["…", "✓"])  # Ann (a tie: seat order), Gast
        shot(page, "ready-wait-390")

        page.click("#next-round-button")
        expect(page.locator("#round-number")).to_have_text("Round 2")
        expect(page.locator("#score-sheet")).to_have_count(0)
        told = guest.wait(lambda m: m["type"] == "table" and m["round"] == 2, after=mark)
        assert told["phase"] == "countdown" and told["ready_by"] is None
    finally:
        guest.close()
