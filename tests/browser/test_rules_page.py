"""The in-app rules page: GET /api/rules/{lang} serves the rule book as HTML in each of
the seven languages (404 for another), the client shows it and follows a language
switch; and the client's presets are the engine's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from ligretto import rulebook
from ligretto.engine.rules import PRESETS, RuleSet


@pytest.mark.parametrize("lang", rulebook.LANGUAGES)
def test_the_rules_route_renders_each_language_as_html(server: Any, lang: str) -> None:
    status, html = server.http("GET", f"/api/rules/{lang}")
    assert status == 200
    assert html.lstrip().startswith("<h1>")
    headings = [line for line in rulebook.text(lang).splitlines() if line.startswith("## ")]
    assert html.count("<h2>") == len(headings) > 3
    assert "<script" not in html


def test_the_rules_route_refuses_an_unknown_language(server: Any) -> None:
    for lang in ("xx", "EN", "en.md", "..%2Fen"):
        status, _ = server.http("GET", f"/api/rules/{lang}")
        assert status == 404, lang


def test_the_rules_page_shows_the_rule_book_and_follows_the_language(pages: Any, shot: Callable[..., Path]) -> None:
    page = pages.open("/#/rules", width=360)
    book = page.locator("#rulebook")
    expect(book.locator("h1")).to_be_visible()
    english = book.locator("h2").first.inner_text()
    assert english == rulebook.sections("en")[0]
    page.select_option("#lang", "fi")
    expect(book.locator("h2").first).to_have_text(rulebook.sections("fi")[0])
    expect(book).to_have_attribute("lang", "fi")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    shot(page, "rules-fi-360", full_page=True)


def test_the_client_presets_are_the_engine_presets(pages: Any) -> None:
    page = pages.open("/")
    client = page.evaluate(
        "async (names) => { const rules = await import('/js/rules.js');"
        " return Object.fromEntries(names.map((n) => [n, rules.presetRules(n)])); }",
        list(PRESETS),
    )
    assert client == {name: RuleSet.preset(name).to_dict() for name in PRESETS}
