"""axe-core finds no accessibility violation on any screen of the browser client, at a
phone's size (390x844, touch) and a desktop's (1280x800).

One tour per size walks every screen in order on a few pages of one server: the lobby
(its rule options open), the invite page (the name prompt of ``/#/t/CODE``), the
waiting room of the host and of a guest, a round in play (with the keys dialog open,
after a "stuck" vote, with a refused card, as a spectator, and at twelve seats), the
lobby's public tables, the expert variant (also while placing a card onto the row), an
invite to a match already on, the Stop banner, the score sheet, the match result, a
round's replay (half way and at its end), the rules page and an unknown table.  At each
screen axe-core runs with its standard rules (WCAG 2.0/2.1 A and AA and best practices,
as ``axe.run`` does by default, none turned off), plus its experimental rules for WCAG
A and AA criteria such as 2.5.3 "label in name", and a screenshot goes to
tests/browser/artifacts/.  The test fails with every violation of every screen: its rule
id, impact, the selectors of the elements and what to do.

A new screen is one line in :data:`SCREENS`: its name and a function that brings a page
of the tour there (it may use the pages and tables the earlier steps made); a screen of
its own address is ``("rules", at("watcher", "/#/rules", "#rulebook h2"))``.

The contexts ask for reduced motion: axe reads colours off the page, and a card half
way through a flight or a fading toast has no settled contrast to judge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from browserkit import (
    fitting,
    host_table,
    play_keys_until_round_ends,
    press,
    read_board,
    screenshot,
    start_match,
    wait_round_over,
    wait_settled,
)
from playwright.sync_api import BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from test_browser_expert import placement

AXE = Axe()
EXPERIMENTAL_WCAG = (
    "css-orientation-lock",
    "label-content-name-mismatch",
    "p-as-heading",
    "table-fake-caption",
    "td-has-header",
)
"""axe-core's rules for WCAG 2.0/2.1 A and AA criteria that it still calls experimental and
leaves off by default; turned on (label-content-name-mismatch is WCAG 2.5.3)."""
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {rule: {"enabled": True} for rule in EXPERIMENTAL_WCAG}}


@dataclass(frozen=True)
class Size:
    name: str
    width: int
    height: int
    touch: bool


PHONE = Size("phone", 390, 844, touch=True)
DESKTOP = Size("desktop", 1280, 800, touch=False)


@dataclass
class Tour:
    """The pages and tables of one walk through the screens, at one size."""

    pages: Any
    server: Any
    size: Size
    opened: dict[str, Page] = field(default_factory=dict)
    codes: dict[str, str] = field(default_factory=dict)
    left: set[str] = field(default_factory=set)

    def context(self) -> BrowserContext:
        size = self.size
        context: BrowserContext = self.pages.browser.new_context(
            viewport={"width": size.width, "height": size.height},
            has_touch=size.touch,
            is_mobile=size.touch,
            locale="en-US",
            reduced_motion="reduce",
        )
        context.set_default_timeout(15_000)
        self.pages.contexts.append(context)
        return context

    def page(self, role: str, path: str = "/") -> Page:
        """The page of a person (host, guest, watcher ...), opened at ``path`` the first time."""
        assert role not in self.left, f"the {role}'s page was closed (LEAVE): a later screen needs it"
        if role not in self.opened:
            self.opened[role] = self.pages.open(path, context=self.context())
        return self.opened[role]

    def leave(self, role: str) -> None:
        """Close a person's page (its context) for good: an open page draws every event of its table."""
        page = self.opened.pop(role)
        self.left.add(role)
        self.pages.contexts.remove(page.context)
        page.context.close()

    def visit(self, role: str, path: str) -> Page:
        page = self.page(role, path)
        if not page.url.endswith(path):
            page.goto(self.server.url + path)
            page.wait_for_selector("body[data-ready]")
        return page


def live(page: Page) -> Page:
    """Until the round is in play on this page and the countdown has gone."""
    page.wait_for_selector(".board.live .own-card, .board.live.watching .opponent")
    expect(page.locator("#countdown")).to_have_count(0)
    return page


# --- the screens, in the order of the tour ------------------------------------------------


