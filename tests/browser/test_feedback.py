"""Feedback you can feel, in the browser against a real server: a play that loses a race
names who was faster (and by how many ms) and flashes the pile it lost; sounds (a cue per play of your own,
refusal, countdown second, Go and the round's end) made only after the first gesture and
never while muted, the mute remembered across a reload; a buzz on refusal; reactions
reaching the other player and a spectator."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import Gate, host_table, lose_a_race, press, start_match, wait_round_over
from playwright.sync_api import BrowserContext, Page, expect

PARTY = "\U0001f389"

RECORDER = """(() => {
  // What the page asks of the Web Audio API and of navigator.vibrate, for the test to read.
  const record = { contexts: 0, notes: [], vibrations: [] };
  window.__feedback = record;
  const Real = window.AudioContext;
  class Recorded extends Real {
    constructor(...args) {
      super(...args);
      record.contexts += 1;
    }
    createOscillator() {
      const oscillator = super.createOscillator();
      const start = oscillator.start.bind(oscillator);
      oscillator.start = (...args) => {
        record.notes.push(oscillator.frequency.value);
        return start(...args);
      };
      return oscillator;
    }
  }
  window.AudioContext = Recorded;
  window.webkitAudioContext = Recorded;
  Object.defineProperty(Navigator.prototype, "vibrate", {
    configurable: true,
    value(pattern) {
      record.vibrations.push(pattern);
      return true;
    },
  });
})();"""

CUE_COUNTS = """async () => {
  // Each cue's first note has a frequency no other note has: count the cues heard.
  const { CUES } = await import("/js/sound.js");
  const counts = Object.fromEntries(Object.keys(CUES).map((name) => [name, 0]));
  for (const heard of window.__feedback.notes) {
    for (const [name, notes] of Object.entries(CUES)) {
      if (Math.round(notes[0][0] * 10) === Math.round(heard * 10)) counts[name] += 1;
    }
  }
  return counts;
}"""


def recorded(pages: Any) -> BrowserContext:
    context: BrowserContext = pages.context()
    context.add_init_script(RECORDER)
    return context


def cues(page: Page) -> dict[str, int]:
    counts: dict[str, int] = page.evaluate(CUE_COUNTS)
    return counts


def audio(page: Page) -> dict[str, Any]:
    record: dict[str, Any] = page.evaluate("() => window.__feedback")
    return record


def wait_cues(page: Page, **wanted: int) -> None:
    """Until the page has played exactly these counts of these cues."""
    page.wait_for_function(
        f"async (wanted) => {{ const counts = await ({CUE_COUNTS})(); "
        "return Object.entries(wanted).every(([name, n]) => counts[name] === n); }",
        arg=wanted,
        timeout=5000,
    )


WATCH_LOST_PILES = """() => {
  window.lostPiles = [];
  const note = () => document.querySelectorAll('.center .pile.lost').forEach((pile) => {
    if (!window.lostPiles.includes(pile.dataset.pile)) window.lostPiles.push(pile.dataset.pile);
  });
  const all = { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] };
  new MutationObserver(note).observe(document.body, all);
}"""


def own_plays(seen: list[dict[str, Any]], seat: int) -> int:
    return sum(
        1
        for message in seen
        if message.get("type") == "events"
        for event in message["events"]
        if event["type"] == "card_played" and event["player"] == seat
    )


def test_a_lost_race_names_the_winner_sounds_buzzes_and_reactions_reach_everyone(
    pages: Any, shot: Callable[..., Path]
) -> None:
    alice_context = recorded(pages)
    gate = Gate(alice_context)
    alice = pages.open("/", context=alice_context)
    assert audio(alice)["contexts"] == 0, "an AudioContext before any gesture"
    code = host_table(alice, "Alice", seats=2, rounds=1)
    bob = pages.open(f"/#/t/{code}", context=recorded(pages))
    bob.fill("#prompt-name", "Bob")
    bob.keyboard.press("Enter")
    bob.wait_for_selector(".seat .badge.me")
    watcher = pages.open(f"/#/w/{code}", context=recorded(pages))
    watcher.wait_for_selector("#seats .seat")

    # The countdown ticks and Go are heard by those who have touched the page.
    start_match(alice, bob)
    watcher.wait_for_selector(".board.live")
    wait_cues(alice, go=1)
    assert cues(alice)["tick"] >= 1 and cues(bob)["tick"] >= 1 and cues(bob)["go"] == 1
    assert audio(alice)["contexts"] == 1

    # A race for one pile; Alice's network is slow, so Bob's card gets there first.
    race = lose_a_race(gate, alice, bob)
    assert race.refusal["reason"] == "does_not_fit" and race.refusal["by"] == 1, race.refusal  # Bob's seat
    alice.evaluate(WATCH_LOST_PILES)  # the flash lasts a second of wall time: a loaded machine reads later
    gate.release()

    slot = "row-" + str(race.position) if race.source == "row" else race.source
    card = alice.locator(f'.own [data-slot="{slot}"]')
    # Fair judging measured by how much (she played after his card had landed).
    expect(card.locator(".bubble")).to_have_text(race.words())
    expect(card).to_have_attribute("data-card", race.card)
    lost = alice.locator(f'.center [data-pile="{race.pile}"]')
    alice.wait_for_function("(pile) => window.lostPiles.includes(String(pile))", arg=race.pile, timeout=5000)
    assert alice.evaluate("window.lostPiles") == [str(race.pile)], "only the pile she lost to flashes"
    shot(alice, "beaten-by-bob")
    expect(lost).not_to_have_class(re.compile(r"\blost\b"), timeout=3000)  # for a moment only
    expect(bob.locator(".center .pile.lost")).to_have_count(0)  # the winner's pile does not flash

    # One cue per play of her own that landed, one per refusal, and a buzz with it.
    refusals = sum(1 for m in gate.seen if m.get("type") == "ack" and m.get("applied") is False)
    wait_cues(alice, play=own_plays(gate.seen, 0), refused=refusals)
    assert len(audio(alice)["vibrations"]) == refusals >= 1
    assert audio(bob)["vibrations"] == []

    # Reactions: Bob's emote shows beside his name for Alice and the spectator, announced.
    expect(watcher.locator("#reaction-bar")).to_have_count(0)  # spectators cannot send
    bob.click(f'#reaction-bar [data-emote="{PARTY}"]')
    for page in (alice, watcher):
        expect(page.locator('[data-seat="1"] > header .reaction-badge')).to_have_text(PARTY)
    expect(bob.locator(".own > header .reaction-badge")).to_have_text(PARTY)
    shot(alice, "reaction")
    expect(alice.locator("#reaction-announce")).to_have_text(f"Bob reacted {PARTY}")
    expect(watcher.locator("#reaction-announce")).to_have_text(f"Bob reacted {PARTY}")
    expect(alice.locator('[data-seat="1"] .reaction-badge')).to_have_count(0, timeout=5000)  # then it goes
    bob.click(f'#reaction-bar [data-emote="{PARTY}"]')
    bob.click(f'#reaction-bar [data-emote="{PARTY}"]')  # within a second: refused by the server
    expect(bob.locator(".toast", has_text="Not so fast: one reaction a second")).to_be_visible()

    # Muted, Alice hears nothing more; Bob hears the round end.
    alice.click("#mute-button")
    expect(alice.locator("#mute-button")).to_have_attribute("aria-pressed", "true")
    notes = len(audio(alice)["notes"])
    stops = cues(bob)["stop"]
    press(alice, "v")
    press(bob, "v")
    wait_round_over(alice)
    wait_round_over(bob)
    wait_cues(bob, stop=stops + 1)
    assert len(audio(alice)["notes"]) == notes, "a sound while muted"
    expect(bob.locator("#mute-button")).to_have_attribute("aria-pressed", "false")

    # The spectator never touched the page: no AudioContext, no sound.
    assert audio(watcher)["contexts"] == 0 and audio(watcher)["notes"] == []

    # The mute is remembered by the browser.
    alice.reload()
    alice.wait_for_selector("body[data-ready]")
    expect(alice.locator("#mute-button")).to_have_attribute("aria-pressed", "true")
    assert audio(alice)["contexts"] == 0
    alice.click("#mute-button")
    expect(alice.locator("#mute-button")).to_have_attribute("aria-pressed", "false")
