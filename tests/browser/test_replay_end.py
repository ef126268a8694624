"""The end of a replay on a phone (390x844): the Stop banner shows a moment, as at the
live table, then leaves every seat readable.  A round of eight (Ann, played by her
stand-in, and seven bots) is played in process into the file the server serves; the
page's clock is Playwright's, so "a moment" passes without waiting for it."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from ligretto.engine.rules import RuleSet
from realserver import TEST_RATE, ServerProcess, running
from storedrounds import Person, StoredRounds

SEATS = 8
BOARD_JS = Path(__file__).resolve().parents[2] / "src/ligretto/server/static/js/board.js"


def banner_ms() -> int:
    """``BANNER_MS`` of board.js: how long the banner stays alone at the end."""
    found = re.search(r"export const BANNER_MS = (\d+);", BOARD_JS.read_text(encoding="utf-8"))
    assert found is not None, "board.js no longer says how long the banner stays"
    return int(found.group(1))


BANNER_MS = banner_ms()
COVERED = """() => [...document.querySelectorAll('.opponent')].filter((seat) => {
  const box = seat.getBoundingClientRect();
  const points = [[0.5, 0.5], [0.1, 0.2], [0.9, 0.2], [0.1, 0.8], [0.9, 0.8], [0.3, 0.5], [0.7, 0.5]];
  return points.some(([x, y]) => {
    const hit = document.elementFromPoint(box.left + x * box.width, box.top + y * box.height);
    return hit !== null && !seat.contains(hit);
  });
}).map((seat) => Number(seat.dataset.seat))"""
"""The seats something else lies over (any of seven points of the seat's box)."""


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    folder = tmp_path_factory.mktemp("replay-end")
    rules = RuleSet().replace(match_end="rounds:1")
    with StoredRounds(folder / "ligretto.db", start=time.time()) as stored:  # the store dates the deal
        table = stored.table("END", [Person("Ann")], ["smart:skilled"] * (SEATS - 1), rules=rules, seed=1200)
        stored.play(table)
    assert table.replay_token is not None
    with running(ServerProcess.in_folder(folder, **TEST_RATE)) as server:
        yield server, table.replay_token


def phone(browser: Browser, server: ServerProcess, token: str) -> tuple[Page, int]:
    """The replay at 390x844 on Playwright's paused clock; its number of steps."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US", has_touch=True)
    page = context.new_page()
    start_ms = time.time() * 1000
    page.clock.install(time=start_ms)
    page.goto(f"{server.url}/#/replay/{token}")
    page.wait_for_function("() => window.ligrettoReplay !== undefined")
    page.clock.pause_at(start_ms + 60_000)  # from here the page's time moves only by run_for
    steps: int = page.evaluate("() => window.ligrettoReplay.track.length")
    return page, steps


def at_the_end(page: Page) -> dict[str, Any]:
    """What the end shows: the banner (None: not shown), the covered seats, the scores."""
    shown: dict[str, Any] = page.evaluate(
        """() => { const b = document.querySelector('.banner');
           const box = b && b.getClientRects().length ? b.getBoundingClientRect() : null;
           return {banner: box && b.innerText, seats: document.querySelectorAll('.opponent').length,
                   scores: document.querySelectorAll('#replay-scores li').length}; }"""
    )
    shown["covered"] = page.evaluate(COVERED)
    return shown


def test_the_stop_banner_shows_a_moment_then_leaves_the_seats_readable(
    browser: Browser, replayed: tuple[ServerProcess, str]
) -> None:
    page, last = phone(browser, *replayed)
    page.evaluate(f"() => window.ligrettoReplay.goTo({last - 1})")
    assert at_the_end(page)["banner"] is None
    page.click("#replay-forward")  # the last move, as the timeline plays it
    page.wait_for_selector("#replay-scores")
    end = at_the_end(page)
    assert end["banner"] is not None and "Ligretto Stop!" in end["banner"]  # the end is announced
    assert end["seats"] == SEATS and end["scores"] == SEATS
    assert end["covered"], "a round of eight on a phone: the banner lies over some seat (else this proves nothing)"
    page.clock.run_for(BANNER_MS - 200)
    assert at_the_end(page)["banner"] is not None  # still a moment
    page.clock.run_for(400)
    end = at_the_end(page)
    assert end["banner"] is None and end["covered"] == [] and end["scores"] == SEATS
    page.context.close()


def test_the_banner_shows_again_each_time_the_end_is_reached(
    browser: Browser, replayed: tuple[ServerProcess, str]
) -> None:
    """Scrubbed to the end, then back and to the end again: the banner each time, gone a moment later."""
    page, last = phone(browser, *replayed)
    for _ in range(2):
        page.locator("#replay-timeline").fill(str(last))
        page.wait_for_selector("#replay-scores")
        assert at_the_end(page)["banner"] is not None
        page.clock.run_for(BANNER_MS + 200)
        assert at_the_end(page)["banner"] is None and at_the_end(page)["covered"] == []
        page.locator("#replay-timeline").fill(str(last // 2))
        page.wait_for_selector("#replay-scores", state="detached")
        assert at_the_end(page)["covered"] == []
    page.context.close()