def lobby(tour: Tour) -> Page:
    """The lobby with every rule option of the create form shown."""
    page = tour.visit("host", "/")
    page.click(".create details.options summary")
    expect(page.locator("#create-match_end")).to_be_visible()
    return page


def host_waiting_room(tour: Tour) -> Page:
    page = tour.visit("host", "/")
    if page.locator(".create details.options[open]").count():
        page.click(".create details.options summary")  # closed again: host_table opens it
    # A beginner bot: slow enough that the round is still on while the screens are checked.
    tour.codes["play"] = host_table(page, "Hana", seats=4, rounds=1, public=True, bots=("random:beginner",))
    return page


def invite_page(tour: Tour) -> Page:
    page = tour.page("guest", f"/#/t/{tour.codes['play']}")
    expect(page.locator("#prompt-name")).to_be_visible()
    return page


def guest_waiting_room(tour: Tour) -> Page:
    page = tour.page("guest")
    page.fill("#prompt-name", "Gus")
    page.locator("#name-prompt button[type=submit]").click()
    page.wait_for_selector("#seats .seat-name:text('Gus')")
    tour.page("host").wait_for_selector("#seats .seat-name:text('Gus')")
    return page


def round_in_play(tour: Tour) -> Page:
    watcher = tour.page("watcher", f"/#/w/{tour.codes['play']}")
    watcher.wait_for_selector("#seats .seat")
    host = tour.page("host")
    start_match(host, tour.page("guest"), watcher)
    press(host, " ")  # something on the discard pile
    return live(host)


def keys_help(tour: Tour) -> Page:
    page = tour.page("host")
    # The Keys button is hidden on touch-only devices (no keyboard hints there): its key.
    page.keyboard.press("?")
    expect(page.locator("dialog.help-dialog[open]")).to_be_visible()
    return page


def guest_voted(tour: Tour) -> Page:
    """The guest says "stuck": its vote button is pressed, the others see its badge."""
    tour.page("host").keyboard.press("Escape")  # closes the host's help dialog
    page = live(tour.page("guest"))
    for _ in range(5):  # any card played lets the votes lapse: say it again then
        press(page, "v")
        try:
            page.wait_for_selector("#vote-button[aria-pressed='true']", timeout=2000)
            return page
        except PlaywrightTimeoutError:
            continue
    raise AssertionError("the vote did not show on the guest's page")


def refusal(tour: Tour) -> Page:
    """A card that fits no pile, tapped: it shakes with a bubble inside its button for
    1.8 s, so axe checks the own area at once, while the bubble is there."""
    page = live(tour.page("host"))
    for _ in range(10):
        state = read_board(page)
        assert state is not None
        fit = {(source, position) for source, position, _, _ in fitting(state)}
        stuck = [slot for slot in state["own"] if slot["card"] and (slot["source"], slot["position"]) not in fit]
        if not stuck:
            press(page, " ")
            continue
        slot = stuck[0]
        button = page.locator(f".own-card[data-source='{slot['source']}'][data-position='{slot['position']}']")
        button.click()
        expect(button.locator(".bubble")).to_be_visible()
        if check_now(page, "refusal", ".own", "() => Boolean(document.querySelector('.own-card.refused .bubble'))"):
            return page
    raise AssertionError("no refusal bubble stayed long enough to be checked")


def spectator_view(tour: Tour) -> Page:
    return live(tour.page("watcher"))


def big_table(tour: Tour) -> Page:
    """Twelve seats: eleven opponents around the board."""
    page = tour.page("big")
    host_table(page, "Bea", seats=12, rounds=1, bots=("random:beginner",) * 11)
    start_match(page)
    return live(page)


def public_tables(tour: Tour) -> Page:
    """The lobby's live list of public tables, with Join and Watch."""
    page = tour.visit("watcher", "/")
    page.wait_for_selector(f".table-entry[data-code='{tour.codes['play']}']")
    return page


def at(role: str, path: str, shown: str) -> Callable[[Tour], Page]:
    """A screen of its own address: ``role``'s page goes to ``path`` until ``shown`` is visible."""

    def reach(tour: Tour) -> Page:
        page = tour.visit(role, path)
        expect(page.locator(shown).first).to_be_visible()
        return page

    return reach


