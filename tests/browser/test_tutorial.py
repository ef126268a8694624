"""The tutorial (#/learn) and the beginner aid, in a real browser against a real server.

A scripted learner does the whole tutorial in every language, on one shared server: it
clicks whatever the coach highlights, and checks that each step comes in the script's
order, says its instruction in the page's language, and that the round ends in the
learner's Stop with the engine's score on the score sheet.  In English it also makes
wrong moves (a card that is not highlighted, the hand): a hint, and nothing changes.
The beginner aid is off by default; switched on (the table's help dialog) it marks
exactly the own cards that fit a center pile as the board shows it, follows the events,
and switched off again marks nothing.  Screenshots of a step at 390x844 and 1280x800 (English
and German, with the page's full motion; the five other languages with reduced motion).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import fitting, read_board, wait_settled
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from ligretto.server.table.tutorial import SCRIPT, TUTOR

STATIC = Path(__file__).resolve().parents[2] / "src" / "ligretto" / "server" / "static"
LOCALES = {"en": "en-US", "es": "es-ES", "pt": "pt-PT", "it": "it-IT", "fr": "fr-FR", "fi": "fi-FI", "de": "de-DE"}
STEPS = [step.name for step in SCRIPT] + ["score"]
WAIT_MS = 10_000
SHOWN = ("en", "de")
"""The languages with screenshots, done with the page's full motion."""


def texts(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def fill(text: str, **values: Any) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), text)


def coach_step(page: Page) -> str:
    return str(page.get_attribute("#coach", "data-step"))


def wait_step_after(page: Page, step: str) -> None:
    page.wait_for_function(
        "(step) => { const c = document.querySelector('#coach'); return c && c.dataset.step !== step; }",
        arg=step,
        timeout=WAIT_MS,
    )


def fit_marks(page: Page) -> set[tuple[str, int]]:
    marked: list[list[Any]] = page.evaluate(
        "() => [...document.querySelectorAll('.own .own-card.fits')]"
        ".filter((b) => b.querySelector('.fit-mark'))"
        ".map((b) => [b.dataset.source, Number(b.dataset.position)])"
    )
    return {(str(source), int(position)) for source, position in marked}


def engine_fits(page: Page) -> set[tuple[str, int]]:
    state = read_board(page)
    assert state is not None
    return {(source, position) for source, position, _, _ in fitting(state)}


def set_aid(page: Page, on: bool) -> None:
    """Through the table's help dialog (the Keys button)."""
    page.click(".bar-tools button[aria-keyshortcuts='?']")
    box = page.locator("dialog[open] #help-aid")
    if box.is_checked() != on:
        box.click()
    page.click("dialog[open] form button")
    page.wait_for_selector("dialog[open]", state="detached")


