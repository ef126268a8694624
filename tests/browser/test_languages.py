"""Every text in seven languages: the same keys and placeholders in every file, every key
the code uses exists, every rule option, preset, bot, refusal reason and server error has
its words; and a real table renders in every language without sideways overflow at
360 px and 1280 px (screenshots kept in tests/browser/artifacts/)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browserkit import host_table, no_horizontal_overflow, start_match

from ligretto.bots.reaction import LEVELS
from ligretto.bots.strategies import STRATEGIES
from ligretto.engine.cards import Box, Colour, Symbol
from ligretto.engine.events import Ending, Reason
from ligretto.engine.rules import OPTIONS, PRESETS
from ligretto.protocol import Phase

STATIC = Path(__file__).resolve().parents[2] / "src" / "ligretto" / "server" / "static"
LANGUAGES = ("en", "es", "pt", "it", "fr", "fi", "de")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def texts(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def javascript() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted((STATIC / "js").glob("*.js")))


def server_error_codes() -> set[str]:
    codes = {"replaced", "removed"}  # notices the table sends as plain dicts
    for path in STATIC.parent.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'(?:TableError|ProtocolError)\(\s*"(\w+)"', source))
        codes |= set(re.findall(r'_bad\(\s*conn,\s*"(\w+)"', source))
    return codes


def rule_words() -> set[str]:
    """The keys the rule form shows for the engine's presets and options (GET /api/presets):
    every preset and option with its help, and every value of a choice (``row_size.5``)."""
    keys = {f"preset.{name}" for name in PRESETS} | {f"preset.{name}.help" for name in PRESETS}
    keys |= {f"option.{name}" for name in OPTIONS} | {f"option.{name}.help" for name in OPTIONS}
    keys |= {f"{name}.{value}" for name, option in OPTIONS.items() for value in option.choices}
    return keys


def test_the_client_offers_exactly_the_seven_languages() -> None:
    files = {path.stem for path in (STATIC / "i18n").glob("*.json")}
    assert files == set(LANGUAGES)
    module = (STATIC / "js" / "i18n.js").read_text(encoding="utf-8")
    assert set(re.findall(r"^\s+(\w\w): \"", module, re.MULTILINE)) == set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_language_has_every_key_with_the_same_placeholders(lang: str) -> None:
    english, other = texts("en"), texts(lang)
    missing = sorted(set(english) - set(other))
    extra = sorted(set(other) - set(english))
    assert not missing, f"{lang} lacks {missing}"
    assert not extra, f"{lang} has keys English does not: {extra}"
    for key, text in other.items():
        assert text.strip(), f"{lang}: {key} is empty"
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english[key])), (lang, key, text)


def test_every_key_the_code_names_exists_and_every_text_is_used() -> None:
    english = texts("en")
    code = javascript()
    literal = set(re.findall(r'"([a-z_]+(?:\.[a-z0-9_-]+)+)"', code))
    unknown = sorted(key for key in literal if key not in english)
    assert not unknown, f"the code uses keys that en.json lacks: {unknown}"
    families = set(re.findall(r"`([a-z_.]+)\.\$\{", code))
    assert {"preset", "option", "reason", "error", "level", "bot", "phase"} <= families
    # The values of the options the server lists are named by the option's own name.
    assert "`${option.name}.${value}`" in code
    used = literal | rule_words()
    unused = sorted(key for key in english if key not in used and not any(key.startswith(f"{f}.") for f in families))
    assert not unused, f"texts no code shows: {unused}"


def test_every_option_preset_bot_reason_error_and_phase_has_words() -> None:
    english = texts("en")
    wanted = rule_words()
    wanted |= {f"bot.{name}" for name in STRATEGIES} | {f"bot.{name}.help" for name in STRATEGIES}
    wanted |= {f"level.{name}" for name in LEVELS} | {f"level.{name}.help" for name in LEVELS}
    wanted |= {f"reason.{reason.value}" for reason in Reason}
    wanted |= {f"error.{code}" for code in server_error_codes()}
    wanted |= {f"phase.{phase.value}" for phase in Phase}
    wanted |= {f"ending.{ending.value}" for ending in Ending if ending is not Ending.STOP}
    wanted |= {f"colour.{colour.name.lower()}" for colour in Colour}
    wanted |= {f"symbol.{symbol.name.lower()}" for symbol in Symbol}
    wanted |= {f"box.{box.name.lower()}" for box in Box}
    assert len(server_error_codes()) > 20
    assert not sorted(wanted - set(english)), sorted(wanted - set(english))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_words_for_every_engine_preset_and_option(lang: str) -> None:
    """The rule form takes its presets and options from the engine; each of them (and each
    value of a choice) has its words in every language, not just a fallback to its name."""
    missing = sorted(key for key in rule_words() if not texts(lang).get(key, "").strip())
    assert not missing, f"{lang} lacks {missing}"
    assert len(rule_words()) > 2 * (len(PRESETS) + len(OPTIONS))


def visible_text_problems(page: Any) -> list[str]:
    """Raw keys (a missing text shows as ⟦key⟧) and English left in a translated page."""
    text: str = page.evaluate("() => document.body.innerText")
    return re.findall(r"⟦[^⟧]*⟧", text)


def test_a_table_renders_in_every_language_at_phone_and_desktop_width(pages: Any, shot: Callable[..., Path]) -> None:
    host = pages.open("/", width=1280)
    host_table(host, "Alice", rounds=1, bots=("smart:beginner", "greedy:beginner", "random:beginner"))
    start_match(host)
    english_label = host.inner_text("#turn-button + .side-label")
    for lang in LANGUAGES:
        host.select_option("#lang", lang)
        host.wait_for_selector(f"html[lang='{lang}']")
        if lang != "en":
            assert host.inner_text("#turn-button + .side-label") != english_label, f"{lang} still shows English"
        for width in (360, 1280):
            host.set_viewport_size({"width": width, "height": 800})
            host.wait_for_function(f"() => window.innerWidth === {width}")
            assert host.locator(".own .own-card").count() >= 5
            assert host.locator(".opponents .opponent").count() == 3
            assert not visible_text_problems(host), (lang, width, visible_text_problems(host))
            document, viewport = no_horizontal_overflow(host)
            assert document <= viewport, f"{lang} at {width} px: the page is {document} px wide"
            shot(host, f"{lang}-{width}", full_page=True)


def test_the_lobby_follows_the_browser_language_and_fits_a_phone(pages: Any, shot: Callable[..., Path]) -> None:
    for lang, locale in zip(LANGUAGES, ("en-GB", "es-ES", "pt-BR", "it-IT", "fr-FR", "fi-FI", "de-DE"), strict=True):
        page = pages.open("/", width=360, locale=locale)
        page.wait_for_selector(f"html[lang='{lang}']")
        assert page.inner_text("#create-button") == texts(lang)["lobby.create.button"]
        assert page.input_value("#lang") == lang
        assert not visible_text_problems(page)
        document, viewport = no_horizontal_overflow(page)
        assert document <= viewport, f"the {lang} lobby is {document} px wide at 360 px"
        shot(page, f"lobby-{lang}-360", full_page=True)
