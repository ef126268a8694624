"""Every text in seven languages: the same keys and placeholders in every file, every key
the code uses exists, every rule option, preset, bot, refusal reason and server error has
its words; every text that depends on a number is a family with a whole sentence for each
plural form of every language, chosen by i18n.js's one helper (Intl.PluralRules), and
names in a sentence are joined by Intl.ListFormat; and a real table renders in every
language without sideways overflow or a word broken inside at 360 px and 1280 px
(screenshots kept in tests/browser/artifacts/)."""

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
FORM = re.compile(r"^(?P<family>.+)\.(?P<form>zero|one|two|few|many|other)$")
CARDINAL_FORMS = {"one", "other"}
"""The plural forms of a count in each of the seven languages (CLDR: French, Spanish, Italian
and Portuguese also have "many", for whole millions, which no count of the game reaches;
the helper falls back to "other" for a form a language's file has no text for)."""
ORDINAL_FORMS = {"one", "two", "few", "other"}
"""The forms of a place ("1st", "2nd", "3rd", "4th"): English's, the richest of the seven
(Italian's "many" ordinals fall back to "other")."""
COUNTED = re.compile(r"\{(?P<count>\w+)\} (?:\w+ )?(?:cards|points|pts|rounds|matches|players|tables|moves|seats)\b")
"""An English text that puts a counted noun after a number: it needs a form for one."""
UNCOUNTED = {"keep.check.stack": "its number is a Ligretto stack's size, 10"}


def texts(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def javascript() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted((STATIC / "js").glob("*.js")))


def families(texts: dict[str, str]) -> dict[str, set[str]]:
    """The texts that depend on a number, by family: the forms each has ("own.score": {"one", "other"})."""
    found: dict[str, set[str]] = {}
    for key in texts:
        if (form := FORM.match(key)) and f"{form['family']}.other" in texts:
            found.setdefault(form["family"], set()).add(form["form"])
    return found


def plural_calls(code: str) -> dict[str, str]:
    """Each family the code gives to i18n.js's ``plural``, with its kind ("cardinal", "ordinal")."""
    calls: dict[str, str] = {}
    for call in re.finditer(r'plural\(\s*"([a-z_.]+)"', code):
        depth, end = 1, call.end()
        while depth:  # to the call's own closing parenthesis
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        calls[call.group(1)] = "ordinal" if code[call.end() : end].rstrip(" )").endswith('"ordinal"') else "cardinal"
    return calls


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
    counted = families(english)
    unknown = sorted(key for key in literal if key not in english and key not in counted)
    assert not unknown, f"the code uses keys that en.json lacks: {unknown}"
    prefixes = set(re.findall(r"`([a-z_.]+)\.\$\{", code))
    assert {"preset", "option", "reason", "error", "level", "bot", "phase"} <= prefixes
    # The values of the options the server lists are named by the option's own name.
    assert "`${option.name}.${value}`" in code
    shown = {f"{family}.{form}" for family in counted if family in literal for form in counted[family]}
    used = literal | rule_words() | shown
    unused = sorted(key for key in english if key not in used and not any(key.startswith(f"{f}.") for f in prefixes))
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
    # the waiting room offers every built-in strategy to add as a bot
    offered = re.search(r"export const STRATEGIES = \[([^\]]*)\]", (STATIC / "js" / "rules.js").read_text())
    assert offered is not None
    assert sorted(json.loads(f"[{offered.group(1)}]")) == sorted(STRATEGIES)


def test_every_text_that_counts_is_a_family_with_a_sentence_for_each_plural_form_of_every_language() -> None:
    """A number's words agree with it ("1 point", "2 points"; French "0 point"): such a text
    is a family of whole sentences, one per plural form, in every language, and the code
    shows it only through i18n.js's ``plural`` (no "1 pts", no "1 rated matches")."""
    english = texts("en")
    counted = families(english)
    calls = plural_calls(javascript())
    assert set(calls) == set(counted), "a family no code shows, or a plural() of a text that is no family"
    assert len(counted) >= 20
    for family, kind in calls.items():
        wanted = ORDINAL_FORMS if kind == "ordinal" else CARDINAL_FORMS
        assert counted[family] == wanted, (family, counted[family])
        sentences = {lang: {form: texts(lang)[f"{family}.{form}"] for form in wanted} for lang in LANGUAGES}
        for lang, forms in sentences.items():
            assert len({frozenset(PLACEHOLDER.findall(text)) for text in forms.values()}) == 1, (lang, family, forms)
        if kind == "cardinal":  # a family whose forms were alike in every language would be no family
            assert any(forms["one"] != forms["other"] for forms in sentences.values()), family
    # A number before a counted noun outside the families would read "1 cards" again.
    counting = {key: text for key, text in english.items() if COUNTED.search(text) and not FORM.match(key)}
    assert set(counting) == set(UNCOUNTED), f"counts without a form for one: {sorted(set(counting) - set(UNCOUNTED))}"
    joined = re.findall(r'\.join\(", "\)', javascript())  # one left: history.js's chart, figures, no names
    assert len(joined) <= 1, "names joined by hand: listOf (Intl.ListFormat) joins them"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_words_for_every_engine_preset_and_option(lang: str) -> None:
    """The rule form takes its presets and options from the engine; each of them (and each
    value of a choice) has its words in every language, not just a fallback to its name."""
    missing = sorted(key for key in rule_words() if not texts(lang).get(key, "").strip())
    assert not missing, f"{lang} lacks {missing}"
    assert len(rule_words()) > 2 * (len(PRESETS) + len(OPTIONS))


