"""The in-app rules page: every language loads, has the same sections, and names every option and preset."""

from __future__ import annotations

import re

import pytest

from ligretto import rulebook
from ligretto.engine.rules import OPTIONS, PRESETS


def test_languages_and_names() -> None:
    assert rulebook.LANGUAGES == ("en", "es", "pt", "it", "fr", "fi", "de")
    assert set(rulebook.NAMES) == set(rulebook.LANGUAGES)
    assert rulebook.NAMES["fi"] == "Suomi"
    assert rulebook.NAMES["de"] == "Deutsch"


@pytest.mark.parametrize("lang", rulebook.LANGUAGES)
def test_every_language_loads(lang: str) -> None:
    page = rulebook.text(lang)
    assert page.startswith("# Ligretto")
    assert 120 <= len(page.splitlines()) <= 250
    assert "Ligretto Stop" in page


@pytest.mark.parametrize("lang", rulebook.LANGUAGES)
def test_same_sections_as_english(lang: str) -> None:
    english = rulebook.sections("en")
    assert len(english) >= 8
    assert len(rulebook.sections(lang)) == len(english)
    # Same structure below the sections too: one ### subsection per rule option, same order.
    options = re.findall(r"^### `(\w+)`", rulebook.text(lang), flags=re.MULTILINE)
    assert options == list(OPTIONS)


@pytest.mark.parametrize("lang", rulebook.LANGUAGES)
def test_every_option_and_preset_is_named(lang: str) -> None:
    page = rulebook.text(lang)
    for name in [*OPTIONS, *PRESETS]:
        assert f"`{name}`" in page, f"{lang}: {name!r} missing"


@pytest.mark.parametrize("lang", rulebook.LANGUAGES)
def test_option_values_are_spelled_as_the_engine_spells_them(lang: str) -> None:
    page = rulebook.text(lang)
    for value in ("classic", "by_boxes", "turn_remaining", "recycle", "cards", "first_out", "target:N", "rounds:N"):
        assert f"`{value}`" in page, f"{lang}: value {value!r} missing"
    # Every preset's changes are spelled out as option=value, and each of them is a valid setting.
    for changes in PRESETS.values():
        for option, value in changes.items():
            setting = f"{option}={str(value).lower()}"
            assert f"`{setting}`" in page, f"{lang}: {setting!r} missing"
            OPTIONS[option].parse(str(value))


@pytest.mark.parametrize("lang", rulebook.LANGUAGES)
def test_sections_are_the_level_two_headings(lang: str) -> None:
    headings = rulebook.sections(lang)
    assert all(heading and not heading.startswith("#") for heading in headings)
    # The "Ligretto Stop!" section stands at the same place as in English (¡…!, "… !" allowed).
    stop = [index for index, heading in enumerate(headings) if "Ligretto Stop" in heading]
    assert stop == [rulebook.sections("en").index("Ligretto Stop!")]


@pytest.mark.parametrize("lang", ["xx", "EN", "", "en.md", "../en"])
def test_unknown_language_gives_a_clear_error(lang: str) -> None:
    with pytest.raises(KeyError) as caught:
        rulebook.text(lang)
    message = str(caught.value)
    assert repr(lang) in message
    assert "en, es, pt, it, fr, fi, de" in message
    with pytest.raises(ValueError, match="no rulebook in language"):
        rulebook.sections(lang)
