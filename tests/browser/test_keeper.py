"""The score keeper in the browser (docs/clients.md "Score keeper"), on a real server, with
three phones (390x844, touch) on one sheet: the first screen makes the sheet by taps; an
entry by one phone appears on the others, its scores on the first screen of every phone
(and of a 360x640 one); the seed examples entered by taps give their scores; an impossible
count (on the small phone) stays as entered, marked, its reason on the screen right under
it, and nothing is saved until it is fixed; an unlikely one asks first; a correction and
its undo; two phones entering one round at once, resolved without losing either; one
phone offline entering two rounds that reach the others when it is back; the end of the
match and the CSV read back; after the end, Ben says "This is me" with his own profile
(the match goes into his history), Cy on a seat and off it again, every phone seeing who
is who, and an undo that passes the links by; axe-core on every screen of it.  And in one
page, two rounds per scoring option (by taps on each kind of form, the rest sent as a
phone sends them): the sheet's scores are the engine's.

A sheet's change "within a second" is waited for with a generous bound (SEEN_MS): the
machine running the suite is shared; the server's own tests measure the real delay.
"""

from __future__ import annotations

import csv
import io
import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import PlaywrightLoop, no_horizontal_overflow
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect
from test_accessibility import describe, violations

from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import score_tally

SEEN_MS = 4000
"""How long another phone may take to show a change (the issue asks for a second)."""
PHONE = {"width": 390, "height": 844}
SMALL = {"width": 360, "height": 640}
"""The small phone: the refusal of an impossible count and the scores above the fold."""
NAMES = ("Ana", "Ben", "Cy")
STATIC = Path(__file__).resolve().parents[2] / "src" / "ligretto" / "server" / "static"


class Phones:
    """Three phones at one table, each its own browser context; every JavaScript error kept."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.browser = browser
        self.url = url
        self.errors: list[str] = []
        self.contexts: list[BrowserContext] = []
        self.pages = [self.phone() for _ in range(3)]
        self.contexts[0].grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
        # Ben's phone has a share sheet (recorded): Ana's has none, so she copies.
        self.contexts[1].add_init_script("navigator.share = async (data) => { window.shared = data; };")

    def phone(self) -> Page:
        context = self.browser_context()
        page = context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        return page

    def browser_context(self) -> BrowserContext:
        context = self.browser.new_context(
            viewport=PHONE, has_touch=True, is_mobile=True, locale="en-US", reduced_motion="reduce"
        )
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        return context

    def open(self, page: Page, path: str) -> Page:
        page.goto(self.url + path)
        page.wait_for_selector("body[data-ready]")
        return page


@pytest.fixture(scope="module")
def phones(browser: Browser, server: Any, playwright_loop: PlaywrightLoop) -> Iterator[Phones]:
    with playwright_loop.shown():
        table = Phones(browser, server.url)
    try:
        yield table
    finally:
        with playwright_loop.shown():
            for context in table.contexts:
                context.close()
    assert not table.errors, f"JavaScript errors: {table.errors}"


def api(server_url: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        server_url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def no_violations(page: Page, screen: str, found: list[str]) -> None:
    """axe-core's findings on a screen, and nothing sticking out sideways."""
    found.extend(describe(screen, violation) for violation in violations(page))
    document, viewport = no_horizontal_overflow(page)
    if document > viewport:
        found.append(f"{screen}: the page is {document} px wide in a {viewport} px viewport")


# --- entering a round by taps ---------------------------------------------------------------


def tap_count(page: Page, field: str, seat: int, n: int) -> None:
    """A count typed on the number pad: the count, its digits, OK."""
    page.locator(f"#entry-{field}-{seat}").tap()
    pad = page.locator(f".entry-player[data-seat='{seat}'] .count[data-field='{field}'] .pad")
    for digit in str(n):
        pad.locator(f".pad-key[data-digit='{digit}']").tap()
    pad.locator(".pad-key[data-ok]").tap()


