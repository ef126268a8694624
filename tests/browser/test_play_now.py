"""Play now and the invite page in the browser: one click from the lobby to a running
round against three bots (a card played, the rematch), and an invite link that shows the
table before joining, shares or copies itself, and carries a QR code."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import (
    RECORD_FRAMES,
    fitting,
    frames,
    host_table,
    key_of,
    no_horizontal_overflow,
    play_keys_until_round_ends,
    press,
    read_board,
)
from playwright.sync_api import Page, Route, expect

LEAVE_IN_FLIGHT = """async () => {
  const deadline = Date.now() + 15000;
  while (!document.querySelector('.flying') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  if (!document.querySelector('.flying')) return -1;
  const left = new Promise((r) => addEventListener('hashchange', r, { once: true }));
  location.hash = '#/';
  await left;
  await new Promise((r) => setTimeout(r, 0));
  return document.querySelectorAll('.flying').length;
}"""
"""Wait for a card in flight (-1: none came), go back to the lobby, and count what still flies."""


def own_plays(page: Page) -> list[str]:
    """The cards this page's seat played to the center, as the server's events say."""
    cards: list[str] = page.evaluate(
        """() => {
          const seat = window.__frames.filter((m) => m.type === 'welcome').pop().seat;
          return window.__frames.filter((m) => m.type === 'events').flatMap((m) => m.events)
            .filter((e) => e.type === 'card_played' && e.player === seat).map((e) => e.card);
        }"""
    )
    return cards


def play_one_card(page: Page, timeout_s: float = 40.0) -> str:
    """Turn the hand until one of the page's own cards fits a pile, then play it; the card."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = read_board(page)
        assert state is not None and not state["ended"], "the round ended before a card was played"
        plays = fitting(state)
        press(page, key_of(plays[0][0], plays[0][1]) if plays else " ")
        if plays and own_plays(page) == [plays[0][2]]:
            return str(plays[0][2])
    raise AssertionError("no card of the page could be played")


def test_play_now_is_one_click_to_a_running_round_and_the_rematch_deals_again(
    pages: Any, shot: Callable[..., Path]
) -> None:
    # A first visit, no name typed: the page plays as "Player", at the level it picked.
    context = pages.context()
    context.add_init_script(RECORD_FRAMES)
    page = pages.open("/", context=context)
    shot(page, "lobby-1280x800")
    page.set_viewport_size({"width": 390, "height": 844})
    expect(page.locator("#play-now-button")).to_be_in_viewport()
    shot(page, "lobby-390x844")
    page.select_option("#play-now-level", "beginner")
    with page.expect_request("**/api/tables") as posted:
        page.click("#play-now-button")
    assert json.loads(posted.value.post_data or "{}") == {"bots": ["smart:beginner"] * 3, "start": True}
    page.wait_for_selector("#countdown, .board.live")
    expect(page.locator(".board .own")).to_have_count(1)
    expect(page.locator(".opponents .opponent")).to_have_count(3)
    expect(page.locator(".board .own")).to_contain_text("Player")
    page.wait_for_selector(".board.live")
    card = play_one_card(page)
    assert card, "a card of the page's own went to the center"
    [table] = frames(page, "table")[-1:]
    assert [s["bot"] for s in table["seats"]].count("smart:beginner") == 3
    # Change bots: back in the lobby the level chosen is still there, and so is the name.
    # Left while a bot's card flies to its pile: the flight goes with the table.
    assert page.evaluate(LEAVE_IN_FLIGHT) == 0, "a card of the table left still flies over the lobby"
    expect(page.locator("#play-now-level")).to_have_value("beginner")
    expect(page.locator("#player-name")).to_have_value("Player")

    # A short match against fast bots (the test asks the server for one round of
    # `machine` bots instead of five rounds), played to its end, then the rematch.
    context = pages.context()
    context.add_init_script(RECORD_FRAMES)
    quick = pages.open("/", context=context)

    def shorter(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        body.update(bots=["smart:machine"] * 3, options={"match_end": "rounds:1"})
        route.continue_(post_data=json.dumps(body))

    quick.route("**/api/tables", shorter)
    quick.fill("#player-name", "Quinn")
    quick.click("#play-now-button")
    quick.wait_for_selector(".board.live, .banner, #score-sheet")
    if not quick.locator("#score-sheet").count():
        play_keys_until_round_ends(quick, passes=1)
    rematch = quick.locator("#rematch-button")
    expect(rematch).to_be_visible(timeout=20_000)
    goes = len(frames(quick, "go"))
    rematch.click()
    quick.wait_for_function(f"window.__frames.filter((m) => m.type === 'go').length > {goes}", timeout=15_000)
    last = frames(quick, "table")[-1]
    assert last["round"] == 1 and [s["bot"] for s in last["seats"]].count("smart:machine") == 3


SHARE_STUB = """{
  window.__shared = [];
  Object.defineProperty(Navigator.prototype, 'share', {
    configurable: true, value: async (data) => { window.__shared.push(data); },
  });
}"""
NO_SHARE = "delete Navigator.prototype.share;"


def test_the_invite_page_shows_the_table_before_joining_and_the_invite_shares(
    pages: Any, server: Any, shot: Callable[..., Path]
) -> None:
    # The host, without a share sheet: the share button copies the link.
    host_context = pages.context()
    host_context.add_init_script(NO_SHARE)
    host_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    host = pages.open("/", context=host_context)
    code = host_table(host, "Alice", seats=4, rounds=3, bots=("greedy:casual",))
    link = f"{server.url}/#/t/{code}"
    host.click("#share-invite")
    expect(host.locator(".toast-ok")).to_have_text("Invite link copied.")
    assert host.evaluate("navigator.clipboard.readText()") == link
    qr = host.locator("#invite-qr")
    expect(qr).to_have_attribute("alt", f"QR code of the invite link to table {code}")
    host.wait_for_function("document.querySelector('#invite-qr').complete")
    assert host.evaluate("document.querySelector('#invite-qr').naturalWidth") > 0, "the QR code loaded"

    # A first visit by the link, on a phone, with a share sheet: the table before joining.
    guest_context = pages.context(width=390, height=844)
    guest_context.add_init_script(SHARE_STUB)
    guest = pages.open(f"/?t={code}", context=guest_context)
    about = guest.locator("#invite-about")
    expect(about.locator("#invite-title")).to_have_text("Alice invites you to play Ligretto")
    expect(about.locator("#invite-players li")).to_have_count(2)
    expect(about.locator("#invite-players li").nth(0)).to_contain_text("Alice")
    expect(about.locator('#invite-players li[data-bot="greedy:casual"]')).to_contain_text("bot")
    expect(about.locator("#invite-rules")).to_have_text("Custom · Rounds: 3")
    expect(about.locator("#invite-free")).to_have_text("Free seats: 2")
    assert guest.locator("#prompt-name").is_visible()
    width, viewport = no_horizontal_overflow(guest)
    assert width <= viewport
    shot(guest, "invite-390x844")
    guest.set_viewport_size({"width": 1280, "height": 800})
    shot(guest, "invite-1280x800")

    # Joined: the share button opens the share sheet with the link; the QR fits 360 px.
    guest.set_viewport_size({"width": 360, "height": 740})
    guest.fill("#prompt-name", "Zoe")
    guest.keyboard.press("Enter")
    guest.wait_for_selector(".seat .badge.me")
    guest.click("#share-invite")
    guest.wait_for_function("window.__shared.length === 1")
    shared = guest.evaluate("window.__shared[0]")
    assert shared["url"] == link and shared["text"]
    guest.wait_for_function("document.querySelector('#invite-qr').naturalWidth > 0")
    box = guest.locator("#invite-qr").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360 and box["width"] >= 150
    width, viewport = no_horizontal_overflow(guest)
    assert width <= viewport, f"the waiting room is {width} px wide at 360 px"
    shot(guest, "waiting-360", full_page=True)
    # The host's page now counts Zoe; a late guest's invite page says one seat fewer.
    expect(host.locator("#seats .seat:not(.free)")).to_have_count(3)
    late = pages.open(f"/#/t/{code}", width=360)
    expect(late.locator("#invite-free")).to_have_text("Free seats: 1")
    expect(late.locator("#invite-players li")).to_have_count(3)
