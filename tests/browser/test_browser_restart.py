"""A server killed mid-round (SIGKILL) and started again: the page reconnects by itself
to its seat and shows the round as it left it under a countdown (phase ``countdown`` with
a half-played snapshot: the restored round waits for its people, here for Bob, whose page
was closed), and once Bob's page is back a fresh countdown ends in ``go``, the board goes
live and Alice plays on.  The browser needs nothing special for it: this test checks so."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from browserkit import (
    host_table,
    join_by_link,
    plays_on_once_back,
    shows_the_round_as_it_was,
    start_match,
    turn_the_hand,
)
from playwright.sync_api import expect

from realserver import TEST_RATE, ServerProcess, running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of this module's own: it is killed and started again."""
    with running(ServerProcess.in_folder(tmp_path_factory.mktemp("restart-server"), **TEST_RATE)) as process:
        yield process


def test_after_a_restart_the_page_counts_down_over_the_board_it_left(pages: Any, server: ServerProcess) -> None:
    alice = pages.open()
    code = host_table(alice, "Alice", seats=2)
    bobs = pages.context()
    bob = pages.open(f"/#/t/{code}", context=bobs)
    join_by_link(bob, "Bob")
    start_match(alice, bob)
    before = turn_the_hand(alice)  # the board is no longer the deal's
    assert before["live"] and before["hand"] > 0
    bob.close()  # Bob is away when the server goes down

    server.kill()
    server.start()

    screen = alice.locator(".table-screen")
    expect(screen).to_have_attribute("data-phase", "countdown", timeout=20_000)
    overlay = alice.locator("#countdown")
    expect(overlay).to_have_text(re.compile(r"^\d+$"))
    assert int(overlay.text_content() or 0) >= 10, "the round waits for Bob: the catch-up time and a countdown"
    shows_the_round_as_it_was(alice, before)

    pages.open(f"/#/t/{code}", context=bobs)  # Bob's page again: back at his seat with its token
    plays_on_once_back(alice, before, timeout_ms=10_000)
    assert not pages.errors
