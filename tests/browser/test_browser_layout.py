"""The table fits the screen (issue 11, point 1; issue 28): during a round, for 2, 4, 8 and
12 seats and at every size from a 360x640 phone to a 1920x1080 desktop (a landscape phone
and a 390x844 touch phone included), the page itself never scrolls, your own cards,
stack, discard, hand and buttons and every center pile lie inside the viewport, and
every opponent's chip lies whole in view at once (11 at 12 seats on a 360x640 phone), its
content inside it, its name whole (or, were it too long, cut in the middle: the end that
tells "Smart bot 1" from "Smart bot 11" always shows).  The round's number is never cut,
the own Ligretto stack says what it is, and a refused card's words lie over that card
alone, never over another own card or button.  Ten plays of your own, by clicks and by
taps, move nothing: not the page, not the opponents' strip, not the focus.  Stack counts
are big, beside the card, with a warning look at 3 or fewer; a touch-only device shows
no key hints.  Before the table, the lobby shows Play now without scrolling on both
phones.  One table per seat count, one page and bots; screenshots in artifacts/."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browserkit import SETTLE_MS, Stuck, fitting, host_table, read_board, start_match, wait_settled
from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

FOCUS_KEPT = """(selector) => {
  const e = document.querySelector(selector);
  return Boolean(e) && (e.disabled || e === document.activeElement);
}"""
"""Whether a played place's control has the focus (or is disabled, its card in flight)."""
FOCUS_BACK_MS = 2000

PHONES = ((360, 640), (390, 844))
"""The two phones of issue 28: the smallest, and a tall one."""
SIZES = ((360, 640), (844, 390), (1920, 1080), (1280, 800))
"""The sizes one page is resized to; 1280x800 last: the desktop plays happen there."""
TOUCH = PHONES[1]
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
  // Every opponent's chip: whole in view (in the viewport and not scrolled out of its strip),
  // its content inside it, and its name's parts (head, tail) each cut or not.
  const within = (r, box) => r.left >= box.left - 0.5 && r.top >= box.top - 0.5
    && r.right <= box.right + 0.5 && r.bottom <= box.bottom + 0.5;
  const cut = (element) => Boolean(element) && element.scrollWidth > element.clientWidth + 0.5;
  const screen = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
  const chips = [...document.querySelectorAll('.opponents .opponent')].map((chip) => {
    const box = chip.getBoundingClientRect();
    const tail = chip.querySelector('.name-tail');
    const tailBox = tail.getBoundingClientRect();
    return {
      name: chip.querySelector('.opp-name').textContent, tail: tail.textContent,
      seen: within(box, screen) && within(box, strip.getBoundingClientRect()),
      spills: chip.scrollWidth > chip.clientWidth + 0.5,
      tailShown: tailBox.width > 0 && !cut(tail) && within(tailBox, box),
      whole: !cut(chip.querySelector('.name-head')) && !cut(tail),
    };
  });
  const round = document.querySelector('#round-number');
  const roundBox = round && round.getBoundingClientRect();
  const label = document.querySelector('.own .stack-label');
  const labelBox = label && label.getBoundingClientRect();
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
    counts, chips,
    round: round && { text: round.textContent, cut: cut(round),
      shown: within(roundBox, screen) && within(roundBox, round.parentElement.getBoundingClientRect()) },
    stackLabel: label && { text: label.textContent, shown: labelBox.width > 0 && within(labelBox, screen) },
  };
}"""

COVERED = """() => {
  // The refused card's words: in view, and over no other own card or button.
  const bubble = document.querySelector('.own-card.refused .bubble');
  if (!bubble) return null;
  const box = bubble.getBoundingClientRect();
  const overlap = (r) => Math.min(box.right, r.right) - Math.max(box.left, r.left) > 1
    && Math.min(box.bottom, r.bottom) - Math.max(box.top, r.top) > 1;
  const others = [...document.querySelectorAll('.own .own-card, #turn-button, #vote-button')]
    .filter((control) => !control.contains(bubble));
  return {
    text: bubble.textContent,
    inView: box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight,
    covers: others.filter((control) => overlap(control.getBoundingClientRect())).map((c) => c.dataset.slot || c.id),
  };
}"""

OWN_AT_REST = """() => document.querySelector('.own').getAnimations({ subtree: true })
  .every((animation) => animation.playState !== 'running')"""
"""No animation of one's own area is running (a refused card's shake, its return)."""

KEY_HINTS = """() => [...document.querySelectorAll('.own .key-hint, .own kbd, .keys-button')]
  .filter((e) => e.getBoundingClientRect().width > 0).length"""


def check_fits(page: Page, seats: int, where: str) -> dict[str, Any]:
    """The page does not scroll, and everything of your own and every pile is in view."""
    page.wait_for_selector(".own .own-card")
    # Judged at rest: a refused card shakes (its .card moved 5 px off its count for 0.36 s;
    # a loaded fresh clone read the stack's count "not beside" it then).
    page.wait_for_function(OWN_AT_REST)
    seen: dict[str, Any] = page.evaluate(GEOMETRY)
    assert seen["height"] <= seen["innerHeight"], f"{where}: the page is {seen['height']} px tall"
    assert seen["width"] <= seen["innerWidth"], f"{where}: the page is {seen['width']} px wide"
    assert not seen["outside"], f"{where}: out of view: {seen['outside']}"
    assert seen["checked"] >= 7, seen  # row cards, stack, discard, hand, vote, the new pile...
    assert seen["opponents"] == seats - 1
    # Every opponent at once, none scrolled out, its cards inside its chip; every name's
    # tail in view, telling it from the others ("ot 2", "t 12"), and whole on a desktop.
    assert [chip["name"] for chip in seen["chips"] if not chip["seen"]] == [], f"{where}: opponents out of view"
    assert not seen["strip"]["overflows"], f"{where}: the opponents' strip scrolls"
    assert [chip["name"] for chip in seen["chips"] if chip["spills"]] == [], f"{where}: a chip's cards stick out"
    for chip in seen["chips"]:
        assert chip["tailShown"] and chip["name"].endswith(chip["tail"]) and len(chip["tail"]) >= 4, f"{where}: {chip}"
    assert len({chip["tail"] for chip in seen["chips"]}) == seats - 1, f"{where}: names told apart by their tails"
    if seen["innerWidth"] >= 1280:
        assert [chip["name"] for chip in seen["chips"] if not chip["whole"]] == [], f"{where}: names cut"
    assert seen["round"] and seen["round"]["shown"] and not seen["round"]["cut"], f"{where}: the round {seen['round']}"
    assert seen["stackLabel"] == {"text": "Ligretto stack", "shown": True}, f"{where}: {seen['stackLabel']}"
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
            # the place's control keeps the focus, or gets it back at the drawing that enables
            # it again (board.js, restoreFocus): on a loaded machine that may come after SETTLE_MS
            try:
                focused = bool(page.wait_for_function(FOCUS_KEPT, arg=target, timeout=FOCUS_BACK_MS))
            except PlaywrightTimeoutError:
                focused = False
            if not focused:  # a bot's Stop in between ends the round: the board gives way to the sheet
                now = read_board(page)
                assert now is None or not now["live"] or now["ended"], f"{where}: the focus left {slot}"
        if kind == "play":
            plays += 1
            if plays == PLAYS:
                check_fits(page, seats, f"{where}, after the plays")
                return
    raise AssertionError(f"{where}: only {plays} plays")


def refuse_one(page: Page, where: str, *, tap: bool) -> str:
    """A card that fits no pile (the stack's or the discard's first: they lie under the row),
    played: its refusal's words show over that card alone, in view; the words."""
    for _ in range(12):
        state = read_board(page)
        assert state is not None and state["live"], f"{where}: no live round to refuse a card in"
        fit = {(source, position) for source, position, _, _ in fitting(state)}
        stuck = [slot for slot in state["own"] if slot["card"] and (slot["source"], slot["position"]) not in fit]
        if stuck:
            slot = min(stuck, key=lambda each: each["source"] == "row")
            card = page.locator(f".own-card[data-source='{slot['source']}'][data-position='{slot['position']}']")
            card.tap() if tap else card.click()
            bubble = page.evaluate(COVERED)  # the page refuses it at once, before asking the server
            if bubble is None:  # a bot's card made it fit meanwhile: it went to the center
                wait_settled(page)
                continue
            assert bubble["inView"], f"{where}: the refusal is out of view: {bubble}"
            assert bubble["covers"] == [], f"{where}: {slot['source']}'s refusal covers {bubble['covers']}"
            # The card has shaken and come back (its words stay a while longer).
            card.evaluate(
                "(c) => Promise.all(c.getAnimations({ subtree: true }).map((a) => a.finished.catch(() => 0)))"
            )
            return str(bubble["text"])
        page.tap("#turn-button") if tap else page.click("#turn-button")
        wait_settled(page)
    raise AssertionError(f"{where}: no card stayed without a pile for twelve tries")


