"""The in-app rules page: GET /api/rules/{lang} serves the rule book as HTML in each of
the seven languages (404 for another), the client shows it and follows a language
switch; and the create form's presets and options are the engine's (GET /api/presets),
a table created with a preset has the engine's rules, and an option or preset without
words in the client's texts shows by its name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from ligretto import rulebook
from ligretto.engine.rules import OPTIONS, PRESETS, RuleSet


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


READ_OPTIONS = """(names) => Object.fromEntries(names.map((name) => {
  const control = document.getElementById(`create-${name}`);
  const kind = document.getElementById(`create-${name}-kind`);
  if (kind) return [name, `${kind.value}:${control.value}`];
  return [name, control.type === "checkbox" ? control.checked : control.value];
}))"""
"""The create form's option controls as the page shows them: a flag as true/false, any
other value as its text (``kind:N`` for the end of the match)."""


def shown(rules: RuleSet) -> dict[str, Any]:
    """A rule set as :data:`READ_OPTIONS` reads it from the form."""
    return {name: value if isinstance(value, bool) else str(value) for name, value in rules.to_dict().items()}


def first_preset_equal_to(rules: RuleSet) -> str:
    """The preset the form names for a rule set: the first one equal to it."""
    return next(name for name in PRESETS if RuleSet.preset(name) == rules)


def test_the_form_offers_the_engine_presets_and_each_sets_the_engine_options(pages: Any) -> None:
    page = pages.open("/")
    offered = page.eval_on_selector_all("#create-preset option", "(options) => options.map((o) => o.value)")
    assert offered == ["", *PRESETS]  # custom, then the engine's presets in its order
    page.click(".create details.options summary")
    names = list(OPTIONS)
    for name in reversed(PRESETS):  # classic last: the form ends where it started
        page.select_option("#create-preset", name)
        rules = RuleSet.preset(name)
        assert page.evaluate(READ_OPTIONS, names) == shown(rules), name
        # A twin (seed-fi is classic, seed-it is seed-pt) shows as the first preset with its rules.
        assert page.input_value("#create-preset") == first_preset_equal_to(rules)

    # Editing an option shows the preset the options now match, or none (custom).
    page.fill("#create-stack_penalty", "3")
    page.locator("#create-stack_penalty").dispatch_event("change")
    assert page.input_value("#create-preset") == ""
    page.fill("#create-stack_penalty", str(RuleSet().stack_penalty))
    page.locator("#create-stack_penalty").dispatch_event("change")
    assert page.input_value("#create-preset") == "classic"
    page.check("#create-expert")
    assert page.input_value("#create-preset") == first_preset_equal_to(RuleSet().replace(expert=True))


@pytest.mark.parametrize("preset", [name for name in PRESETS if RuleSet.preset(name) != RuleSet()])
def test_a_table_created_with_a_preset_has_the_engine_rules(pages: Any, server: Any, preset: str) -> None:
    page = pages.open("/")
    page.fill("#player-name", "Pia")
    page.select_option("#create-preset", preset)
    page.click("#create-button")
    page.wait_for_selector("#seats .seat")
    code = page.url.rsplit("/", 1)[1]
    status, table = server.http("GET", f"/api/tables/{code}")
    assert status == 200
    assert table["rules"] == RuleSet.preset(preset).to_dict()


def test_an_option_or_preset_without_words_shows_its_name(pages: Any) -> None:
    """A server newer than the client's texts: a preset, an option and a kind of option the
    texts do not know are shown by their names (or as plain text), and nothing breaks."""
    context = pages.context()
    status, catalog = pages.server.http("GET", "/api/presets")
    assert status == 200
    catalog["options"] += [
        {"name": "jokers", "type": "flag", "default": False, "help": "jokers are wild"},
        {"name": "dial", "type": "knob", "default": "low", "help": "a kind of option the client does not know"},
    ]
    classic = {option["name"]: option["default"] for option in catalog["options"]}
    catalog["presets"].append({"name": "house", "rules": {**classic, "jokers": True}})
    context.route("**/api/presets", lambda route: route.fulfill(json=catalog))
    page = pages.open("/", context=context)
    assert page.inner_text("#create-preset option[value=house]") == "house"
    page.click(".create details.options summary")
    assert page.inner_text("label[for=create-jokers]") == "jokers"
    assert page.inner_text("#create-jokers-help") == "jokers are wild"
    assert page.input_value("#create-dial") == "low"
    page.check("#create-jokers")
    assert page.input_value("#create-preset") == "house"
    assert "⟦" not in page.inner_text("body")