def step(page: Page, field: str, seat: int, by: int) -> None:
    """The steppers: `by` taps of + (or of − when negative)."""
    button = page.locator(f"#entry-{field}-{seat}-{'plus' if by > 0 else 'minus'}")
    for _ in range(abs(by)):
        button.tap()


def enter_round(page: Page, center: list[int], stack: list[int], stopped_by: int | None, *, start: bool = True) -> None:
    """Open the next round's form (unless open already), tap every count, say who stopped, save."""
    if start:
        page.locator("#keep-enter").tap()
    for seat, (c, s) in enumerate(zip(center, stack, strict=True)):
        if c:
            tap_count(page, "center", seat, c)
        if s:
            step(page, "stack", seat, s) if s <= 4 else tap_count(page, "stack", seat, s)
    page.locator("#entry-stalemate" if stopped_by is None else f"#entry-stop-{stopped_by}").check()
    page.locator("#entry-save").tap()


def in_view(page: Page, selector: str) -> dict[str, float]:
    """The element's box, which must lie on the screen as it is scrolled now."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    width, height = page.evaluate("() => [innerWidth, innerHeight]")
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box, height)
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box, width)
    return box


def impossible(page: Page, field: str, seat: int, shown: str, reason: str) -> None:
    """A count out of bounds: shown as entered, marked invalid, its reason (an alert the field
    names) on the screen right under the count."""
    value, problem = f"#entry-{field}-{seat}", f"#entry-{field}-{seat}-problem"
    expect(page.locator(value)).to_have_text(shown)
    expect(page.locator(value)).to_have_attribute("aria-invalid", "true")
    expect(page.locator(value)).to_have_attribute("aria-describedby", problem[1:])
    expect(page.locator(problem)).to_have_text(reason)
    expect(page.locator(problem)).to_have_attribute("role", "alert")
    count, said = in_view(page, value), in_view(page, problem)
    assert 0 <= said["y"] - (count["y"] + count["height"]) <= 16, "the reason is right under the count"
    assert page.locator("#entry-message").inner_text() == "", "not at the bottom of the form"


def scores_above_the_fold(page: Page) -> None:
    """From the top of the sheet's page the last round's scores are on the screen, every line."""
    page.evaluate("() => scrollTo(0, 0)")
    for row in range(page.locator("#keep-last-round tr[data-seat]").count()):
        in_view(page, f"#keep-last-round tbody tr:nth-child({row + 1})")


def rounds_shown(page: Page, n: int) -> None:
    expect(page.locator("#keep-page")).to_have_attribute("data-rounds", str(n), timeout=SEEN_MS)


def last_round(page: Page) -> list[dict[str, int]]:
    """The last round's lines as the sheet shows them, by seat."""
    rows: list[dict[str, Any]] = page.evaluate(
        "() => [...document.querySelectorAll('#keep-last-round tr[data-seat]')].map((r) => ({...r.dataset}))"
    )
    return [{key: int(value) for key, value in row.items()} for row in sorted(rows, key=lambda row: int(row["seat"]))]


def totals(page: Page) -> list[int]:
    rows: list[list[int]] = page.evaluate(
        "() => [...document.querySelectorAll('#keep-rounds tr[data-seat]')]"
        ".map((r) => [Number(r.dataset.seat), Number(r.dataset.total)])"
    )
    return [total for _, total in sorted(rows)]


# --- the tour of three phones -------------------------------------------------------------------


