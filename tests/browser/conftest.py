"""Fixtures of the browser tests: Debian's Chromium driven by Playwright against a real
``ligretto serve`` process on 127.0.0.1.

* ``chromium`` installs Debian's package when /usr/bin/chromium is missing (we are root;
  ``playwright install`` cannot download browsers on this network).
* ``server`` is one ``ligretto serve`` for the whole session (each test makes its own
  tables), its rate limit off (``TEST_RATE``: the test players need no pacing); a
  traceback in its log fails the session.
* ``pages`` opens pages, each in its own browser context (its own localStorage, so its
  own seat token), and fails the test on any JavaScript error in a page.
* Screenshots go to tests/browser/artifacts/ (git-ignored) when ``LIGRETTO_SCREENSHOTS=1``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import ARTIFACTS, LAUNCH_ARGS, PlaywrightLoop, ensure_chromium, screenshot
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from realserver import TEST_RATE, ServerProcess, running


@pytest.fixture(scope="session")
def chromium() -> str:
    return ensure_chromium()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running(ServerProcess.in_folder(tmp_path_factory.mktemp("browser-server"), **TEST_RATE)) as process:
        yield process


@pytest.fixture(scope="session")
def playwright_loop() -> Iterator[PlaywrightLoop]:
    with sync_playwright() as driver:
        loop = PlaywrightLoop(driver)
        asyncio._set_running_loop(None)
        try:
            yield loop
        finally:
            asyncio._set_running_loop(loop.loop)


@pytest.fixture(autouse=True)
def playwright(playwright_loop: PlaywrightLoop) -> Iterator[Playwright]:
    """The worker's driver, its loop marked running for the test."""
    with playwright_loop.shown():
        yield playwright_loop.driver


@pytest.fixture(scope="session")
def browser(playwright_loop: PlaywrightLoop, chromium: str) -> Iterator[Browser]:
    with playwright_loop.shown():
        launched = playwright_loop.driver.chromium.launch(executable_path=chromium, headless=True, args=LAUNCH_ARGS)
    try:
        yield launched
    finally:
        with playwright_loop.shown():
            launched.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


class Pages:
    """Opens pages in fresh contexts; remembers every JavaScript error they raise."""

    def __init__(self, browser: Browser, server: ServerProcess) -> None:
        self.browser = browser
        self.server = server
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def context(
        self,
        *,
        width: int = 1280,
        height: int = 800,
        locale: str = "en-US",
        reduced_motion: bool = False,
        touch: bool = False,
    ) -> BrowserContext:
        """A fresh context; ``touch``: a phone (a touch screen, no mouse, a mobile viewport)."""
        context = self.browser.new_context(
            viewport={"width": width, "height": height},
            locale=locale,
            reduced_motion="reduce" if reduced_motion else "no-preference",
            has_touch=touch,
            is_mobile=touch,
        )
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        return context

    def open(
        self, path: str = "/", *, context: BrowserContext | None = None, width: int = 1280, locale: str = "en-US"
    ) -> Page:
        page = (context or self.context(width=width, locale=locale)).new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        page.goto(self.server.url + path)
        page.wait_for_selector("body[data-ready]")
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Browser, server: ServerProcess) -> Iterator[Pages]:
    opened = Pages(browser, server)
    try:
        yield opened
    finally:
        opened.close()
    assert not opened.errors, f"JavaScript errors: {opened.errors}"


@pytest.fixture
def shot(artifacts: Path, request: pytest.FixtureRequest) -> Callable[..., Path]:
    """Save a screenshot of a page as a test artefact, named after the test (when
    ``LIGRETTO_SCREENSHOTS=1``: ``browserkit.screenshot``)."""

    def take(page: Page, label: str, **options: Any) -> Path:
        return screenshot(page, artifacts / f"{request.node.name}-{label}.png", **options)

    return take