def play_now_in_view(page: Page) -> None:
    """The lobby on both phones: Play now whole in view without scrolling."""
    for width, height in PHONES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(f"() => innerWidth === {width}")
        box = page.locator("#play-now-button").bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, f"{width}x{height}: {box}"
    page.set_viewport_size({"width": 1280, "height": 800})


def touch_context(pages: Any, code: str, token: str) -> BrowserContext:
    """A touch phone with the same seat token: it takes the seat over."""
    context: BrowserContext = pages.context(width=TOUCH[0], height=TOUCH[1], touch=True)
    context.add_init_script(f"localStorage.setItem('ligretto.seat.{code}', {json.dumps(token)})")
    return context


@pytest.mark.parametrize("seats", [2, 4, 8, 12])
def test_the_round_fits_every_screen_and_plays_move_nothing(pages: Any, shot: Callable[..., Path], seats: int) -> None:
    page = pages.open("/")
    play_now_in_view(page)
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
        check_fits(page, seats, where)
        assert page.evaluate(KEY_HINTS) > 0, "a mouse and keyboard device shows the key hints"
        shot(page, f"{width}x{height}")
        if (width, height) == PHONES[0]:
            refuse_one(page, where, tap=False)
            shot(page, f"{width}x{height}-refused")
    play_without_moving(page, seats, f"{seats} seats at 1280x800", tap=False)

    token = page.evaluate(f"() => localStorage.getItem('ligretto.seat.{code}')")
    phone = pages.open(f"/#/t/{code}", context=touch_context(pages, code, token))
    phone.wait_for_selector(".own .own-card")
    where = f"{seats} seats on a {TOUCH[0]}x{TOUCH[1]} touch phone"
    check_fits(phone, seats, where)
    assert phone.evaluate(KEY_HINTS) == 0, "a touch-only phone shows key hints"
    shot(phone, f"touch-{TOUCH[0]}x{TOUCH[1]}")
    refuse_one(phone, where, tap=True)
    play_without_moving(phone, seats, where, tap=True)
    shot(phone, f"touch-{TOUCH[0]}x{TOUCH[1]}-played")
