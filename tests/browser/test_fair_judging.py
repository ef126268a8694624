"""Fair judging as the browser takes part in it and shows it, against a real server: the
page stamps its actions with the server's clock (even when its own clock is an hour off)
and its pings echo the last pong; a race lost to a real WebSocket rival shows the card in
flight toward the pile before the answer comes, settles it back when judged, and says who
was faster and by how many ms, and a spectator sees the race; the host sets the table's
judging and its wait for *Ready* (the create form, then the waiting room) and every page
shows them; the words of every kind of race."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from browserkit import Gate, center_of, fitting, key_of, press, read_board, wait_settled
from playwright.sync_api import Page, WebSocket, expect
from wsrival import Rival

from ligretto.engine.races import DEFAULT_WINDOW_MS, MAX_WINDOW_MS
from ligretto.server.table.timing import MAX_READY_S, MIN_READY_S, READY_S

SHIFT_S = 3600.25
"""How far ahead of the real time the page's clock runs in the clock-sync test."""
SHIFTED_CLOCK = f"""(() => {{
  const real = Date.now.bind(Date);
  Date.now = () => real() + {SHIFT_S * 1000};
}})();"""
SYNC_SLACK_S = 0.05
"""How far off the server's clock a stamp may be on this machine: half a round trip."""
RACE_TRIES = 5
"""Races set up for the one Alice wins, until one is told (within its 250 ms)."""

Play = tuple[str, int, str, int | None]


