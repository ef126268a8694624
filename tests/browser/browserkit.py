"""What the browser tests share: Debian's Chromium, a real ``ligretto serve`` process,
reading the board from the page's DOM, and the simple policy the test players follow.

The page is read the way a person sees it: own cards are ``.own-card`` buttons with
``data-source``/``data-position``/``data-card``; center piles are ``.pile`` elements
with ``data-colour`` and ``data-top``; the board's ``data-pending`` counts the actions
still in flight.  A test plays through the page only (clicks, drags, keys).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Locator, Page, Playwright, WebSocketRoute, expect

from debianpackages import ensure_installed
from ligretto.client.mirror import Pile, number
from ligretto.engine.races import RACE_MS
from wire import CARD

CHROMIUM = "/usr/bin/chromium"
PLAYWRIGHT_DISABLED_FEATURES = [
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
]
"""The features Playwright (1.5x, ``chromiumSwitches``) disables at every launch."""
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Playwright's own list (a second --disable-features replaces the first) and the omnibox
    # popup's WebUI, which new headless Chromium renders in a process of its own for every
    # browser context: about 14 % of the browser tests' Chromium CPU (docs/benchmarks.md)
    "--disable-features=" + ",".join([*PLAYWRIGHT_DISABLED_FEATURES, "WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]),
]
"""Without the background-networking flags this closed network refuses many connections."""

SCREENSHOTS = os.environ.get("LIGRETTO_SCREENSHOTS") == "1"
"""Whether the browser tests save their screenshots (to look at them): off by default, as
they cost Chromium much CPU (about 30 % in one measured pair) and no test reads them back."""


def screenshot(page: Page | Locator, path: Path, **options: Any) -> Path:
    """Save a screenshot of ``page`` at ``path`` when ``LIGRETTO_SCREENSHOTS=1``."""
    if SCREENSHOTS:
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), **options)
    return path


ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

SETTLE_MS = 70
"""After an action's ack: the server sends the ack before the action's events, each its own
message, so a page that has its ack may not have drawn the events yet; this long lets it."""

PUBLIC_CARD_FIELDS = frozenset({"card", "uncovered", "stack_top", "discard_top"})


def ensure_chromium() -> str:
    """Debian's Chromium (``playwright install`` cannot download browsers here)."""
    ensure_installed("chromium", Path(CHROMIUM).exists)
    return CHROMIUM


class PlaywrightLoop:
    """One Playwright driver (a Node process) and one Chromium serve every browser module
    of a worker (about 1.2 s of CPU a launch: docs/benchmarks.md; the fixtures are in conftest.py).

    Playwright's sync API runs its asyncio loop in a greenlet of this thread and leaves it
    marked as the thread's running loop between calls: ``asyncio.run`` then refuses to
    start (the other test directories call it in the same worker processes), and code that
    schedules work on a running loop (the recorder of a harness match) would hand it to
    Playwright's.  So the loop is marked running only while a browser test runs, or inside
    :meth:`shown` for a module's fixture that drives a page."""

    def __init__(self, driver: Playwright) -> None:
        self.driver = driver
        self.loop = asyncio.get_running_loop()

    @contextlib.contextmanager
    def shown(self) -> Iterator[None]:
        before = asyncio._get_running_loop()
        asyncio._set_running_loop(self.loop)
        try:
            yield
        finally:
            asyncio._set_running_loop(before)


# --- the page -----------------------------------------------------------------------------

READ_BOARD = """() => {
  const board = document.querySelector('.board');
  if (!board || !board.isConnected) return null;
  const own = document.querySelector('.own');
  const count = (selector) => {
    const element = own && own.querySelector(selector);
    return element ? Number(element.dataset.count) : 0;
  };
  return {
    live: board.classList.contains('live'),
    ended: Boolean(document.querySelector('.banner')),
    pending: Number(board.dataset.pending || 0),
    round: Number(board.dataset.round || 0),
    seat: own ? Number(own.dataset.seat) : null,
    own: own ? [...own.querySelectorAll('.own-card')].map((b) => ({
      source: b.dataset.source, position: Number(b.dataset.position), card: b.dataset.card || null,
    })) : [],
    hand: count('[data-slot="hand"]'),
    sizes: own ? [...own.querySelectorAll('.side-label[data-count]')].map((e) => Number(e.dataset.count)) : [],
    voted: Boolean(own && own.querySelector('#vote-button[aria-pressed="true"]')),
    piles: [...document.querySelectorAll('.center .pile[data-colour]')].map((p) => ({
      index: Number(p.dataset.pile), colour: p.dataset.colour, top: Number(p.dataset.top),
    })),
  };
}"""