def frames_sent(page: Page) -> list[str]:
    """Every WebSocket frame the page sends from now on."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda data: frames.append(str(data))))
    return frames


def acts(sent: list[str]) -> int:
    return sum(json.loads(frame).get("type") == "act" for frame in sent)


def wrong_moves_change_nothing(page: Page, words: dict[str, str], sent: list[str]) -> None:
    """At step "next" (row: blue 1, green 5, red 2; the red 2 is highlighted)."""
    acts_before = acts(sent)
    assert acts_before == 1, "the red 1 of step one went to the server as an act"
    before = read_board(page)
    assert before is not None
    blue = page.locator('.own [data-slot="row-0"]')
    assert blue.get_attribute("data-card") == "b1" and "tutorial-target" not in (blue.get_attribute("class") or "")
    blue.click()  # a 1 would start a pile: not the step's move
    page.wait_for_selector(f'.own [data-slot="row-0"] .bubble:text-is("{words["tutorial.hint"]}")')
    page.click("#turn-button")  # turning the hand: not the step's move either
    page.wait_for_selector(f'.toast:text-is("{words["tutorial.hint"]}")')
    wait_settled(page)
    after = read_board(page)
    assert after == before, "a wrong move changed the board"
    assert coach_step(page) == "next"
    assert acts(sent) == acts_before, "a wrong move was sent"


def aid_follows_the_piles(page: Page) -> None:
    assert page.locator(".own-card.fits, .fit-mark").count() == 0, "the aid is off by default"
    set_aid(page, True)
    marks = fit_marks(page)
    assert marks == engine_fits(page) == {("row", 0), ("row", 2)}  # the blue 1 and the red 2


def learn(page: Page, lang: str, shot: Callable[..., Path] | None = None, sent: list[str] | None = None) -> list[str]:
    """Do the tutorial by clicking what is highlighted; the steps seen, in order."""
    words, english = texts(lang), texts("en")
    page.wait_for_selector("#coach[data-step='one']", timeout=WAIT_MS)
    page.wait_for_selector(".board.live", timeout=WAIT_MS)
    seen: list[str] = []
    while True:
        step = coach_step(page)
        seen.append(step)
        key = f"tutorial.step.{step}" + (".other" if step == "score" else "")  # 7 points: the plural form "other"
        expected = fill(words[key], center=7, stack=0, score=7) if step == "score" else words[key]
        # The score step's text waits for the round's scores (round_over), a moment after Stop.
        with contextlib.suppress(PlaywrightTimeoutError):
            page.wait_for_function(
                "(text) => document.querySelector('#coach-text').textContent === text", arg=expected, timeout=5000
            )
        text = page.inner_text("#coach-text")
        assert text == expected, (lang, step, text)
        if lang != "en":
            assert text != fill(english[key], center=7, stack=0, score=7), f"{lang}: {step} is in English"
        if step == "score":
            break
        if sent is not None and step == "next":
            wrong_moves_change_nothing(page, words, sent)
            aid_follows_the_piles(page)
        if sent is not None and step == "colour":
            # The language can change in the middle: the coach says the same step in Finnish.
            page.select_option("#lang", "fi")
            page.wait_for_function(
                "(text) => document.querySelector('#coach-text').textContent === text",
                arg=texts("fi")["tutorial.step.colour"],
            )
            assert coach_step(page) == "colour"
            page.select_option("#lang", "en")
            page.wait_for_function("(text) => document.querySelector('#coach-text').textContent === text", arg=expected)
        if shot is not None and step == "refill":
            page.wait_for_function("() => !document.querySelector('.flying')")  # the cards have landed
            shot(page, f"{lang}-step-refill")
        # The round fits the screen under the coach, as any round does (phone and desktop).
        assert page.evaluate("() => document.scrollingElement.scrollHeight <= innerHeight"), step
        if step == "others":
            tutor = page.locator(f'.opponent[data-seat="{TUTOR}"]')
            assert "tutorial-target" in (tutor.get_attribute("class") or "")
        else:
            target = page.locator(".own .own-card.tutorial-target, #turn-button.tutorial-target")
            assert target.count() == 1, f"{step}: one own card or button is highlighted"
            target.click()
        wait_step_after(page, step)
        if sent is not None and step == "next":
            # The aid follows the events: now the blue 1 and the red 3 fit.
            page.wait_for_function("() => document.querySelectorAll('.own .own-card.fits').length === 2")
            assert fit_marks(page) == engine_fits(page) == {("row", 0), ("row", 2)}
            assert page.get_attribute('.own [data-slot="row-2"]', "data-card") == "r3"
            set_aid(page, False)
            assert page.locator(".own-card.fits, .fit-mark").count() == 0
    # The round ended in the learner's Stop; the score sheet is the server's.
    page.wait_for_selector("#score-sheet", timeout=WAIT_MS)
    assert "tutorial-target" in (page.get_attribute("#score-sheet", "class") or "")
    return seen


def test_a_learner_completes_the_tutorial_in_every_language(pages: Any, shot: Callable[..., Path]) -> None:
    for lang, locale in LOCALES.items():
        sent: list[str] | None = None
        if lang == "en":
            page = pages.open("/", locale=locale)
            assert not page.is_checked("#lobby-aid"), "the beginner aid is off by default"
            sent = frames_sent(page)
            page.click("#learn-button")
        else:
            phone, shown = lang == "de", lang in SHOWN
            # The languages without screenshots: a learner who asked for less motion (no
            # flights, no pulsing highlight, which Chromium would otherwise paint every frame).
            context = pages.context(
                width=390 if phone else 1280, height=844 if phone else 800, locale=locale, reduced_motion=not shown
            )
            page = pages.open("/#/learn", context=context)
        seen = learn(page, lang, shot if lang in SHOWN else None, sent)
        assert seen == STEPS, (lang, seen)
        if lang == "en":
            shot(page, "en-score")
            # Rematch deals the tutorial again: the coach starts over at the first step.
            page.click("#rematch-button")
            page.wait_for_selector("#coach[data-step='one']", timeout=WAIT_MS)
            page.wait_for_function("() => document.querySelector('.own [data-slot=\"row-0\"]')?.dataset.card === 'r1'")
            assert page.locator(".own .own-card.tutorial-target").get_attribute("data-card") == "r1"
        page.context.close()
