"""Playing in the browser against a real server: two people and a bot to Stop, a play
that loses a race and comes back ("beaten to it"), a whole round from the keyboard only,
and coming back to the same seat after a reload or a dropped connection."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import (
    SETTLE_MS,
    Gate,
    center_of,
    fitting,
    host_table,
    join_by_link,
    lose_a_race,
    play_keys_until_round_ends,
    press,
    read_board,
    start_match,
    turn_the_hand,
    wait_round_over,
    wait_settled,
)
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ONE_ROUND_S = 60


def slot_selector(source: str, position: int) -> str:
    slot = f"row-{position}" if source == "row" else source
    return f'.own [data-slot="{slot}"]'


def pile_selector(pile: int | None) -> str:
    return '[data-pile="new"]' if pile is None else f'.center [data-pile="{pile}"]'


ACTION_MS = 3000
"""How long a click or a drag may wait for its card (the round may end under the hand)."""


def _in_time(page: Page, selector: str, onto: str | None = None) -> bool:
    """Click ``selector`` (or drag it ``onto`` another); ``False`` if it could not be done
    because the round ended meanwhile (a bot called Stop between reading the board and the
    click: the Stop banner and the score sheet then cover the cards, as for a person); any
    other failure is raised."""
    try:
        if onto is None:
            page.click(selector, timeout=ACTION_MS)
        else:
            page.drag_and_drop(selector, onto, timeout=ACTION_MS)
    except PlaywrightTimeoutError:
        state = read_board(page)
        if state is not None and state["ended"]:
            return False
        raise
    return True


def test_two_people_and_a_bot_play_a_round_to_stop_and_see_the_same_table(
    pages: Any, server: Any, shot: Callable[..., Path]
) -> None:
    alice = pages.open("/")
    code = host_table(alice, "Alice", seats=3, rounds=1, public=True, bots=("smart:expert",))
    alice.click("#add-bot")  # a second bot fills the table, and the host takes it off again
    expect(alice.locator("#seats li[data-bot]")).to_have_count(2)
    alice.click('#seats li[data-seat="2"] .remove-seat')
    expect(alice.locator("#seats li[data-bot]")).to_have_count(1)

    bob = pages.open("/")
    entry = bob.locator(f'#public-tables li[data-code="{code}"]')
    expect(entry).to_contain_text("Alice")  # the live list of public tables
    expect(entry).to_contain_text("2 of 3")
    bob.goto(f"{server.url}/?t={code}")  # the invite link
    join_by_link(bob, "Bob")
    expect(alice.locator("#seats")).to_contain_text("Bob")
    start_match(alice, bob)

    # Alice clicks her cards (each goes where it fits); Bob drags his onto the pile he picks.
    clicks = drags = 0
    for _ in range(400):
        states = [read_board(alice), read_board(bob)]
        if all(state is not None and state["ended"] for state in states):
            break
        for page, state, how in ((alice, states[0], "click"), (bob, states[1], "drag")):
            if state is None or state["ended"] or not state["live"]:
                continue
            plays = fitting(state)
            if not plays:
                acted = _in_time(page, "#turn-button")
            elif how == "click":
                source, position, _, _ = plays[0]
                acted = _in_time(page, slot_selector(source, position))
                clicks += acted
            else:
                source, position, _, pile = plays[0]
                acted = _in_time(page, slot_selector(source, position), pile_selector(pile))
                drags += acted
            if acted:
                wait_settled(page)
        alice.wait_for_timeout(SETTLE_MS)  # the events drawn too: they follow the ack
    for page in (alice, bob):
        wait_round_over(page, ONE_ROUND_S * 1000)
    assert clicks and drags, (clicks, drags)

    banners = [page.inner_text(".banner") for page in (alice, bob)]
    assert alice.locator(".banner.banner-stop").count() == 1, banners
    stopper = re.search(r"(Alice|Bob|Smart bot \d)", " ".join(banners))
    assert stopper, banners
    assert center_of(alice) == center_of(bob)
    sheets = [page.inner_text("#score-sheet tbody") for page in (alice, bob)]
    assert sheets[0] == sheets[1]
    assert all(name in sheets[0] for name in ("Alice", "Bob", "Smart bot"))
    in_center = sum(int(n) for n in re.findall(r"\+(\d+)", sheets[0]))
    assert in_center == sum(top for _, _, top in center_of(alice)), "every card in the center is someone's"
    expect(alice.locator("#match-result")).to_be_visible()  # one round: the match is over
    # Everyone says whether they want a rematch; the host may also start it at once.
    expect(alice.locator("#rematch-button")).to_be_visible()
    expect(alice.locator("#rematch-now-button")).to_be_visible()
    expect(bob.locator("#rematch-now-button")).to_have_count(0)
    shot(alice, "alice-sheet")
    shot(bob, "bob-sheet")
    bob.click("#rematch-button")  # Bob wants one: Alice has the table's wait to say so
    expect(bob.locator("#rematch-button")).to_have_count(0)
    expect(alice.locator("#ready-wait")).to_contain_text("The rematch starts in")
    alice.click("#rematch-button")  # and with her (the bot always wants one), it starts
    for page in (alice, bob):
        expect(page.locator("#round-number")).to_have_text("Round 1")
        page.wait_for_selector(".board.live")
        expect(page.locator(".sheet-panel")).to_have_count(0)


def test_a_play_that_lost_the_race_returns_to_its_place_with_beaten_to_it(
    pages: Any, shot: Callable[..., Path]
) -> None:
    alice_context = pages.context()
    gate = Gate(alice_context)
    alice = pages.open("/", context=alice_context)
    code = host_table(alice, "Alice", seats=2, rounds=1)
    bob = pages.open(f"/#/t/{code}")
    join_by_link(bob, "Bob")
    start_match(alice, bob)

    # Alice's network is slow: she does not see Bob's card arrive before she plays hers.
    race = lose_a_race(gate, alice, bob)
    assert race.refusal["reason"] == "does_not_fit", race.refusal
    card = alice.locator(slot_selector(race.source, race.position))
    expect(card).to_have_class(re.compile(r"\bpending\b"))  # on its way while the answer travels
    gate.release()

    expect(card).to_have_class(re.compile(r"\brefused\b"))
    # The ack names whose card took the place, and for a race by how many ms he was faster.
    assert race.refusal["by"] == 1, race.refusal
    expect(card.locator(".bubble")).to_have_text(race.words())
    expect(card).to_have_attribute("data-card", race.card)  # the card is back where it was
    expect(card).not_to_have_class(re.compile(r"\bpending\b"))
    assert (race.pile, race.top_before + 1) in [(index, top) for index, _, top in center_of(alice)]
    shot(alice, "beaten-to-it")
    expect(card.locator(".bubble")).to_have_count(0, timeout=5000)  # the notice goes away by itself
    expect(card).to_have_attribute("data-card", race.card)


def test_a_whole_round_with_the_keyboard_only(pages: Any, shot: Callable[..., Path]) -> None:
    page = pages.open("/")
    # A smart bot votes only when it is stuck itself (a random one may vote at once and end
    # the round before a deal with no early play for Kim has given her one).
    host_table(page, "Kim", seats=2, rounds=2, bots=("smart:skilled",))
    count_pointer = "() => { window.pointers = 0; addEventListener('pointerdown', () => window.pointers++, true); }"
    page.evaluate(count_pointer)
    page.focus("#start-button")
    page.keyboard.press("Enter")
    page.wait_for_selector(".board.live")
    keys = play_keys_until_round_ends(page, timeout_s=ONE_ROUND_S)
    wait_round_over(page)
    shot(page, "sheet")
    assert set(keys) & set("12345sd"), f"no card was played: {keys}"
    assert " " in keys, "the hand was never turned"
    kim = page.locator("#score-sheet tbody tr.me")
    expect(kim).to_contain_text("Kim")

    page.keyboard.press("Enter")  # ready for the next round
    expect(page.locator("#round-number")).to_have_text("Round 2")
    page.wait_for_selector(".board.live")
    press(page, " ")
    assert page.evaluate("() => window.pointers") == 0, "the mouse was used"


def test_a_reload_and_a_dropped_connection_bring_the_player_back_to_the_seat(
    pages: Any, shot: Callable[..., Path]
) -> None:
    context = pages.context()
    gate = Gate(context)
    page = pages.open("/", context=context)
    host_table(page, "Rae", seats=2, rounds=1, bots=("smart:beginner",))
    start_match(page)
    for _ in range(4):
        before = turn_the_hand(page)
    assert before["sizes"][1] > 0  # cards went to the discard pile

    page.reload()
    page.wait_for_selector(".board.live")
    after = read_board(page)
    assert after is not None
    assert after["seat"] == before["seat"]
    assert after["own"] == before["own"], "the same seat shows the same cards"  # the bot cannot touch them
    assert (after["hand"], after["sizes"]) == (before["hand"], before["sizes"])
    expect(page.locator(".own-name")).to_have_text("Rae")
    expect(page.locator(".pill.watch")).to_have_count(0)
    expect(page.locator("#net")).to_have_attribute("data-status", "open")

    gate.drop()
    expect(page.locator("#net")).to_have_attribute("data-status", "reconnecting")
    shot(page, "reconnecting")
    expect(page.locator("#net")).to_have_attribute("data-status", "open")
    expect(page.locator("#toasts")).to_contain_text("you are back at your seat")
    assert gate.connections == 3  # the first page, the reload, the reconnection
    again = read_board(page)
    assert again is not None and again["own"] == before["own"]

    press(page, " ")  # and the seat still plays
    turned = read_board(page)
    assert turned is not None and (turned["hand"], turned["sizes"]) != (again["hand"], again["sizes"])
    expect(page.locator("#net")).to_have_text(re.compile(r"\d+ ms"))