RECORD_FRAMES = """{
  window.__frames = [];
  window.__sent = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => window.__frames.push(JSON.parse(event.data)));
    }
    send(data) {
      window.__sent.push(JSON.parse(data));
      return super.send(data);
    }
  };
}"""
"""An init script: every message the page's sockets receive is kept in ``window.__frames``
and every one they send in ``window.__sent`` (as a person would not see them, but the test
can then tell an applied play from a refused one, and which pile a play named)."""


def frames(page: Page, kind: str) -> list[dict[str, Any]]:
    """The messages of type ``kind`` the page received (it runs :data:`RECORD_FRAMES`)."""
    found: list[dict[str, Any]] = page.evaluate("(kind) => window.__frames.filter((m) => m.type === kind)", kind)
    return found


def read_board(page: Page) -> dict[str, Any] | None:
    state: dict[str, Any] | None = page.evaluate(READ_BOARD)
    return state


def center_of(page: Page) -> list[tuple[int, str, int]]:
    """The center piles as the page shows them: (index, colour, top)."""
    piles: list[list[Any]] = page.evaluate(
        "() => [...document.querySelectorAll('.center .pile[data-colour]')]"
        ".map((p) => [Number(p.dataset.pile), p.dataset.colour, Number(p.dataset.top)])"
    )
    return [(int(i), str(c), int(top)) for i, c, top in piles]


def fits(card: str, pile: dict[str, Any]) -> bool:
    """Whether ``card`` fits a pile as the page shows it (the client model's rule)."""
    return Pile(int(pile["index"]), pile["colour"], int(pile["top"]), []).takes(card)


def key_of(source: str, position: int) -> str:
    return {"stack": "s", "discard": "d"}.get(source, str(position + 1))


def fitting(state: dict[str, Any]) -> list[tuple[str, int, str, int | None]]:
    """(source, position, card, pile) of every own card that can go to the center now."""
    plays: list[tuple[str, int, str, int | None]] = []
    for slot in state["own"]:
        card = slot["card"]
        if not card:
            continue
        if number(card) == 1:
            plays.append((slot["source"], slot["position"], card, None))
            continue
        plays += [(slot["source"], slot["position"], card, p["index"]) for p in state["piles"] if fits(card, p)]
    return plays


@dataclass
class Stuck:
    """A test player's policy: play a card that fits, else turn the hand, and say
    "stuck" (vote) once the whole hand went round without the center changing."""

    center: int = -1
    turns: int = 0
    vote: bool = True
    passes: int = 1
    """Whole passes through the hand without a change in the center before voting."""
    history: list[str] = field(default_factory=list)

    def choose(self, state: dict[str, Any]) -> str | None:
        plays = fitting(state)
        if plays:
            source, position, _, _ = plays[0]
            return key_of(source, position)
        total = sum(p["top"] for p in state["piles"])
        if total != self.center:
            self.center, self.turns = total, 0
        cards = state["hand"] + state["sizes"][1]  # hand and discard pile
        if self.turns * 3 >= self.passes * (cards + 3) or cards == 0:
            return "v" if self.vote and not state["voted"] else None
        self.turns += 1
        return " "


def wait_settled(page: Page, timeout_ms: float = 8000) -> None:
    """Until no action of this page is in flight."""
    page.wait_for_function(
        "() => { const b = document.querySelector('.board'); return !b || b.dataset.pending === '0'; }",
        timeout=timeout_ms,
    )


def press(page: Page, key: str) -> None:
    """One game key, then wait until the server answered it."""
    page.keyboard.press("Space" if key == " " else key)
    wait_settled(page)
    page.wait_for_timeout(SETTLE_MS)


def turn_the_hand(page: Page, timeout_s: float = 10.0) -> dict[str, Any]:
    """Turn the hand (the space key) and read the board once it shows the turn: the ack ends
    the page's pending action a message before the events that show it, and a loaded
    machine read the board in between."""

    def own(board: dict[str, Any] | None) -> tuple[Any, ...] | None:
        return None if board is None else (board["own"], board["hand"], board["sizes"])

    was = own(read_board(page))
    press(page, " ")
    deadline = time.monotonic() + timeout_s
    while own(board := read_board(page)) == was and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert board is not None and own(board) != was, "the turn did not show on the board"
    return board


