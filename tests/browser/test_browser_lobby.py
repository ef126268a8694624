"""The lobby's list of public tables when there are more than it shows (docs/protocol.md,
Limits: ``lobby_tables``): the first few, and how many there are in all, in the page's
language."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from realserver import TEST_RATE, ServerProcess, running


@pytest.fixture(scope="module")
def small_lobby(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running(
        ServerProcess.in_folder(tmp_path_factory.mktemp("small-lobby"), lobby_tables=2, **TEST_RATE)
    ) as process:
        yield process


def test_the_lobby_shows_its_first_tables_and_how_many_there_are(browser: Browser, small_lobby: ServerProcess) -> None:
    errors: list[str] = []
    contexts: list[BrowserContext] = []

    def open_lobby(locale: str) -> Page:
        contexts.append(browser.new_context(locale=locale))
        page = contexts[-1].new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(small_lobby.url + "/")
        page.wait_for_selector("body[data-ready]")
        return page

    page = open_lobby("en-US")
    try:
        expect(page.locator("#public-tables")).to_contain_text("No public tables")
        codes = [small_lobby.create_table(public=True) for _ in range(2)]
        expect(page.locator("#public-tables li.table-entry")).to_have_count(2)
        expect(page.locator("#public-tables-more")).to_have_count(0)  # all shown: no note
        codes += [small_lobby.create_table(public=True) for _ in range(3)]
        expect(page.locator("#public-tables-more")).to_have_text(
            "Showing 2 of 5 public tables: join one by its invite code, or create your own."
        )
        expect(page.locator("#public-tables li.table-entry")).to_have_count(2)
        assert small_lobby.http("GET", "/api/tables")[1]["total"] == len(codes) == 5
        german = open_lobby("de-DE")
        expect(german.locator("#public-tables-more")).to_contain_text("2 von 5")
    finally:
        for context in contexts:
            context.close()
    assert not errors, errors
