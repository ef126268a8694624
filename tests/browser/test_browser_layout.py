"""The table fits the screen (issue 11, point 1): during a round, for 2, 4, 8 and 12 seats
and at every size from a 360x640 phone to a 1920x1080 desktop (a landscape phone and a
touch phone included), the page itself never scrolls, your own cards, stack, discard,
hand and buttons and every center pile lie inside the viewport, and only the opponents'
strip scrolls (inside itself).  Ten plays of your own, by clicks and by taps, move
nothing: not the page, not the opponents' strip, not the focus.  Stack counts are big,
beside the card, with a warning look at 3 or fewer; a touch-only device shows no key
hints.  One table per seat count, one page and bots; screenshots in artifacts/."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browserkit import SETTLE_MS, Stuck, fitting, host_table, read_board, start_match, wait_settled
from playwright.sync_api import BrowserContext, Page

SIZES = ((360, 640), (844, 390), (1920, 1080), (1280, 800))
"""The sizes one page is resized to; 1280x800 last: the desktop plays happen there."""
TOUCH = (390, 844)
"""The touch phone (its own context: touch and mobile cannot be switched on a page)."""
PLAYS = 10

GEOMETRY = """() => {
  const se = document.scrollingElement;
  const inside = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
  const outside = [];
  const wanted = [
    '.own .own-card', '#turn-button', '#vote-button', '.place-button', '.own .stack-count', '.center .pile',
  ];
  let checked = 0;
  for (const selector of wanted) {
    for (const element of document.querySelectorAll(selector)) {
      const r = element.getBoundingClientRect();
      checked += 1;
      if (!(r.width > 0 && r.height > 0 && inside(r))) {
        const name = element.dataset.slot || element.dataset.pile || element.id || '';
        const box = [r.left, r.top, r.right, r.bottom].map(Math.round).join(',');
        outside.push(`${selector} ${name} [${box}]`);
      }
    }
  }
  const strip = document.querySelector('.opponents');
  // Every stack count: beside its card (to its right), big, and `low` exactly at 3 or fewer.
  const counts = [...document.querySelectorAll('.stack-slot')].map((slot) => {
    const count = slot.querySelector('.stack-count');
    const card = slot.querySelector('.card').getBoundingClientRect();
    const box = count.getBoundingClientRect();
    return {
      n: Number(count.dataset.count), low: count.classList.contains('low'),
      icon: Boolean(count.querySelector('.low-icon')),
      beside: box.left >= card.right - 1 && box.top < card.bottom && box.bottom > card.top,
      px: parseFloat(getComputedStyle(count).fontSize), own: Boolean(slot.closest('.own')),
    };
  });
  return {
    height: se.scrollHeight, width: se.scrollWidth, innerHeight, innerWidth, outside, checked,
    opponents: document.querySelectorAll('.opponents .opponent').length,
    strip: strip ? { overflows: strip.scrollHeight > strip.clientHeight + 1, top: strip.scrollTop } : null,
    counts,
  };
}"""

KEY_HINTS = """() => [...document.querySelectorAll('.own .key-hint, .own kbd, .keys-button')]
  .filter((e) => e.getBoundingClientRect().width > 0).length"""


def check_fits(page: Page, seats: int, where: str) -> dict[str, Any]:
    """The page does not scroll, and everything of your own and every pile is in view."""
    page.wait_for_selector(".own .own-card")
    seen: dict[str, Any] = page.evaluate(GEOMETRY)
    assert seen["height"] <= seen["innerHeight"], f"{where}: the page is {seen['height']} px tall"
    assert seen["width"] <= seen["innerWidth"], f"{where}: the page is {seen['width']} px wide"
    assert not seen["outside"], f"{where}: out of view: {seen['outside']}"
    assert seen["checked"] >= 7, seen  # row cards, stack, discard, hand, vote, the new pile...
    assert seen["opponents"] == seats - 1
    assert len(seen["counts"]) == seats, seen["counts"]
    for count in seen["counts"]:
        assert count["beside"], f"{where}: a stack count is not beside its card: {count}"
        assert count["low"] == (count["n"] <= 3) == count["icon"], f"{where}: {count}"
        assert count["px"] >= (18 if count["own"] else 15), f"{where}: a small stack count: {count}"
    return seen


def choose(state: dict[str, Any], stuck: Stuck) -> tuple[str, str] | None:
    """("play", slot) of a card that fits (discard first: it keeps the stack, and the round,
    going), else ("turn", "") or ("vote", "") as the simple policy says."""
    plays = sorted(fitting(state), key=lambda play: play[0] != "discard")
    if plays:
        source, position, _, _ = plays[0]
        return "play", f"row-{position}" if source == "row" else source
    key = stuck.choose(state)
    if key is None:
        return None
    return ("turn", "#turn-button") if key == " " else ("vote", "#vote-button")


def next_round(page: Page) -> None:
    """The round ended: the board behind the score sheet fits too; then ready for the next."""
    page.wait_for_selector("#ready-button")
    page.click("#ready-button")
    page.wait_for_selector(".board.live", timeout=20_000)


def play_without_moving(page: Page, seats: int, where: str, *, tap: bool) -> None:
    """Ten plays of your own through the page's controls (clicks, or taps); after each one
    the page has not scrolled, the opponents' strip kept its scroll position and (clicks)
    the card's place kept the focus."""
    strip = page.locator(".opponents")
    if strip.evaluate("(s) => s.scrollHeight > s.clientHeight + 1"):
        strip.evaluate("(s) => { s.scrollTop = Math.ceil((s.scrollHeight - s.clientHeight) / 2); }")
    stuck = Stuck(passes=1)
    plays = 0
    for _ in range(400):
        state = read_board(page)
        assert state is not None
        if state["ended"] or not state["live"]:
            check_fits(page, seats, f"{where}, the round over")
            next_round(page)
            stuck = Stuck(passes=1)
            continue
        move = choose(state, stuck)
        if move is None:
            page.wait_for_timeout(100)
            continue
        kind, slot = move
        target = f'.own [data-slot="{slot}"]' if kind == "play" else slot
        before = page.evaluate("() => [scrollY, document.querySelector('.opponents').scrollTop]")
        if tap:
            page.tap(target)
        else:
            page.click(target)
        wait_settled(page)
        page.wait_for_timeout(SETTLE_MS)  # the events drawn too: they follow the ack
        after = page.evaluate("() => [scrollY, document.querySelector('.opponents').scrollTop]")
        assert after == before, f"{where}: {kind} {slot} moved the page or the strip: {before} -> {after}"
        if kind == "play" and not tap:
            focused = page.locator(target).evaluate("(e) => e.disabled || e === document.activeElement")
            if not focused:  # a bot's Stop in between ends the round: the board gives way to the sheet
                now = read_board(page)
                assert now is None or not now["live"] or now["ended"], f"{where}: the focus left {slot}"
        if kind == "play":
            plays += 1
            if plays == PLAYS:
                check_fits(page, seats, f"{where}, after the plays")
                return
    raise AssertionError(f"{where}: only {plays} plays")