def shows_the_round_as_it_was(page: Page, before: dict[str, Any]) -> None:
    """After a restart or a take-over: the page (not live yet) shows its own area, hand and
    every seat's sizes as ``before`` (a ``read_board`` from before the server went down)."""
    after = read_board(page)
    assert after is not None and not after["live"]
    assert (after["own"], after["hand"], after["sizes"]) == (before["own"], before["hand"], before["sizes"]), (
        "the page does not show the round as it was"
    )


def plays_on_once_back(page: Page, before: dict[str, Any], *, timeout_ms: float) -> None:
    """Once everyone is back the restored round goes on: the board live, the phase
    ``playing``, and a turn (Space) changes the hand from ``before``."""
    expect(page.locator(".board.live")).to_be_visible(timeout=timeout_ms)
    expect(page.locator(".table-screen")).to_have_attribute("data-phase", "playing")
    press(page, " ")
    again = read_board(page)
    assert again is not None and again["hand"] != before["hand"], "the hand did not turn after go"


def play_keys_until_round_ends(page: Page, *, timeout_s: float = 60.0, passes: int = 3) -> list[str]:
    """Play this page's seat with the keyboard only until the round ends; the keys pressed.
    The player says "stuck" after ``passes`` turns through the hand with nothing to play
    (the hand is shuffled when it is renewed, so each pass shows other cards)."""
    stuck = Stuck(passes=passes)
    deadline = time.monotonic() + timeout_s
    keys: list[str] = []
    while time.monotonic() < deadline:
        state = read_board(page)
        assert state is not None, "the board is gone"
        if state["ended"]:
            return keys
        if not state["live"]:
            page.wait_for_timeout(50)
            continue
        key = stuck.choose(state)
        if key is None:
            page.wait_for_timeout(100)
            continue
        keys.append(key)
        press(page, key)
    raise AssertionError(f"the round did not end within {timeout_s} s; keys: {''.join(keys[-40:])!r}")


def no_horizontal_overflow(page: Page) -> tuple[int, int]:
    """(document width, viewport width): equal when nothing sticks out sideways."""
    sizes: list[int] = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    return sizes[0], sizes[1]


# --- checking what a spectator receives -------------------------------------------------


def stray_cards(message: Any) -> list[str]:
    """Card names anywhere but in the public places a card may be named (a row, a stack or
    discard top, the card played, placed or uncovered, a refill)."""
    found: list[str] = []

    def walk(value: Any, path: str, key: str) -> None:
        if isinstance(value, str):
            if CARD.match(value) and key not in PUBLIC_CARD_FIELDS and key != "row":
                found.append(f"{path}={value}")
        elif isinstance(value, dict):
            for name, item in value.items():
                walk(item, f"{path}.{name}", name)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]", key)

    walk(message, "", "")
    return found


def visible_cards(view: dict[str, Any]) -> dict[int, list[str]]:
    """Per seat, the cards anyone may see: every row card, the stack top and the discard top."""
    shown: dict[int, list[str]] = {}
    for area in view["areas"]:
        cards = [card for column in area["row"] for card in column]
        cards += [card for card in (area["stack_top"], area["discard_top"]) if card]
        shown[area["seat"]] = cards
    return shown


# --- setting up a table through the page -----------------------------------------------


def host_table(
    page: Page,
    name: str,
    *,
    seats: int | None = None,
    rounds: int = 1,
    public: bool = False,
    preset: str | None = None,
    bots: tuple[str, ...] = (),
) -> str:
    """On the lobby page: type a name, set up and create a table, add bots; the invite code."""
    page.fill("#player-name", name)
    if preset is not None:
        page.select_option("#create-preset", preset)
    if seats is not None:
        page.fill("#create-seats", str(seats))
        page.locator("#create-seats").dispatch_event("change")
    if page.locator("#create-public").is_checked() != public:
        page.click("#create-public")
    page.click(".create details.options summary")
    page.select_option("#create-match_end-kind", "rounds")
    page.fill("#create-match_end", str(rounds))
    page.locator("#create-match_end").dispatch_event("change")
    page.click("#create-button")
    page.wait_for_selector("#seats .seat")
    code = page.url.rsplit("/", 1)[1]
    for count, spec in enumerate(bots, start=1):
        strategy, level = spec.split(":")
        page.select_option("#bot-strategy", strategy)
        page.select_option("#bot-level", level)
        page.click("#add-bot")
        page.wait_for_function(f"document.querySelectorAll('#seats li[data-bot]').length === {count}")
    return code