ZERO_FORM = {"fr": "one"}
"""The plural form of 0 where it is not "other": French says "0 point" (Portugal's
Portuguese, the texts' own, says "0 pontos"; Brazil's would say "0 ponto")."""
AND = {"en": "and", "es": "y", "pt": "e", "it": "e", "fr": "et", "fi": "ja", "de": "und"}

BROKEN_WORDS = """() => {
  // Every word of the page's text drawn on more than one line: broken inside (between
  // letters), not at a space, a hyphen or a slash where a line may end.
  const broken = [];
  const range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.textContent.matchAll(/[^\\s\\-\u2010\u2013\u2014\\/]+/gu)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(`${word[0]} (${node.parentElement.className || node.parentElement.tagName})`);
    }
  }
  return broken;
}"""

HELPER = """async (numbers) => {
  const i18n = await import('/js/i18n.js');
  return {
    scores: numbers.map((n) => i18n.plural('own.score', n, { score: n })),
    places: [1, 2, 3, 4, 11].map((n) => i18n.plural('sheet.ordinal', n, { n }, 'ordinal')),
    names: [i18n.listOf(['Ben']), i18n.listOf(['Ben', 'Di'])],
  };
}"""
"""The page's own i18n.js (the module the page runs): its one plural helper and its lists."""


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
        # The plural helper as the page runs it: 0, 1 and 2 points, places, names joined.
        words = texts(lang)
        helper = host.evaluate(HELPER, [0, 1, 2])
        zero = ZERO_FORM.get(lang, "other")
        forms = ((0, zero), (1, "one"), (2, "other"))
        assert helper["scores"] == [words[f"own.score.{form}"].replace("{score}", str(n)) for n, form in forms], lang
        assert host.inner_text(".own-score") == helper["scores"][0], "the board's own score is not the helper's"
        assert helper["names"] == ["Ben", f"Ben {AND[lang]} Di"], (lang, helper["names"])
        if lang == "en":
            assert helper["places"] == ["1st", "2nd", "3rd", "4th", "11th"]
        for width in (360, 1280):
            host.set_viewport_size({"width": width, "height": 800})
            host.wait_for_function(f"() => window.innerWidth === {width}")
            assert host.locator(".own .own-card").count() >= 5
            assert host.locator(".opponents .opponent").count() == 3
            assert not visible_text_problems(host), (lang, width, visible_text_problems(host))
            document, viewport = no_horizontal_overflow(host)
            assert document <= viewport, f"{lang} at {width} px: the page is {document} px wide"
            assert not host.evaluate(BROKEN_WORDS), f"{lang} at {width} px: words broken inside"
            shot(host, f"{lang}-{width}", full_page=True)


def test_the_lobby_follows_the_browser_language_and_fits_a_phone_with_play_now_in_view(
    pages: Any, shot: Callable[..., Path]
) -> None:
    for lang, locale in zip(LANGUAGES, ("en-GB", "es-ES", "pt-BR", "it-IT", "fr-FR", "fi-FI", "de-DE"), strict=True):
        page = pages.open("/", width=360, locale=locale)
        page.wait_for_selector(f"html[lang='{lang}']")
        assert page.inner_text("#create-button") == texts(lang)["lobby.create.button"]
        assert page.input_value("#lang") == lang
        assert not visible_text_problems(page)
        document, viewport = no_horizontal_overflow(page)
        assert document <= viewport, f"the {lang} lobby is {document} px wide at 360 px"
        assert not page.evaluate(BROKEN_WORDS), f"the {lang} lobby breaks words inside"
        # The first minute on the smallest phone: Play now in view without scrolling.
        page.set_viewport_size({"width": 360, "height": 640})
        button = page.locator("#play-now-button").bounding_box()
        assert button is not None and button["y"] + button["height"] <= 640, f"{lang}: Play now below the fold {button}"
        shot(page, f"lobby-{lang}-360", full_page=True)