def start_sheet(phones: Phones, shot: Callable[..., Path], found: list[str]) -> str:
    """Ana's phone: the lobby's button, the rules (five rounds), three players, Cy's back, go."""
    ana = phones.open(phones.pages[0], "/")
    ana.locator("#keep-button").tap()
    ana.wait_for_selector("#keep-go")
    ana.select_option("#keep-preset", "classic")
    ana.select_option("#keep-match_end-kind", "rounds")
    ana.fill("#keep-match_end", "5")
    ana.locator("#keep-match_end").dispatch_event("change")
    # Up to twelve players, each with a deck of its own back; then down to three.
    for _ in range(8):
        ana.locator("#keep-add").tap()
    expect(ana.locator(".keep-player")).to_have_count(12)
    expect(ana.locator("#keep-add")).to_be_disabled()
    backs = ana.locator(".keep-player .back-button .back").evaluate_all(
        "(backs) => backs.map((b) => `${b.dataset.box} ${b.dataset.symbol}`)"
    )
    assert len(set(backs)) == 12
    for _ in range(9):
        ana.locator("#keep-remove-3").tap()
    expect(ana.locator(".keep-player")).to_have_count(3)
    for seat, name in enumerate(NAMES):
        ana.fill(f"#keep-name-{seat}", name)
    # Another language draws the screen again: what was chosen stays.
    ana.select_option("#lang", "de")
    expect(ana.locator("#keep-go")).to_have_text("Punkteblatt beginnen")
    ana.select_option("#lang", "en")
    expect(ana.locator("#keep-match_end")).to_have_value("5")
    expect(ana.locator("#keep-name-2")).to_have_value("Cy")
    ana.locator("#keep-me-0").check()  # Ana's profile: the match goes into her history
    ana.locator("#keep-back-2").tap()
    ana.locator("#keep-backs-2 input[data-box='green'][data-symbol='moon']").check()
    expect(ana.locator("#keep-back-2 .back")).to_have_attribute("data-box", "green")
    no_violations(ana, "first screen", found)
    shot(ana, "start-390")
    ana.set_viewport_size({"width": 1280, "height": 800})
    shot(ana, "start-1280", full_page=True)
    no_violations(ana, "first screen at 1280x800", found)
    ana.set_viewport_size(PHONE)
    ana.locator("#keep-go").tap()
    ana.wait_for_function("() => /^#\\/keep\\/[A-Za-z0-9_-]+$/.test(location.hash)")
    code = ana.evaluate("() => location.hash.split('/')[2]")
    sheet = api(phones.url, "GET", f"/api/sheets/{code}")
    assert [p["name"] for p in sheet["players"]] == list(NAMES)
    assert sheet["players"][2]["back"] == {"colour": "green", "symbol": "moon"}
    assert sheet["players"][0]["back"] == {"colour": "red", "symbol": "sun"}
    assert sheet["rules"]["match_end"] == "rounds:5"
    assert sheet["rounds"] == []
    return code


