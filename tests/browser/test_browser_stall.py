"""A network that stops answering mid-round: the page says "connection lost" within 3 s
(never a stale round trip), the actions sent into the stall are shown as not sent, the
other player sees the seat away (the server's silence deadline), and when the network is
back the page reconnects by itself to its seat with the server's board and reports every
unanswered action -- none is lost silently."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import Gate, fitting, host_table, join_by_link, key_of, press, read_board, start_match, wait_settled
from playwright.sync_api import Page, expect

LOST_WITHIN_MS = 3000

# Every change of the badge's status, with the page's clock: when "lost" was shown.
RECORD_NET = """() => {
  window.netLog = [];
  const badge = document.getElementById('net');
  new MutationObserver(() => window.netLog.push([badge.dataset.status, performance.now(), badge.textContent]))
    .observe(badge, { attributes: true, attributeFilter: ['data-status'], childList: true, subtree: true });
}"""

# What another page shows of a seat: the exposed row cards, stack top and count, discard top, hand.
OPPONENT = """(seat) => {
  const area = document.querySelector(`.opponent[data-seat="${seat}"]`);
  const top = (slot) => area.querySelector(`[data-slot="${slot}"] .card`)?.dataset.card || null;
  const rows = [...area.querySelectorAll('.opp-row [data-slot^="row-"]')].map((e) => e.dataset.slot);
  return {
    row: rows.map(top),
    stack: top('stack'),
    stack_size: Number(area.querySelector('[data-slot="stack"] .stack-count').dataset.count),
    discard: top('discard'),
    hand: area.querySelector('.hand-count').textContent,
  };
}"""


def own_as_others_see_it(state: dict[str, Any]) -> dict[str, Any]:
    """The page's own area written as an opponent's is shown."""
    cards = {(slot["source"], slot["position"]): slot["card"] for slot in state["own"]}
    rows = sorted(position for source, position in cards if source == "row")
    return {
        "row": [cards[("row", position)] for position in rows],
        "stack": cards[("stack", 0)],
        "stack_size": state["sizes"][0],
        "discard": cards[("discard", 0)],
        "hand": f"hand {state['hand']}",
    }


def same_as_others_see_it(alice: Page, bob: Page) -> dict[str, Any]:
    """Alice's own area once Bob's page shows her seat the same way (his events may lag)."""
    for _ in range(100):
        state = read_board(alice)
        assert state is not None
        if own_as_others_see_it(state) == bob.evaluate(OPPONENT, 0):
            return state
        alice.wait_for_timeout(50)
    raise AssertionError(f"Bob sees {bob.evaluate(OPPONENT, 0)}, Alice shows {own_as_others_see_it(state)}")


def sent_acts(frames: list[str | bytes]) -> list[dict[str, Any]]:
    messages = [json.loads(frame) for frame in frames]
    return [m["action"] for m in messages if m.get("type") == "act"]


def test_a_stalled_connection_is_lost_within_3_s_and_comes_back_with_every_action_reported(
    pages: Any, shot: Callable[..., Path]
) -> None:
    context = pages.context()
    # Actions are marked not sent after 0.5 s instead of 2 s (docs/clients.md); the
    # heartbeat keeps its default timings, which the 3 s promise is about.
    context.add_init_script("window.LIGRETTO_NET = { notSentMs: 500 };")
    gate = Gate(context)
    alice = pages.open("/", context=context)
    code = host_table(alice, "Alice", seats=2, rounds=1)
    bob = pages.open(f"/#/t/{code}")
    join_by_link(bob, "Bob")
    start_match(alice, bob)
    net = alice.locator("#net")
    expect(net).to_have_text(re.compile(r"\d+ ms"))

    # Alice turns her hand until she has a card to play (then nobody else plays: it stays
    # so). Turning shows only every third card of her hand, so a deal may show her no 1 at
    # all: every third turn Bob plays a card if he has one, and opens piles for her.
    for turn in range(60):
        state = read_board(alice)
        assert state is not None and state["live"]
        if fitting(state):
            break
        press(alice, " ")
        bobs = read_board(bob)
        if turn % 3 == 2 and bobs is not None and (bob_plays := fitting(bobs)):
            press(bob, key_of(bob_plays[0][0], bob_plays[0][1]))
            wait_settled(alice)
    bobs = read_board(bob)
    assert bobs is not None
    alice.wait_for_function(  # Bob's last play has reached Alice's board too
        "(n) => [...document.querySelectorAll('.center .pile[data-colour]')]"
        ".reduce((sum, p) => sum + Number(p.dataset.top), 0) === n",
        arg=sum(pile["top"] for pile in bobs["piles"]),
    )
    state = read_board(alice)
    assert state is not None
    plays = fitting(state)
    assert plays, "no card to play after 60 turns"
    source, position, card, _ = plays[0]
    before = read_board(alice)
    assert before is not None

    # The network stalls: a play and a turn of the hand go into it.
    alice.evaluate(RECORD_NET)
    stalled_at = alice.evaluate("performance.now()")
    gate.stall()
    alice.keyboard.press(key_of(source, position))
    alice.wait_for_timeout(70)  # the play, then the turn, while the connection is stalled
    alice.keyboard.press("Space")
    slot = alice.locator(f'.own [data-slot="{"row-" + str(position) if source == "row" else source}"]')
    turn = alice.locator("#turn-button")
    expect(slot).to_have_class(re.compile(r"\bpending\b"))

    expect(net).to_have_attribute("data-status", "lost", timeout=LOST_WITHIN_MS + 1000)
    log = alice.evaluate("window.netLog")
    lost_at = next(at for status, at, _ in log if status == "lost")
    assert lost_at - stalled_at <= LOST_WITHIN_MS, f"lost shown {lost_at - stalled_at:.0f} ms after the stall"
    expect(net).to_contain_text("Connection lost")
    # No round trip is shown from the stall on (the last figure would be a lie).
    assert not any(re.search(r"\d+ ms", text) for status, at, text in log if at >= lost_at), log

    # Both actions are shown as not sent, on the card and on the hand, and read out.
    expect(slot).to_have_class(re.compile(r"\bnot-sent\b"))
    expect(slot.locator(".not-sent-mark")).to_have_text("Not sent")
    expect(turn).to_have_class(re.compile(r"\bnot-sent\b"))
    expect(turn.locator(".not-sent-mark")).to_have_text("Not sent")
    expect(alice.locator("#announce")).to_contain_text("Not sent")
    # A vote while the connection is down cannot even be sent: not sent at once.
    alice.keyboard.press("v")
    expect(alice.locator("#vote-button")).to_have_class(re.compile(r"\bnot-sent\b"))
    kinds = [action["kind"] for action in sent_acts(gate.lost)]
    assert kinds == ["play", "turn"], f"the page sent {kinds} into the stall"
    shot(alice, "lost")

    # The others see Alice away: the server found her connection silent.
    away = bob.locator('.opponent[data-seat="0"] .badge.warn')
    expect(away).to_have_text("away", timeout=12_000)
    shot(bob, "away")

    # The network is back: the page reconnects by itself, to its seat.
    gate.unstall()
    expect(net).to_have_attribute("data-status", "open", timeout=15_000)
    toasts = alice.locator("#toasts")
    expect(toasts).to_contain_text("you are back at your seat")
    expect(toasts).to_contain_text("Not confirmed – the board is up to date")
    expect(alice.locator(".not-sent")).to_have_count(0)
    wait_settled(alice)
    expect(away).to_have_count(0)
    expect(net).to_have_text(re.compile(r"\d+ ms"))

    # The board is the server's: what Bob sees of Alice's seat, and nothing was applied.
    after = same_as_others_see_it(alice, bob)
    assert after["seat"] == before["seat"] == 0
    assert after["own"] == before["own"] and after["hand"] == before["hand"], "the lost actions did not happen"
    assert not after["voted"]

    # The seat plays on: the same card now goes to its pile.
    press(alice, key_of(source, position))
    played = same_as_others_see_it(alice, bob)
    assert card not in [
        slot["card"] for slot in played["own"] if (slot["source"], slot["position"]) == (source, position)
    ]
    expect(alice.locator(".own-card.refused")).to_have_count(0)

    # A slow network, not a dead one: the answer to a turn comes after the turn was marked
    # not sent; the mark goes and the turn is shown, with no notice.
    wait_settled(alice)
    gate.hold()
    mark = len(gate.seen)
    alice.keyboard.press("Space")
    expect(turn).to_have_class(re.compile(r"\bnot-sent\b"))
    gate.release()
    expect(turn).not_to_have_class(re.compile(r"\bnot-sent\b"))
    wait_settled(alice)
    assert any(m.get("type") == "ack" and m.get("applied") for m in gate.seen[mark:]), "the turn was acknowledged"
    slow = same_as_others_see_it(alice, bob)
    assert (slow["hand"], slow["sizes"]) != (played["hand"], played["sizes"])
    played = slow

    # Half a stall: the server gets Alice's turn of the hand, its answer never reaches her.
    # The page gives the silent socket up, comes back, and the fresh board shows the turn
    # the server applied -- reported, as not confirmed, not silently.
    wait_settled(alice)
    quiet = alice.locator(".toast", has_text="Not confirmed")
    expect(quiet).to_have_count(0, timeout=6000)  # the first notice went away
    alice.evaluate(RECORD_NET)
    gate.deafen()
    alice.keyboard.press("Space")
    # "lost" lasts only until the new socket opens (the network works): read it from the log.
    alice.wait_for_function("() => window.netLog.some(([status]) => status === 'lost')", timeout=LOST_WITHIN_MS + 1000)
    expect(net).to_have_attribute("data-status", "open", timeout=15_000)
    expect(quiet).to_have_count(1)
    wait_settled(alice)
    turned = same_as_others_see_it(alice, bob)
    assert (turned["hand"], turned["sizes"]) != (played["hand"], played["sizes"]), (
        "the turn the server applied is shown"
    )