def expert_round(tour: Tour) -> Page:
    page = tour.visit("guest", "/")
    tour.codes["expert"] = host_table(page, "Gus", seats=2, rounds=1, preset="expert", bots=("random:beginner",))
    start_match(page)
    return live(page)


def expert_placing(tour: Tour) -> Page:
    """The stack or discard top waiting for its row column (Shift+S / Shift+D)."""
    page = tour.page("guest")
    for _ in range(60):
        state = read_board(page)
        assert state is not None and not state["ended"], "the expert round ended before a placement fitted"
        found = placement(state)
        if found is not None:
            page.keyboard.press("Shift+S" if found[0] == "stack" else "Shift+D")
            expect(page.locator(".own-card.placing")).to_have_count(1)
            return page
        press(page, " ")
    raise AssertionError("no card fitted a row column after 60 turns of the hand")


def already_started(tour: Tour) -> Page:
    """Someone else follows the invite link of the expert table, whose match is on: the
    page offers to watch instead."""
    page = tour.page("latecomer", f"/#/t/{tour.codes['expert']}")
    page.fill("#prompt-name", "Lou")
    page.locator("#name-prompt button[type=submit]").click()
    expect(page.locator("#watch-instead")).to_be_visible()
    return page


def score_sheet(tour: Tour) -> Page:
    """A table of machine bots: its rounds end within seconds (the host plays too, and
    says "stuck" when it is, so that no round waits for its vote)."""
    page = tour.visit("host", "/")
    tour.codes["sheet"] = host_table(page, "Hana", seats=3, rounds=2, bots=("smart:machine", "greedy:machine"))
    start_match(page)
    play_keys_until_round_ends(page)
    # The Stop banner shows alone for 1.4 s before the score sheet covers the board.
    check_now(page, "stop-banner", ".banner", "() => !document.querySelector('#score-sheet')")
    wait_round_over(page)
    expect(page.locator("#ready-button")).to_be_visible()
    tour.codes["replay"] = page.get_attribute("#replay-link", "href") or ""  # the first round's share link
    return page


def match_result(tour: Tour) -> Page:
    page = tour.page("host")
    page.click("#ready-button")
    page.wait_for_selector(".board.live, #match-result", timeout=15_000)
    play_keys_until_round_ends(page)
    page.wait_for_selector("#match-result", timeout=60_000)
    wait_settled(page)
    return page


def final_board(tour: Tour) -> Page:
    """The match result dismissed: the final board, with the button that brings the sheet back."""
    page = tour.page("host")
    page.click("#show-board-button")
    expect(page.locator("#show-sheet-button")).to_be_visible()
    wait_settled(page)
    return page


def replay_viewer(tour: Tour) -> Page:
    """The replay of the score sheet's first round, half way through (its timeline focused)."""
    page = tour.visit("watcher", f"/{tour.codes['replay']}")
    page.wait_for_function("() => window.ligrettoReplay !== undefined")
    page.evaluate("() => window.ligrettoReplay.goTo(Math.floor(window.ligrettoReplay.track.length / 2))")
    page.focus("#replay-timeline")
    return page


def replay_end(tour: Tour) -> Page:
    """The replay at its last step: the Stop banner and the round's scores."""
    page = tour.page("watcher")
    page.evaluate("() => window.ligrettoReplay.goTo(window.ligrettoReplay.track.length)")
    page.wait_for_selector("#replay-scores")
    return page


def play_now(tour: Tour) -> Page:
    """A first visit's one click from the lobby into a round against three bots."""
    page = tour.visit("newcomer", "/")
    page.click("#play-now-button")
    return live(page)


def profile_page(tour: Tour) -> Page:
    """The profile page with a one-time code shown (its countdown running)."""
    page = tour.visit("profiler", "/#/profile")
    page.click("#link-button")
    expect(page.locator("#link-expiry")).to_be_visible()
    return page


def profile_delete(tour: Tour) -> Page:
    """The confirmation before a profile is deleted."""
    page = tour.page("profiler")
    page.click("#delete-button")
    expect(page.locator("#delete-dialog")).to_be_visible()
    return page