class Frames:
    """Every frame of a page's game WebSocket, in order: (direction, message)."""

    def __init__(self, page: Page) -> None:
        self.frames: list[tuple[str, dict[str, Any]]] = []
        page.on("websocket", self._listen)

    def _listen(self, socket: WebSocket) -> None:
        if socket.url.endswith("/ws"):
            socket.on("framesent", lambda frame: self.frames.append(("sent", json.loads(str(frame)))))
            socket.on("framereceived", lambda frame: self.frames.append(("received", json.loads(str(frame)))))

    def of(self, direction: str, kind: str) -> list[dict[str, Any]]:
        return [m for d, m in self.frames if d == direction and m.get("type") == kind]

    def last(self, direction: str, kind: str) -> int:
        return max(i for i, (d, m) in enumerate(self.frames) if d == direction and m.get("type") == kind)

    def pong_after(self, index: int) -> bool:
        """Whether a ping sent after frame ``index`` has had its pong."""
        pinged = {m["t"] for d, m in self.frames[index:] if d == "sent" and m["type"] == "ping"}
        return any(m["t"] in pinged for d, m in self.frames[index:] if d == "received" and m["type"] == "pong")

    def until(self, page: Page, done: Callable[[], bool], timeout_s: float = 5.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, "the frames never came"
            page.wait_for_timeout(50)  # lets Playwright deliver the next frames


def join_by_invite(page: Page, name: str) -> None:
    page.fill("#prompt-name", name)
    page.keyboard.press("Enter")
    page.wait_for_selector(".seat .badge.me")


def create_table(page: Page, name: str, *, seats: int, window_ms: int | None = None, ready_s: int | None = None) -> str:
    """From the lobby page: a table of ``seats`` (one round), the judging window and the
    wait for *Ready* set in the create form when given; its invite code once the waiting
    room shows."""
    page.fill("#player-name", name)
    page.fill("#create-seats", str(seats))
    page.locator("#create-seats").dispatch_event("change")
    for field, value in (("#create-window", window_ms), ("#create-ready", ready_s)):
        if value is not None:
            page.fill(field, str(value))
            page.locator(field).dispatch_event("change")
    page.click(".create details.options summary")
    page.select_option("#create-match_end-kind", "rounds")
    page.fill("#create-match_end", "1")
    page.locator("#create-match_end").dispatch_event("change")
    page.click("#create-button")
    page.wait_for_selector("#seats .seat")
    return page.url.rsplit("/", 1)[1]


def test_acts_are_stamped_with_the_servers_clock_and_pings_echo_the_last_pong(pages: Any) -> None:
    context = pages.context()
    context.add_init_script(SHIFTED_CLOCK)  # the player's computer clock is an hour off
    alice = context.new_page()
    alice.on("pageerror", lambda error: pages.errors.append(str(error)))
    frames = Frames(alice)
    alice.goto(pages.server.url + "/")
    alice.wait_for_selector("body[data-ready]")
    create_table(alice, "Alice", seats=2)
    alice.select_option("#bot-strategy", "random")
    alice.select_option("#bot-level", "beginner")
    alice.click("#add-bot")
    alice.wait_for_selector("#seats li[data-bot]")
    alice.click("#start-button")
    alice.wait_for_selector(".board.live")
    # A few seconds of play: her cards when they fit, else the hand turned.
    deadline = time.monotonic() + 3.5
    while time.monotonic() < deadline:
        state = read_board(alice)
        assert state is not None
        if state["ended"]:
            break
        plays = fitting(state)
        press(alice, key_of(plays[0][0], plays[0][1]) if plays else " ")
    wait_settled(alice)
    frames.until(alice, lambda: frames.pong_after(frames.last("sent", "act")))

    # Every act carries `t` on the SERVER's clock: after the last pong before it (its
    # server_t), before the pong of the first ping sent after it.
    ordered = frames.frames
    acts = [i for i, (d, m) in enumerate(ordered) if d == "sent" and m["type"] == "act"]
    assert len(acts) >= 5, f"only {len(acts)} actions in 3.5 s"
    pongs = {m["t"]: m["server_t"] for d, m in ordered if d == "received" and m["type"] == "pong"}
    for i in acts:
        t = ordered[i][1]["t"]
        before = [m["server_t"] for d, m in ordered[:i] if d == "received" and m["type"] == "pong"]
        after = [m["t"] for d, m in ordered[i:] if d == "sent" and m["type"] == "ping" and m["t"] in pongs]
        assert before and after, "no pong around an act"
        assert before[-1] - SYNC_SLACK_S <= t <= pongs[after[0]] + SYNC_SLACK_S, (before[-1], t, pongs[after[0]])
        assert abs(t - time.time()) < 30, "the stamp is on the page's own clock, not the server's"

    # Every ping after the first echoes the last pong received and how long it was held;
    # they keep running while the round is played.
    pings = [(i, m) for i, (d, m) in enumerate(ordered) if d == "sent" and m["type"] == "ping"]
    assert "echo" not in pings[0][1] and "held" not in pings[0][1]
    for i, ping in pings[1:]:
        last = [m for d, m in ordered[:i] if d == "received" and m["type"] == "pong"][-1]
        assert ping["echo"] == last["server_t"], (ping, last)
        assert 0 <= ping["held"] <= 1.5, ping
    go = next(i for i, (d, m) in enumerate(ordered) if d == "received" and m["type"] == "go")
    assert sum(1 for i, _ in pings if i > go) >= 3, "the pings stopped during play"


LIFT = """async (card, pile) => {
  // How far the card has moved toward the pile's centre, as a share of the way (0: not at
  // all), once its transition has run, and whether it is marked in flight.
  await Promise.all(card.getAnimations().map((a) => a.finished.catch(() => 0)));
  const m = new DOMMatrix(getComputedStyle(card).transform);
  const box = card.getBoundingClientRect();
  const to = document.querySelector(`.center [data-pile="${pile}"]`).getBoundingClientRect();
  const [x, y] = [box.left + box.width / 2 - m.e, box.top + box.height / 2 - m.f];  // where it lies
  const [dx, dy] = [to.left + to.width / 2 - x, to.top + to.height / 2 - y];
  return { pending: card.classList.contains('pending'), toward: (m.e * dx + m.f * dy) / (dx * dx + dy * dy) };
}"""
"""The lift of a card in flight toward ``pile`` (board.js ``afterRender``: 0.3 of the way)."""


def play_message(play: Play) -> dict[str, Any]:
    source, position, card, pile = play
    return {"kind": "play", "source": source, "position": position, "pile": pile, "card": card}


def set_up_race(alice: Page, bob: Rival, steps: int = 500) -> tuple[Play, Play]:
    """Play Alice's page (keys) and Bob (the rival) one action at a time until a card of
    each would go to the same existing pile (a click sends a card to the first pile it
    fits).  Whoever holds one keeps it while the other plays 1s or turns the hand."""
    seeking = 0
    for step in range(steps):
        wait_settled(alice)
        state = read_board(alice)
        assert state is not None and not state["ended"], "the round ended before a race"
        if sorted(center_of(alice)) != sorted(bob.piles()):
            alice.wait_for_timeout(20)
            continue
        clicks: dict[str, Play] = {}
        for play in fitting(state):
            clicks.setdefault(play[2], play)
        mine, his = list(clicks.values()), bob.fitting()
        race = [(a, b) for a in mine for b in his if a[3] is not None and a[3] == b[3]]
        if race:
            return race[0]

        def alice_plays(play: Play | None) -> None:
            press(alice, key_of(play[0], play[1]) if play else " ")

        def bob_plays(play: Play | None) -> None:
            bob.act({"kind": "turn"} if play is None else play_message(play))

        sides = ((mine, alice_plays), (his, bob_plays))
        holders = [side for side in sides if any(p[3] is not None for p in side[0])]
        if not holders:
            plays, move = sides[step % 2]
            move(plays[0] if plays else None)
            continue
        held, holder_moves = holders[0]
        seeker, seeker_moves = sides[1] if holders[0] is sides[0] else sides[0]
        ones = [p for p in seeker if p[3] is None]
        if ones:
            seeker_moves(ones[0])  # a new pile: one more chance of a race
        elif seeking < 12:
            seeking += 1
            seeker_moves(None)
        else:
            seeking = 0
            holder_moves(next(p for p in held if p[3] is not None))
    raise AssertionError(f"no race within {steps} steps")


def test_a_race_says_who_was_faster_by_how_much_to_the_loser_the_winner_and_a_spectator(pages: Any) -> None:
    alice_context = pages.context()
    gate = Gate(alice_context)
    alice = pages.open("/", context=alice_context)
    code = create_table(alice, "Alice", seats=2)
    bob = Rival(pages.server.port, code, "Bob")
    try:
        watcher = pages.open(f"/#/w/{code}")
        watcher.wait_for_selector("#seats .seat")
        alice.wait_for_selector("#seats li:nth-child(2) .seat-name")
        alice.click("#start-button")
        alice.wait_for_selector(".board.live")
        bob.wait(lambda m: m["type"] == "go")

        (source, position, card, pile), rival_play = set_up_race(alice, bob)
        # Alice's page hears nothing for a moment (a slow network), so it still shows the
        # pile as it was when Bob's card lands on it; then she plays her card there.
        gate.hold()
        applied = bob.act(play_message(rival_play))
        assert applied["type"] == "ack" and applied["applied"] is True, applied
        alice.keyboard.press(key_of(source, position))
        refusal = gate.wait_seen(alice, lambda m: m.get("type") == "ack" and m.get("applied") is False)
        # The answer is held back: her card is shown in flight already, lifted toward the pile.
        slot = f"row-{position}" if source == "row" else source
        mine = alice.locator(f'.own [data-slot="{slot}"]')
        lift = mine.evaluate(LIFT, pile)
        assert lift["pending"] and 0.25 < lift["toward"] < 0.35, lift
        gate.release()
        assert refusal["reason"] == "does_not_fit" and refusal["by"] == bob.seat, refusal
        ms = refusal["by_ms"]
        assert isinstance(ms, int) and ms > 0, refusal  # she played after his card had landed

        # Judged: it settles back in its place, visibly refused.
        expect(mine).to_have_class(re.compile(r"\brefused\b"))
        settled = (
            "(slot) => getComputedStyle(document.querySelector(`.own [data-slot='${slot}']`)).transform === 'none'"
        )
        alice.wait_for_function(settled, arg=slot)
        expect(mine.locator(".bubble")).to_have_text(f"Bob was {ms} ms faster")
        expect(mine).to_have_attribute("data-card", card)
        expect(alice.locator("#announce")).to_have_text(f"Bob was {ms} ms faster")
        expect(alice.locator(f'.center [data-pile="{pile}"]')).to_have_class(re.compile(r"\blost\b"))

        # Everyone hears of the race; the spectator sees it, the loser has her refusal only.
        race = bob.wait(lambda m: m["type"] == "race")
        assert race == {"type": "race", "round": 1, "pile": pile, "winner": bob.seat, "loser": 0, "ms": ms}, race
        note = watcher.locator("#race-note")
        expect(note).to_have_text(f"Bob beat Alice to a pile by {ms} ms")
        expect(note).to_be_visible()
        expect(watcher.locator("#race-announce")).to_have_text(f"Bob beat Alice to a pile by {ms} ms")
        expect(alice.locator("#race-note")).to_have_count(0)
        expect(note).to_have_count(0, timeout=5000)  # a moment only

        # Another race, which Alice wins: her page says so, and so does the spectator's.
        # Bob's card goes as soon as hers is applied; a race is told only within 250 ms,
        # which a loaded machine may let pass: then another race is set up.
        for _ in range(RACE_TRIES):
            (source, position, _, _), rival_play = set_up_race(alice, bob)
            alice.keyboard.press(key_of(source, position))
            wait_settled(alice)
            lost = bob.act(play_message(rival_play))
            assert lost["applied"] is False and lost["by"] == 0, lost
            if "by_ms" in lost:
                break
        ms = lost["by_ms"]
        assert isinstance(ms, int) and ms > 0, lost
        expect(alice.locator("#race-note")).to_have_text(f"You beat Bob by {ms} ms")
        expect(note).to_have_text(f"Alice beat Bob to a pile by {ms} ms")
    finally:
        bob.close()


def test_the_host_sets_the_judging_and_the_wait_for_ready_and_every_page_shows_them(pages: Any) -> None:
    alice = pages.open("/")
    frames = Frames(alice)
    posted: list[dict[str, Any]] = []
    alice.on("request", lambda r: posted.append(r.post_data_json) if r.url.endswith("/api/tables") else None)
    # The wait's field keeps to the server's bounds (a number out of them becomes the bound).
    assert alice.evaluate("() => import('/js/rules.js').then((m) => m.READY_S)") == {
        "min": MIN_READY_S,
        "max": MAX_READY_S,
        "default": READY_S,
    }
    expect(alice.locator("#create-ready")).to_have_value(f"{READY_S:g}")
    alice.fill("#create-ready", "2")
    alice.locator("#create-ready").dispatch_event("change")
    expect(alice.locator("#create-ready")).to_have_value(f"{MIN_READY_S:g}")
    code = create_table(alice, "Alice", seats=3, window_ms=150, ready_s=45)  # the create form sends them
    assert [(body["window_ms"], body["ready_s"]) for body in posted] == [(150, 45)], posted
    expect(alice.locator("#judging-summary")).to_have_text(
        "Fair judging: races are judged by when you played, not by your ping (window 150 ms)"
    )
    expect(alice.locator("#table-fair")).to_be_checked()
    expect(alice.locator("#table-window")).to_have_value("150")
    expect(alice.locator("#table-ready")).to_have_value("45")
    bob = pages.open(f"/#/t/{code}")
    join_by_invite(bob, "Bob")
    expect(bob.locator("#judging-summary")).to_contain_text("(window 150 ms)")
    expect(bob.locator("#view-ready")).to_have_value("45")
    expect(bob.locator("#view-ready")).to_be_disabled()

    # The host turns fair judging off, sets another window and another wait: sent with set_rules.
    alice.click("#table-fair")
    alice.fill("#table-window", "120")
    alice.locator("#table-window").dispatch_event("change")
    alice.fill("#table-ready", "90")
    alice.locator("#table-ready").dispatch_event("change")
    expect(bob.locator("#view-ready")).to_have_value("90")
    arrival = "Races are judged by arrival: the first play to reach the server wins"
    for page in (alice, bob):
        expect(page.locator("#judging-summary")).to_have_text(arrival)
    expect(bob.locator("#view-fair")).not_to_be_checked()
    expect(bob.locator("#view-fair")).to_be_disabled()
    expect(bob.locator("#view-window")).to_have_value("120")
    expect(alice.locator("#table-window")).to_have_value("120")
    sent = frames.of("sent", "set_rules")
    assert sent and sent[-1]["arbitration"] == "arrival" and sent[-1]["window_ms"] == 120, sent
    assert sent[-1]["ready_s"] == 90, sent
    tables = frames.of("received", "table")
    assert tables[-1]["arbitration"] == "arrival" and tables[-1]["window_ms"] == 120, tables[-1]
    assert tables[-1]["ready_s"] == 90, tables[-1]
    assert any(t["arbitration"] == "fair" and t["window_ms"] == 150 and t["ready_s"] == 45 for t in tables)


RACE_WORDS = """async () => {
  const { lostRaceText, raceNote, WINDOW_MS } = await import("/js/races.js");
  const names = ["Alice", "Bob", "Cleo"];
  const at = (seat, watching = false) => ({ seat, watching, nameOf: (s) => names[s] });
  const race = (ms) => ({ type: "race", round: 1, pile: 0, winner: 0, loser: 1, ms });
  return {
    spectator: raceNote(at(null, true), race(12)),
    other: raceNote(at(2), race(12)),
    winner: raceNote(at(0), race(12)),
    loser: raceNote(at(1), race(12)),
    untimed: raceNote(at(2), { ...race(12), ms: undefined }),
    late: raceNote(at(0), race(-4)),
    itself: raceNote(at(0), { ...race(3), loser: 0 }),
    faster: lostRaceText({ name: "Alice", mine: false, ms: 12 }),
    zero: lostRaceText({ name: "Alice", mine: false, ms: 0 }),
    unknown: lostRaceText({ name: "Alice", mine: false }),
    self: lostRaceText({ name: "Alice", mine: true, ms: 12 }),
    window: WINDOW_MS,
  };
}"""


def test_the_words_of_every_kind_of_race_in_two_languages(pages: Any) -> None:
    page = pages.open("/")
    words = page.evaluate(RACE_WORDS)
    assert words["window"] == {"min": 0, "max": MAX_WINDOW_MS, "default": DEFAULT_WINDOW_MS}  # the engine's
    assert words["spectator"] == words["other"] == "Alice beat Bob to a pile by 12 ms"
    assert words["winner"] == "You beat Bob by 12 ms"
    assert words["loser"] is None  # the refused play says it already
    assert words["untimed"] == "Alice beat Bob to a pile"
    assert words["late"] == "You beat Bob to a pile"  # ranked later, arrived too late: no ms
    assert words["itself"] is None
    assert words["faster"] == "Alice was 12 ms faster"
    assert words["zero"] == words["unknown"] == "Beaten to it by Alice!"
    assert words["self"] == "Your other card got there first"

    page.select_option("#lang", "de")
    page.wait_for_selector("html[lang='de']")
    german = page.evaluate(RACE_WORDS)
    assert german["faster"] == "Alice war 12 ms schneller"
    assert german["winner"] == "Du warst 12 ms schneller als Bob"
    assert german["unknown"] == "Alice war schneller!"
    assert german["spectator"] == "Alice war an einem Stapel 12 ms schneller als Bob"


def test_the_host_is_told_of_a_rival_faster_than_a_person(pages: Any) -> None:
    """Bob (a real WebSocket) plays every card the moment it fits; Alice's page, the host,
    reads that he is flagged (docs/fairness.md "Inhuman speed"); Bob is told nothing."""
    alice = pages.open("/")
    code = create_table(alice, "Alice", seats=2)
    bob = Rival(pages.server.port, code, "Bob")
    try:
        alice.wait_for_selector("#seats li:nth-child(2) .seat-name")
        alice.click("#start-button")
        alice.wait_for_selector(".board.live")
        bob.wait(lambda m: m["type"] == "go")
        notice = alice.locator(".toast-warn", has_text="Bob is playing faster than any person can")
        for act in range(160):
            # the page is read between bursts of his plays only: each read is a round trip to
            # Chromium, which on a loaded machine would make his reactions look human
            if act % 8 == 0 and (notice.count() or alice.locator(".banner").count()):
                break
            plays = bob.fitting()
            bob.act(play_message(plays[0]) if plays else {"kind": "turn"})
        expect(notice).to_be_visible()
        assert "this match will not count for ratings" in notice.inner_text()
        assert not [m for m in bob.messages if m["type"] == "speed"]
    finally:
        bob.close()