def join_by_link(page: Page, name: str) -> None:
    """A fresh browser opens an invite link: it asks for a name, then takes a seat."""
    page.fill("#prompt-name", name)
    page.keyboard.press("Enter")
    page.wait_for_selector(".seat .badge.me")


def start_match(host: Page, *others: Page) -> None:
    """The host starts; every page waits for the countdown to end: the board goes live, or
    (machine bots can be that fast) the round is already over by the time a page looks."""
    host.click("#start-button")
    for page in (host, *others):
        page.wait_for_selector(".board.live, #score-sheet", timeout=15_000)


def wait_round_over(page: Page, timeout_ms: float = 60_000) -> None:
    page.wait_for_selector(".banner", timeout=timeout_ms)
    page.wait_for_selector("#score-sheet", timeout=timeout_ms)


class Gate:
    """A context's game WebSocket (/ws) routed through the test: every frame the server
    sends is recorded, and can be held back (a slow network) or the connection dropped.

    With ``hold_opening`` the page's sockets stay in CONNECTING (no ``open`` event) until
    :meth:`open` connects them to the server: a slow network at the start.

    :meth:`stall` is a network that stops answering: nothing passes either way on the
    current socket (the frames are lost), and new sockets stay connecting until
    :meth:`unstall`; :meth:`deafen` loses only what the server sends on the current socket."""

    def __init__(self, context: BrowserContext, *, hold_opening: bool = False) -> None:
        self.holding = False
        self.held: list[str | bytes] = []
        self.seen: list[dict[str, Any]] = []
        self.route: WebSocketRoute | None = None
        self.connections = 0
        self.opening_held = hold_opening
        self.opening: list[tuple[WebSocketRoute, asyncio.Future[None]]] = []
        self.stalled: WebSocketRoute | None = None
        self.deaf: WebSocketRoute | None = None
        self.lost: list[str | bytes] = []
        """Frames the stalled network swallowed, either way."""
        context.route_web_socket(re.compile(r"/ws$"), self._route)

    def _route(self, route: WebSocketRoute) -> asyncio.Future[None] | None:
        if not self.opening_held:
            self._connect(route)
            return None
        # Playwright keeps the page's socket connecting while the handler's future is
        # pending, and as long as the route is not connected to the server.
        connected: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.opening.append((route, connected))
        return connected

    def open(self) -> None:
        """Connect the sockets held at their opening: the page sees them open now."""
        self.opening_held = False
        for route, connected in self.opening:
            with contextlib.suppress(Exception):  # the page gave this socket up while it waited
                self._connect(route)
            connected.set_result(None)
        self.opening = []

    def _connect(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        self.route = route
        self.connections += 1

        def from_page(message: str | bytes) -> None:
            if route is self.stalled:
                self.lost.append(message)
            else:
                server.send(message)

        route.on_message(from_page)

        def page_closed(code: int | None, reason: str | None) -> None:
            if route is not self.stalled:  # a stalled network does not carry the close either
                server.close(code=code, reason=reason or "")

        route.on_close(page_closed)

        def from_server(message: str | bytes) -> None:
            if route is self.stalled or route is self.deaf:
                self.lost.append(message)
                return
            if route is not self.route:
                return  # an old connection's last words
            self.seen.append(json.loads(message))
            if self.holding:
                self.held.append(message)
            else:
                route.send(message)

        server.on_message(from_server)

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        self.holding = False
        assert self.route is not None
        for message in self.held:
            self.route.send(message)
        self.held = []

    def stall(self) -> None:
        """The network stops answering: the current socket passes nothing either way (its
        frames are lost), and new sockets stay connecting."""
        assert self.route is not None
        self.stalled = self.route
        self.opening_held = True

    def deafen(self) -> None:
        """Nothing the server sends on the current socket reaches the page any more (it is
        lost); the page's frames still reach the server, and new sockets connect."""
        assert self.route is not None
        self.deaf = self.route

    def unstall(self) -> None:
        """The network is back: the sockets waiting to open connect to the server."""
        self.open()

    def drop(self) -> None:
        """The network drops the connection (the page sees it close)."""
        assert self.route is not None
        self.route.close(code=4000, reason="dropped by the test")

    def wait_seen(self, page: Page, match: Any, timeout_s: float = 8.0) -> dict[str, Any]:
        """The first recorded server message for which ``match(message)`` holds."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for message in self.seen:
                if match(message):
                    return message
            page.wait_for_timeout(20)  # lets Playwright deliver the next frames
        raise AssertionError(f"no such message within {timeout_s} s; last: {self.seen[-3:]}")


# --- a race for one pile between two pages -----------------------------------------------


def _race(alice: dict[str, Any], bob: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """Plays of Alice and Bob that a click would send to the same existing pile (a click
    sends a card to the first pile it fits)."""

    def clicks(state: dict[str, Any]) -> list[tuple[Any, ...]]:
        first: dict[str, tuple[Any, ...]] = {}
        for source, position, card, pile in fitting(state):
            first.setdefault(card, (source, position, card, pile))
        return list(first.values())

    for a in clicks(alice):
        for b in clicks(bob):
            if a[3] is not None and a[3] == b[3]:
                return a, b
    return None


def in_step(alice: Page, bob: Page) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both boards once nothing is in flight and both show the same center."""
    for _ in range(200):
        wait_settled(alice)
        wait_settled(bob)
        a, b = read_board(alice), read_board(bob)
        assert a is not None and b is not None
        if a["piles"] == b["piles"]:
            return a, b
        alice.wait_for_timeout(20)
    raise AssertionError("the two pages never showed the same center")


@dataclass
class LostRace:
    """A race Alice lost (see :func:`lose_a_race`): her card, the pile, the pile's top
    before Bob's card, and the server's refused ``ack`` of her play."""

    source: str
    position: int
    card: str
    pile: int
    top_before: int
    refusal: dict[str, Any]

    def words(self, winner: str = "Bob") -> str:
        """What her refused card's bubble says (English): who was faster and by how much
        for a race (the two plays ranked at most ``RACE_MS`` apart: she presses as soon as
        his card shows on his page), only who for a play that came later (a machine too
        busy to show it soon enough)."""
        by_ms = self.refusal.get("by_ms")
        assert by_ms is None or 0 < by_ms <= RACE_MS, self.refusal
        return f"Beaten to it by {winner}!" if by_ms is None else f"{winner} was {by_ms} ms faster"


def lose_a_race(gate: Gate, alice: Page, bob: Page) -> LostRace:
    """Set up a race (:func:`set_up_race`) and let Alice lose it: her network is held back
    (``gate``, on her context), Bob plays first, then she does; returns once the server has
    refused her play, with her network still held (the caller releases it)."""
    (source, position, card, pile), (b_source, b_position, _, _) = set_up_race(alice, bob)
    top_before = next(top for index, _, top in center_of(alice) if index == pile)
    gate.hold()
    bob.keyboard.press(key_of(b_source, b_position))
    bob.wait_for_function(
        f"() => Number(document.querySelector('.center [data-pile=\"{pile}\"]').dataset.top) === {top_before + 1}"
    )
    alice.keyboard.press(key_of(source, position))
    refusal = gate.wait_seen(alice, lambda m: m.get("type") == "ack" and m.get("applied") is False)
    return LostRace(source, position, card, pile, top_before, refusal)


def set_up_race(alice: Page, bob: Page, steps: int = 600) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Play two pages (nobody else at the table) by keys until both hold a card that a
    click would send to the same existing pile: ((source, position, card, pile) of Alice,
    the same of Bob).  Whoever holds one keeps it while the other turns the hand looking
    for the rival card."""
    seeking = 0
    for step in range(steps):
        a, b = in_step(alice, bob)
        assert not a["ended"], "the round ended before a race could be set up"
        race = _race(a, b)
        if race:
            return race
        boards = ((alice, a), (bob, b))
        holders = [(page, state) for page, state in boards if any(p[3] is not None for p in fitting(state))]
        if not holders:
            page, state = ((alice, a), (bob, b))[step % 2]
            plays = fitting(state)
            key = key_of(plays[0][0], plays[0][1]) if plays else " "
        else:
            holder = holders[0][0]
            page, state = (bob, b) if holder is alice else (alice, a)
            ones = [p for p in fitting(state) if p[3] is None]
            if ones:
                key = key_of(ones[0][0], ones[0][1])  # a new pile: one more chance of a race
            elif seeking < 12:
                seeking += 1
                key = " "
            else:
                seeking = 0
                page, state = holders[0]
                play = next(p for p in fitting(state) if p[3] is not None)
                key = key_of(play[0], play[1])
        press(page, key)
    raise AssertionError(f"no race within {steps} steps")