SCREENS: list[tuple[str, Callable[[Tour], Page]]] = [
    ("lobby", lobby),
    ("waiting-room-host", host_waiting_room),
    ("invite", invite_page),
    ("waiting-room-guest", guest_waiting_room),
    ("round", round_in_play),
    ("keys-help", keys_help),
    ("round-guest-voted", guest_voted),
    ("refusal", refusal),
    ("spectator", spectator_view),
    ("round-12-seats", big_table),
    ("public-tables", public_tables),
    ("expert-round", expert_round),
    ("expert-placing", expert_placing),
    ("already-started", already_started),
    ("score-sheet", score_sheet),
    ("match-result", match_result),
    ("final-board", final_board),
    ("replay", replay_viewer),
    ("replay-end", replay_end),
    ("play-now", play_now),
    ("tutorial", at("learner", "/#/learn", "#coach-text")),
    ("tutorial-step", at("learner", "/#/learn", ".board.live .tutorial-target")),
    ("rules", at("watcher", "/#/rules", "#rulebook h2")),
    ("profile", profile_page),
    ("profile-delete", profile_delete),
    ("claim-refused", at("watcher", "/#/claim/no-such-code", "#claim-error")),
    ("unknown-table", at("watcher", "/#/w/no-such-table", ".notice [role=alert]")),
]
"""Every screen: its name and how the tour gets a page there (in this order)."""

LEAVE = {
    "round-12-seats": ("big",),
    "already-started": ("guest", "latecomer"),
    "final-board": ("host",),
    "play-now": ("newcomer",),
    "tutorial-step": ("learner",),
}
"""The pages no later screen needs, closed once that screen is checked: an open page goes on
drawing its table (eleven bots at the twelve seats, the expert round's bot, three after Play
now) while the tour goes on."""


# --- axe ----------------------------------------------------------------------------------


RUN_AXE = """async ([within, options]) => {
  const results = await axe.run(within ?? document, options);
  return results.violations;
}"""
"""axe.run as axe-playwright-python runs it, returning its violations alone."""


def violations(page: Page, within: str | None = None) -> list[dict[str, Any]]:
    """axe-core's violations on the page, or only within the elements of a selector.
    axe-core (its ~0.5 MB script) goes into a page once, not before every check: the
    client's screens are one document, changed in place."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.axe_script)
    found: list[dict[str, Any]] = page.evaluate(RUN_AXE, [within, AXE_OPTIONS])
    return found


def check_now(page: Page, screen: str, within: str, still: str) -> bool:
    """axe at once on a part of the page that shows only for a moment (``within``): no
    violation there, if the page's ``still`` (a JavaScript predicate) holds before and
    after the check (else nothing is known and the answer is False)."""
    if not page.evaluate(still):
        return False
    found = violations(page, within)
    if not page.evaluate(still):
        return False
    assert not found, f"axe-core on the {screen}:\n" + "\n".join(describe(screen, v) for v in found)
    return True


def describe(screen: str, violation: dict[str, Any]) -> str:
    """One violation for the reader of a failed run: rule, impact, where, what to do."""
    lines = [f"[{screen}] {violation['id']} ({violation['impact']}): {violation['help']} -- {violation['helpUrl']}"]
    for node in violation["nodes"][:8]:
        target = " ".join(str(part) for part in node["target"])
        summary = node.get("failureSummary", "").replace("\n", " ")
        lines.append(f"    {target}: {summary[:300]}")
    if len(violation["nodes"]) > 8:
        lines.append(f"    ... and {len(violation['nodes']) - 8} more elements")
    return "\n".join(lines)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=lambda size: size.name)
def test_axe_finds_no_violation_on_any_screen(pages: Any, server: Any, artifacts: Path, size: Size) -> None:
    tour = Tour(pages, server, size)
    found: list[str] = []
    checked: list[str] = []
    for screen, reach in SCREENS:
        page = reach(tour)
        found += [describe(screen, violation) for violation in violations(page)]
        screenshot(page, artifacts / f"a11y-{size.name}-{screen}.png")
        checked.append(screen)
        for role in LEAVE.get(screen, ()):
            tour.leave(role)
    assert checked == [screen for screen, _ in SCREENS]
    assert tour.left == {role for roles in LEAVE.values() for role in roles}
    assert not found, f"axe-core at {size.width}x{size.height}:\n" + "\n".join(found)
