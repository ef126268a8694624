"""Play with people in the browser (issue 29, point 1): on a phone (360x640) and a desktop the lobby's
button queues the page on ``/ws/queue``; it shows the wait and the countdown, Leave
leaves; two pages queued for a table of two land at the same dealt table, each in its
own seat (the token the queue handed out); the lobby's line of who is playing now shows
the one waiting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import no_horizontal_overflow
from playwright.sync_api import Page, expect


def seated_together(*people: Page) -> None:
    """Each page is sent to a table (its countdown or its round on screen), the same table."""
    for page in people:
        page.wait_for_url("**/#/t/*")
        page.wait_for_selector("#countdown, .board.live")
    assert len({page.url.split("#/t/")[1] for page in people}) == 1, [page.url for page in people]


def test_two_pages_play_with_people_and_one_can_leave_first(pages: Any, shot: Callable[..., Path]) -> None:
    ann = pages.open("/", context=pages.context(width=360, height=640))
    ann.fill("#player-name", "Ann")
    ann.locator("#queue-button").scroll_into_view_if_needed()
    expect(ann.locator("#queue-button")).to_be_in_viewport()
    ann.select_option("#queue-seats", "2")
    ann.click("#queue-button")
    status = ann.locator("#queue-status")
    expect(status).to_contain_text("1 person ready for a table of 2")
    expect(status).to_contain_text("starts in")
    expect(ann.locator("#queue-button")).to_be_disabled()
    expect(ann.locator("#queue-leave")).to_be_visible()
    assert no_horizontal_overflow(ann)
    shot(ann, "waiting-360x640")
    ann.click("#queue-leave")
    expect(status).to_have_text("You left the queue.")
    expect(ann.locator("#queue-button")).to_be_enabled()
    expect(ann.locator("#queue-leave")).to_be_hidden()

    # Ann queues again, Bob (another phone) too: a table of two, dealt, one seat each.
    ann.click("#queue-button")
    expect(status).to_contain_text("1 person ready")
    bob = pages.open("/", context=pages.context(width=1280, height=800))
    bob.fill("#player-name", "Bob")
    assert no_horizontal_overflow(bob)
    # who is playing now (point 2), live on the lobby socket: Ann is waiting
    expect(bob.locator("#people-now")).to_contain_text("1 player waiting")
    expect(bob.locator("#people-now")).to_contain_text("online")
    shot(bob, "lobby-1280x800")
    bob.select_option("#queue-seats", "2")
    bob.click("#queue-button")
    seated_together(ann, bob)
    for page in (ann, bob):
        expect(page.locator(".opponents .opponent")).to_have_count(1)
    expect(ann.locator(".board .own")).to_contain_text("Ann")
    expect(bob.locator(".board .own")).to_contain_text("Bob")
    expect(ann.locator(".opponents")).to_contain_text("Bob")
    shot(ann, "seated-360x640")


def test_friends_make_a_party_and_are_seated_together(pages: Any, shot: Callable[..., Path]) -> None:
    cat = pages.open("/", context=pages.context(width=360, height=640))
    cat.fill("#player-name", "Cat")
    cat.click("#party-make")
    expect(cat.locator("#party-status")).to_contain_text("Cat.")
    code = cat.input_value("#party-code")
    assert code
    dan = pages.open("/", context=pages.context(width=360, height=640))
    dan.fill("#player-name", "Dan")
    dan.fill("#party-code", code)
    dan.click("#party-join")
    for page in (cat, dan):
        expect(page.locator("#party-status")).to_contain_text(f"Party {code}: Cat and Dan.")
    expect(dan.locator("#queue-button")).to_be_disabled()  # the maker starts the wait
    assert no_horizontal_overflow(cat)
    shot(cat, "party-360x640")
    cat.select_option("#queue-seats", "2")
    cat.click("#queue-button")
    seated_together(cat, dan)
    expect(dan.locator(".board .own")).to_contain_text("Dan")