def test_three_phones_keep_one_sheet(phones: Phones, shot: Callable[..., Path]) -> None:
    found: list[str] = []
    code = start_sheet(phones, shot, found)
    ana, ben, cy = phones.pages
    for page in (ben, cy):
        phones.open(page, f"/#/keep/{code}")
    for page in phones.pages:
        expect(page.locator("#keep-status")).to_have_class("keep-status live", timeout=SEEN_MS)
    expect(ana.locator("#keep-qr")).to_be_visible()
    no_violations(ben, "empty sheet", found)
    # Who is who: Ana's profile is on her seat (made with "me"); the others may say "This is me".
    expect(ana.locator("#keep-seats li[data-seat='0']")).to_have_attribute("data-state", "mine")
    expect(ana.locator("#keep-unlink-0")).to_have_text("Not me")
    expect(ana.locator("#keep-seats button[id^='keep-claim-']")).to_have_count(0)  # she has a seat
    for page in (ben, cy):
        expect(page.locator("#keep-seats li[data-seat='0']")).to_have_attribute("data-state", "linked")
        expect(page.locator("#keep-seats button[id^='keep-claim-']")).to_have_count(2)
        expect(page.locator("#keep-claim-0")).to_have_count(0)

    # An impossible count, on the small phone: kept as entered and marked, its reason right
    # under it on the screen (read out), and the round is not saved: 11 in a stack, then a
    # negative count.  Fixed, the mark and the reason go.
    ben.set_viewport_size(SMALL)
    ben.locator("#keep-enter").tap()
    tap_count(ben, "stack", 1, 11)
    impossible(ben, "stack", 1, "11", "Ben: a Ligretto stack holds 0 to 10 cards.")
    shot(ben, "entry-refused-360")
    ben.locator("#entry-save").tap()
    expect(ben.locator("#entry-stack-1")).to_be_focused()
    impossible(ben, "stack", 1, "11", "Ben: a Ligretto stack holds 0 to 10 cards.")
    step(ben, "stack", 1, -1)
    expect(ben.locator("#entry-stack-1-problem")).to_have_text("")
    expect(ben.locator("#entry-stack-1")).not_to_have_attribute("aria-invalid", "true")
    expect(ben.locator("#entry-stack-1")).to_have_text("10")
    step(ben, "center", 2, -1)
    impossible(ben, "center", 2, "\u22121", "Cy: a count cannot be negative.")
    no_violations(ben, "entry with a refusal", found)
    ben.locator("#entry-cancel").tap()
    ben.set_viewport_size(PHONE)
    assert api(phones.url, "GET", f"/api/sheets/{code}")["version"] == 0

    # What only the server can judge, it says, and the page shows it as it says it.
    enter_round(ben, [18, 11, 9], [2, 3, 4], 0)
    expect(ben.locator("#keep-refusal")).to_contain_text("Ana called Stop with 2 cards left in the Ligretto stack")
    no_violations(ben, "refused by the server", found)
    ben.locator("#keep-refusal-fix").tap()
    expect(ben.locator("#entry-stack-0")).to_have_text("2")
    expect(ben.locator("#entry-center-0")).to_have_text("18")
    ben.locator("#entry-cancel").tap()
    assert api(phones.url, "GET", f"/api/sheets/{code}")["version"] == 0

    # The seed example by taps: 18/0 -> 18 (Stop), 11/3 -> 5, 9/4 -> 1; the others see it,
    # the scores above the fold on every phone, also on a 360x640 one.
    enter_round(ana, [18, 11, 9], [0, 3, 4], 0)
    for page in phones.pages:
        rounds_shown(page, 1)
        assert [line["score"] for line in last_round(page)] == [18, 5, 1]
        scores_above_the_fold(page)
    shot(cy, "round1-390", full_page=True)
    cy.set_viewport_size(SMALL)
    scores_above_the_fold(cy)
    shot(cy, "round1-360")
    cy.set_viewport_size(PHONE)

    # An unlikely entry asks first: Ana also at 0 after Cy's Stop.  18/4 -> 10.
    enter_round(ben, [5, 18, 7], [0, 4, 0], 2)
    expect(ben.locator("#entry-confirm")).to_be_visible()
    no_violations(ben, "confirm", found)
    ben.locator("#entry-confirm-no").tap()
    expect(ben.locator("#entry")).to_be_visible()
    assert api(phones.url, "GET", f"/api/sheets/{code}")["version"] == 1
    ben.locator("#entry-save").tap()
    ben.locator("#entry-confirm-yes").tap()
    for page in phones.pages:
        rounds_shown(page, 2)
        assert [line["score"] for line in last_round(page)] == [5, 10, 7]
        assert totals(page) == [23, 15, 8]

    # A correction by Cy (round 1: 10 in the center, not 9), everywhere; then Ana's undo.
    cy.locator("#keep-correct-1").tap()
    expect(cy.locator("#entry-center-2")).to_have_text("9")
    cy.locator("#entry-center-2").press("Enter")  # the number pad by keyboard: 1, 0, Enter
    cy.keyboard.type("10")
    cy.keyboard.press("Enter")
    expect(cy.locator("#entry-center-2")).to_have_text("10")
    expect(cy.locator("#entry-center-2")).to_be_focused()
    cy.locator("#entry-save").tap()
    for page in phones.pages:
        expect(page.locator("#keep-rounds tr[data-seat='2']")).to_have_attribute("data-total", "9", timeout=SEEN_MS)
    ana.locator("#keep-changes summary").tap()
    expect(ana.locator("#keep-changes li[data-kind='correction']")).to_contain_text("Cy: center 9 → 10")
    no_violations(ana, "change history", found)
    ana.locator("#keep-undo").tap()
    for page in phones.pages:
        expect(page.locator("#keep-rounds tr[data-seat='2']")).to_have_attribute("data-total", "8", timeout=SEEN_MS)
    expect(ana.locator("#keep-changes li[data-kind='undo']")).to_have_count(1)

    # Two phones enter round 3 at once: the later one sees both side by side, nothing lost.
    ana.locator("#keep-enter").tap()
    ben.locator("#keep-enter").tap()
    enter_round(ana, [20, 8, 6], [0, 5, 6], 0, start=False)
    rounds_shown(ben, 3)
    enter_round(ben, [9, 21, 4], [3, 0, 8], 1, start=False)
    expect(ben.locator("#keep-conflict")).to_be_visible()
    conflict = ben.locator("#keep-conflict-table")
    expect(conflict.locator("tr[data-seat='0'] td[data-side='theirs'][data-field='center']")).to_have_text("20")
    expect(conflict.locator("tr[data-seat='1'] td[data-side='yours'][data-field='center']")).to_have_text("21")
    expect(conflict.locator("tr[data-seat='1'] td[data-side='theirs'][data-field='stack']")).to_have_text("5")
    no_violations(ben, "conflict", found)
    shot(ben, "conflict-390", full_page=True)
    ben.locator("#keep-mine").tap()
    for page in phones.pages:
        expect(page.locator("#keep-last-round tr[data-seat='1']")).to_have_attribute(
            "data-score", "21", timeout=SEEN_MS
        )
    changes = api(phones.url, "GET", f"/api/sheets/{code}")["changes"]
    third = [c for c in changes if c["round"] == 3]
    assert [c["kind"] for c in third] == ["entry", "correction"]
    assert third[0]["after"]["center"] == [20, 8, 6] and third[1]["before"]["center"] == [20, 8, 6]
    assert third[1]["after"]["center"] == [9, 21, 4]

    # Cy's phone offline enters rounds 4 and 5: waiting to sync; everywhere once it is back.
    # The app's files are kept by its service worker: a reload offline still shows the sheet.
    cy.wait_for_function(
        "async () => Boolean((await navigator.serviceWorker.ready).active && navigator.serviceWorker.controller)"
    )
    cy.context.set_offline(True)
    expect(cy.locator("#keep-status")).to_have_class("keep-status offline", timeout=SEEN_MS)
    enter_round(cy, [4, 5, 12], [6, 7, 0], 2)
    enter_round(cy, [15, 3, 3], [0, 9, 10], 0)
    expect(cy.locator("#keep-status")).to_have_text("2 waiting to sync")
    expect(cy.locator("#keep-waiting .waiting-entry")).to_have_count(2)
    no_violations(cy, "offline", found)
    shot(cy, "offline-390", full_page=True)
    assert ana.locator("#keep-page").get_attribute("data-rounds") == "3"
    cy.reload()
    cy.wait_for_selector("body[data-ready]")
    expect(cy.locator("#keep-status")).to_have_text("2 waiting to sync")
    expect(cy.locator("#keep-page")).to_have_attribute("data-rounds", "3")
    cy.context.set_offline(False)
    for page in phones.pages:
        rounds_shown(page, 5)
    expect(cy.locator("#keep-waiting")).to_have_count(0)

    # The end: five rounds.  Winners, places, summary, the CSV read back.
    sheet = api(phones.url, "GET", f"/api/sheets/{code}")
    assert sheet["over"] is True
    for page in phones.pages:
        expect(page.locator("#keep-result")).to_be_visible(timeout=SEEN_MS)
        expect(page.locator("#keep-enter")).to_have_count(0)
    names = ", ".join(NAMES[seat] for seat in sheet["winners"])
    expect(ana.locator("#match-result")).to_contain_text(names)
    places = ana.locator("#match-places li").evaluate_all(
        "(items) => items.map((li) => [Number(li.dataset.seat), Number(li.dataset.place)])"
    )
    assert sorted(places) == [[seat, place] for seat, place in enumerate(sheet["places"])]
    summary = ana.inner_text("#keep-summary")
    assert summary.splitlines()[1:4] == ["1st Ana: 33", "2nd Ben: 12", "3rd Cy: \u22129"]
    expect(ana.locator("#keep-share-summary")).to_have_count(0)  # no share sheet here: copy
    ana.locator("#keep-copy").tap()
    expect(ana.locator("#toasts")).to_contain_text("Summary copied")
    assert ana.evaluate("navigator.clipboard.readText()") == summary
    ben.locator("#keep-share-summary").tap()
    ben.wait_for_function("() => Boolean(window.shared)")
    assert ben.evaluate("window.shared.text") == summary
    no_violations(ana, "match over", found)
    shot(ana, "over-390", full_page=True)
    with ana.expect_download() as download:
        ana.locator("#keep-csv").tap()
    rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))
    assert len(rows) == 5 * 3
    for round_ in sheet["rounds"]:
        lines = [row for row in rows if int(row["round"]) == round_["n"]]
        assert [int(row["center"]) for row in lines] == round_["entry"]["center"]
        assert [int(row["stack"]) for row in lines] == round_["entry"]["stack"]
        scores = sheet["sheet"]["rounds"][round_["n"] - 1]
        assert [int(row["score"]) for row in lines] == [line["score"] for line in scores["lines"]]
        assert [int(row["total"]) for row in lines] == scores["totals"]
    ana.set_viewport_size({"width": 1280, "height": 800})
    shot(ana, "over-1280", full_page=True)
    no_violations(ana, "match over at 1280x800", found)

    # After the end Ben says "This is me": his profile is on his seat on every phone, and the
    # match in his history; Cy takes seat 2 and leaves it again.  The creator frees no seat now.
    ben.locator("#keep-claim-1").tap()
    for page, state in ((ana, "linked"), (ben, "mine"), (cy, "linked")):
        expect(page.locator("#keep-seats li[data-seat='1']")).to_have_attribute("data-state", state, timeout=SEEN_MS)
    expect(ben.locator("#keep-unlink-1")).to_have_attribute("aria-label", "Ben is not me: unlink my profile")
    expect(ana.locator("#keep-unlink-1")).to_have_count(0)
    expect(cy.locator("#keep-claim-1")).to_have_count(0)
    cy.locator("#keep-claim-2").tap()
    expect(cy.locator("#keep-seats li[data-seat='2']")).to_have_attribute("data-state", "mine", timeout=SEEN_MS)
    shot(cy, "seats-390", full_page=True)
    no_violations(cy, "who is who", found)
    cy.locator("#keep-unlink-2").tap()
    for page in phones.pages:
        expect(page.locator("#keep-seats li[data-seat='2']")).to_have_attribute("data-state", "open", timeout=SEEN_MS)
    cy.locator("#keep-changes summary").tap()
    expect(cy.locator("#keep-changes li[data-kind='link']").last).to_contain_text("linked their profile to Ben")
    expect(cy.locator("#keep-changes li[data-kind='unlink']")).to_contain_text("unlinked the profile of Cy")
    linked = api(phones.url, "GET", f"/api/sheets/{code}")
    ana_id, ben_id, nobody = (player["profile"] for player in linked["players"])
    assert ana_id and ben_id and ben_id != ana_id and nobody is None
    assert linked["version"] == sheet["version"] + 3 and linked["rounds"] == sheet["rounds"]
    ben.evaluate("() => { location.hash = '#/history'; }")
    expect(ben.locator(".history-match[data-kind='table']")).to_have_count(1)

    # Ana's history has the match, played on a real table, unrated.
    ana.evaluate("() => { location.hash = '#/history'; }")
    match = ana.locator(".history-match[data-kind='table']")
    expect(match).to_have_count(1)
    expect(match).to_contain_text("Played on a real table")
    expect(match).to_contain_text("not rated")
    expect(match.locator(".history-sheet-link")).to_have_attribute("href", f"#/keep/{code}")

    # Cy's undo passes the links by: the last round comes off, the match is not over, so it
    # leaves the histories; Ben's seat stays his.
    cy.locator("#keep-undo").tap()
    rounds_shown(cy, 4)
    undone = api(phones.url, "GET", f"/api/sheets/{code}")
    assert [player["profile"] for player in undone["players"]] == [ana_id, ben_id, None]
    assert not undone["over"] and undone["changes"][-1]["undoes"] == sheet["version"]
    assert api(phones.url, "GET", f"/api/profiles/{ben_id}/matches")["total"] == 0
    assert not found, "axe-core on the score keeper:\n" + "\n".join(found)


