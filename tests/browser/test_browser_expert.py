"""The expert variant in the browser: the stack or discard top goes onto a row column
(one lower, another colour) with Shift+S / Shift+D and the column's number, or by
dragging it onto the column; the card it covers stays visible under it.  While placing,
only the columns that take the card are outlined and a prompt says how to cancel (Esc,
or the button again); a place button is disabled when no column takes its card."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import host_table, press, read_board, start_match, wait_settled
from playwright.sync_api import Page, expect

from ligretto.client.mirror import Mirror


def placement(state: dict[str, Any]) -> tuple[str, int, str, str] | None:
    """(source, column, card, covered card) of a stack or discard top that fits a row column."""
    tops = {slot["source"]: slot["card"] for slot in state["own"] if slot["source"] != "row" and slot["card"]}
    for source, card in tops.items():
        for slot in state["own"]:
            under = slot["card"]
            if slot["source"] == "row" and under and Mirror.goes_on(card, [under]):
                return source, slot["position"], card, under
    return None


def legal_columns(state: dict[str, Any], source: str) -> list[int]:
    """The row columns the stack or discard top may go onto (one lower, another colour)."""
    card = next((slot["card"] for slot in state["own"] if slot["source"] == source), None)
    if not card:
        return []
    return [
        slot["position"]
        for slot in state["own"]
        if slot["source"] == "row" and slot["card"] and Mirror.goes_on(card, [slot["card"]])
    ]


def outlined(page: Page) -> list[int]:
    columns: list[str] = page.eval_on_selector_all(".own .drop-column", "cs => cs.map((c) => c.dataset.column)")
    return [int(column) for column in columns]


def check_place_buttons(page: Page, state: dict[str, Any]) -> None:
    """Each place button is disabled exactly when no row column takes its card."""
    for source in ("stack", "discard"):
        button = page.locator(f'.place-button[data-action="place-{source}"]')
        if legal_columns(state, source):
            expect(button).to_be_enabled()
        else:
            expect(button).to_be_disabled()


def covered(page: Page, column: int) -> list[str]:
    cards: list[str] = page.eval_on_selector_all(
        f'.own .column[data-column="{column}"] .column-under [data-card]', "cs => cs.map((c) => c.dataset.card)"
    )
    return cards


def test_expert_cards_go_onto_row_columns_by_keys_and_by_drag(pages: Any, shot: Callable[..., Path]) -> None:
    page = pages.open("/")
    host_table(page, "Eve", seats=2, rounds=1, preset="expert", bots=("random:beginner",))
    start_match(page)
    expect(page.locator(".place-button")).to_have_count(2)
    done: list[str] = []
    for _ in range(300):
        state = read_board(page)
        assert state is not None and not state["ended"], "the round ended before two placements"
        check_place_buttons(page, state)
        found = placement(state)
        if found is None:
            press(page, " ")
            continue
        source, column, card, under = found
        if not done:
            # Only the columns that take the card are outlined, with a one-line prompt;
            # Esc cancels, and so does the button pressed again.
            page.keyboard.press("Shift+S" if source == "stack" else "Shift+D")
            expect(page.locator(".own .place-prompt")).to_be_visible()
            assert outlined(page) == legal_columns(state, source) and column in outlined(page)
            page.keyboard.press("Escape")
            expect(page.locator(".own .drop-column")).to_have_count(0)
            expect(page.locator(".own .place-prompt")).to_have_count(0)
            button = page.locator(f'.place-button[data-action="place-{source}"]')
            button.click()
            expect(button).to_have_attribute("aria-pressed", "true")
            assert outlined(page) == legal_columns(state, source)
            button.click()
            expect(page.locator(".own .drop-column")).to_have_count(0)
            page.keyboard.press("Shift+S" if source == "stack" else "Shift+D")
            expect(page.locator(".own .place-prompt")).to_be_visible()
            shot(page, "placing")
            page.keyboard.press(str(column + 1))
            done.append("keys")
        else:
            page.drag_and_drop(f'.own [data-slot="{source}"]', f'.own .column[data-column="{column}"]')
            done.append("drag")
        wait_settled(page)
        slot = page.locator(f'.own [data-slot="row-{column}"]')
        expect(slot).to_have_attribute("data-card", card)
        assert covered(page, column)[-1] == under
        if len(done) == 2:
            break
    assert done == ["keys", "drag"], done
    page.wait_for_timeout(400)  # the last card lands
    shot(page, "columns")
    # On a phone the columns, the place buttons and the prompt still fit without scrolling.
    page.set_viewport_size({"width": 360, "height": 640})
    page.wait_for_function("() => innerWidth === 360")
    page.keyboard.press(
        "Shift+D" if page.locator('.place-button[data-action="place-discard"]').is_enabled() else "Shift+S"
    )
    fit = page.evaluate(
        """() => {
      const se = document.scrollingElement;
      const out = [...document.querySelectorAll('.own .own-card, .place-button, #turn-button, #vote-button, .pile')]
        .filter((e) => { const r = e.getBoundingClientRect(); return r.bottom > innerHeight || r.right > innerWidth; });
      return [se.scrollHeight <= innerHeight && se.scrollWidth <= innerWidth, out.length];
    }"""
    )
    assert fit == [True, 0], fit
    shot(page, "phone")