def touch_context(pages: Any, code: str, token: str) -> BrowserContext:
    """A touch phone with the same seat token: it takes the seat over."""
    context: BrowserContext = pages.context(width=TOUCH[0], height=TOUCH[1], touch=True)
    context.add_init_script(f"localStorage.setItem('ligretto.seat.{code}', {json.dumps(token)})")
    return context


@pytest.mark.parametrize("seats", [2, 4, 8, 12])
def test_the_round_fits_every_screen_and_plays_move_nothing(pages: Any, shot: Callable[..., Path], seats: int) -> None:
    page = pages.open("/")
    # Few bots play skilled (the center fills and there is something to play), many slowly
    # (the round lasts while the page is measured at every size).
    bots = (f"smart:{'skilled' if seats <= 4 else 'beginner'}",) * (seats - 1)
    code = host_table(page, "Ada", seats=seats, rounds=4, bots=bots)
    start_match(page)
    page.wait_for_selector("#countdown", state="detached")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(f"() => innerWidth === {width} && innerHeight === {height}")
        where = f"{seats} seats at {width}x{height}"
        seen = check_fits(page, seats, where)
        if seats == 12 and width < 900:
            assert seen["strip"]["overflows"], f"{where}: 11 opponents fit without scrolling?"
        assert page.evaluate(KEY_HINTS) > 0, "a mouse and keyboard device shows the key hints"
        shot(page, f"{width}x{height}")
    play_without_moving(page, seats, f"{seats} seats at 1280x800", tap=False)

    token = page.evaluate(f"() => localStorage.getItem('ligretto.seat.{code}')")
    phone = pages.open(f"/#/t/{code}", context=touch_context(pages, code, token))
    phone.wait_for_selector(".own .own-card")
    where = f"{seats} seats on a {TOUCH[0]}x{TOUCH[1]} touch phone"
    check_fits(phone, seats, where)
    assert phone.evaluate(KEY_HINTS) == 0, "a touch-only phone shows key hints"
    shot(phone, f"touch-{TOUCH[0]}x{TOUCH[1]}")
    play_without_moving(phone, seats, where, tap=True)
    shot(phone, f"touch-{TOUCH[0]}x{TOUCH[1]}-played")