# --- the engine's scores, for every scoring option -----------------------------------------------

ROUND = ([18, 11, 9], [0, 3, 4], 0)
"""The seed example's round; and one with a deep negative, for floor_at_zero."""
DEEP = ([2, 14, 3], [9, 0, 10], 1)
CASES = [
    *[(preset, {}) for preset in ("classic", "seed-es", "seed-pt", "seed-it", "seed-fr", "seed-fi", "expert")],
    ("classic", {"stack_penalty": 3}),
    ("classic", {"stack_penalty": 0}),
    ("classic", {"floor_at_zero": True}),
    ("classic", {"floor_at_zero": True, "stack_penalty": 3}),
    ("classic", {"scoring": "first_out"}),
    ("seed-pt", {"scoring": "first_out"}),
]


TAPPED = {("classic", ()), ("classic", (("scoring", "first_out"),))}
"""The cases whose rounds are entered by taps: the form's two kinds (counts by steppers and
number pad; under ``first_out`` only who stopped). The form reads nothing else of the rules
(keepentry.js), so the other cases' rounds are sent over the API as a phone sends them (the
same ``PUT``), and the page shows the sheet the server scored, checked against the engine."""


def test_the_sheets_scores_are_the_engines_for_every_scoring_option(phones: Phones, shot: Callable[..., Path]) -> None:
    """One page, one sheet per case (made over the API), two rounds each, entered by taps
    for each kind of form (:data:`TAPPED`); the page shows the engine's scores in every
    case; then the sheet's form in every language."""
    page = phones.pages[0]
    page.set_viewport_size(PHONE)
    phones.open(page, "/#/keep/NoSuchSheet0000")
    expect(page.locator("#keep-page")).to_contain_text("There is no score sheet at this link.")
    players = [
        {"name": name, "back": {"colour": "blue", "symbol": symbol}}
        for name, symbol in zip(NAMES, ("sun", "moon", "star"), strict=True)
    ]
    checked = 0
    for preset, options in CASES:
        sheet = api(phones.url, "POST", "/api/sheets", {"preset": preset, "options": options, "players": players})
        rules = RuleSet.from_dict(sheet["rules"])
        page.evaluate("(code) => { location.hash = `#/keep/${code}`; }", sheet["code"])
        expect(page.locator("#keep-page")).to_have_attribute("data-rounds", "0")
        tapped = (preset, tuple(sorted(options.items()))) in TAPPED
        for number, (counted, left, stopped_by) in enumerate((ROUND, DEEP), start=1):
            center, stack = counted, left
            first_out = rules.scoring.value == "first_out"
            if first_out:
                center, stack = [0, 0, 0], [0, 0, 0]
            if not tapped:
                ending = "stalemate" if stopped_by is None else "stop"
                counts = {"center": center, "stack": stack, "ending": ending, "stopped_by": stopped_by}
                body = {"entry": counts, "base": None, "by": "test", "id": f"{sheet['code']}-{number}"}
                api(phones.url, "PUT", f"/api/sheets/{sheet['code']}/rounds/{number}", body)
            elif first_out:
                page.locator("#keep-enter").tap()
                expect(page.locator(".entry-player")).to_have_count(0)  # only who stopped
                page.locator(f"#entry-stop-{stopped_by}").check()
                page.locator("#entry-save").tap()
            else:
                enter_round(page, center, stack, stopped_by)
            rounds_shown(page, number)
            expected = [line.score for line in score_tally(rules, center, stack, stopped_by)]
            assert [line["score"] for line in last_round(page)] == expected, (preset, options, number)
            checked += 1
    assert checked == 2 * len(CASES)
    assert {(preset, tuple(sorted(options.items()))) for preset, options in CASES} >= TAPPED

    # A lost answer: the server applied the entry, the phone never heard of it; the phone's
    # retry (the same change id) is applied once: one round, one change, no conflict.
    sheet = api(phones.url, "POST", "/api/sheets", {"preset": "classic", "options": {}, "players": players})
    page.evaluate("(code) => { location.hash = `#/keep/${code}`; }", sheet["code"])
    answers: list[int] = []
    sent: list[str] = []

    def lose_the_first_answer(route: Route) -> None:
        sent.append(json.loads(route.request.post_data or "{}")["id"])
        if answers:
            route.continue_()
            return
        answers.append(route.fetch().status)  # it reached the server
        route.abort()

    page.route("**/api/sheets/*/rounds/1", lose_the_first_answer)
    enter_round(page, *ROUND)
    rounds_shown(page, 1)
    expect(page.locator("#keep-waiting")).to_have_count(0, timeout=10_000)  # the retry was answered
    page.unroute("**/api/sheets/*/rounds/1")
    assert answers == [200] and len(sent) == 2 and sent[0] == sent[1]
    assert len(api(phones.url, "GET", f"/api/sheets/{sheet['code']}")["changes"]) == 1
    expect(page.locator("#keep-conflict")).to_have_count(0)
    expect(page.locator("#keep-page")).to_have_attribute("data-rounds", "1")

    # A conflict resolved the other way: Keep theirs drops this phone's entry, nothing is sent.
    other = phones.open(phones.pages[1], f"/#/keep/{sheet['code']}")
    rounds_shown(other, 1)
    page.locator("#keep-enter").tap()
    other.locator("#keep-enter").tap()
    enter_round(page, *DEEP, start=False)
    rounds_shown(other, 2)
    enter_round(other, [1, 2, 3], [0, 4, 5], 0, start=False)
    expect(other.locator("#keep-conflict")).to_be_visible()
    other.locator("#keep-theirs").tap()
    expect(other.locator("#keep-conflict")).to_have_count(0)
    expect(other.locator("#keep-waiting")).to_have_count(0)
    kept = api(phones.url, "GET", f"/api/sheets/{sheet['code']}")
    assert [c["kind"] for c in kept["changes"]] == ["entry", "entry"]
    assert kept["rounds"][1]["entry"]["center"] == DEEP[0]

    # Every language on the sheet and its form (the counts so far kept): its words, no raw
    # key, nothing sticking out sideways.
    page.locator("#keep-enter").tap()
    step(page, "stack", 1, 2)
    for lang in ("de", "fi", "fr", "es", "it", "pt", "en"):
        page.select_option("#lang", lang)
        page.wait_for_selector(f"html[lang='{lang}'] #entry")
        words = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
        expect(page.locator("#entry-save")).to_have_text(words["keep.entry.save"])
        expect(page.locator("#keep-sheet-title")).to_have_text(words["keep.sheet.title"])
        expect(page.locator("#entry-stack-1")).to_have_text("2")
        assert "⟦" not in page.inner_text("body"), lang
        document, viewport = no_horizontal_overflow(page)
        assert document <= viewport, f"{lang}: the page is {document} px wide at {viewport} px"
        if lang in ("de", "fi"):
            shot(page, f"entry-{lang}-390", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    shot(page, "entry-1280", full_page=True)
    page.set_viewport_size(PHONE)
