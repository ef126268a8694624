"""The tutorial (#/learn) and the beginner aid, in a real browser against a real server.

A scripted learner does the whole tutorial, a match of two rounds, in English on a 390x844
phone, German at 1280x800 and Finnish on a 360x640 phone, on one shared server (at every
lesson but the tutor's two moves, which do not wait, the German coach also says it in
Spanish, Portuguese, Italian and French): it clicks whatever the coach highlights, and
checks that each lesson comes in the script's order and says its instruction in the
page's language: a pile
completed at 10, the race the tutor stages (the learner's red 8 beaten to the pile, named
on the card, and still in the row), the learner's Stop and the round's scores as the
engine counts them (10 and -4), *Ready* for round 2, a deal where nobody can play ended by
the stalemate vote (the learner's, then the tutor's), and the match's totals (6 and -8).
At each round's end the coach and the score sheet do not overlap (their boxes) and the
sheet is on the screen; on a phone the header is one line during the round (the page's and
the table's bars side by side), and on the 360x640 phone at the end the coach's words fold
away with the keyboard, the whole score sheet below its head. In English (on a 390x844
phone, from the lobby) it also makes wrong moves (a card that is not highlighted, the
hand): a hint, and nothing changes. The beginner aid is off by default; switched on (the
table's help dialog) it marks exactly the own cards that fit a center pile as the board
shows it, follows the events, and switched off again marks nothing. Screenshots of every
lesson from the race on at 390x844 (English), of a lesson and the end at 1280x800 (German)
and 360x640 (Finnish).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import RECORD_FRAMES, fitting, read_board, wait_settled
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from ligretto.server.table.tutorial import LEARNER, ROUNDS, SCRIPT, TUTOR

STATIC = Path(__file__).resolve().parents[2] / "src" / "ligretto" / "server" / "static"
WALKS = {"en": ("en-US", 390, 844), "de": ("de-DE", 1280, 800), "fi": ("fi-FI", 360, 640)}
"""The languages a learner walks the whole tutorial in, each on its own screen."""
ALSO = ("es", "pt", "it", "fr")
"""The languages the German learner's coach says every lesson in too (switched on the page)."""
LESSONS = [step.name for step in SCRIPT if step.round == 1] + ["score"]
LESSONS += [step.name for step in SCRIPT if step.round == 2] + ["match"]
SHOWN = {"en": {"race", "beaten", "complete", "stop", "score", "new_round", "vote", "agree", "match"}, "de": {"refill"}}
"""The lessons each language takes a screenshot of (with the page's full motion)."""
MINUS = "\u2212"
SCORES = {"center": 10, "stack": 0, "score": 10, "tutor_center": 2, "tutor_stack": 3, "tutor_score": f"{MINUS}4"}
"""Round 1 as the engine scores it (tests/server/table/test_server_tutorial.py)."""
TOTALS = {"rounds": ROUNDS, "total": 6, "tutor_total": f"{MINUS}8"}
WAIT_MS = 10_000


def texts(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def fill(text: str, **values: Any) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), text)


def coach_step(page: Page) -> str:
    return str(page.get_attribute("#coach", "data-step"))


def wait_step_after(page: Page, step: str) -> None:
    """Until the coach has gone on from ``step``; if it does not, the failure says what the
    page sent and received meanwhile, and what it shows (the learner would be stuck)."""
    try:
        page.wait_for_function(
            "(step) => { const c = document.querySelector('#coach'); return c && c.dataset.step !== step; }",
            arg=step,
            timeout=WAIT_MS,
        )
    except PlaywrightTimeoutError:
        seen = page.evaluate(STUCK)
        raise AssertionError(f"the coach stayed at {step!r} for {WAIT_MS} ms: {json.dumps(seen)}") from None


STUCK = """() => ({
  sent: (window.__sent || []).slice(-4),
  received: (window.__frames || []).slice(-8),
  bubbles: (window.bubbles || []).slice(-4),
  toasts: [...document.querySelectorAll('.toast')].map((e) => e.textContent),
  pending: document.querySelector('.board')?.dataset.pending,
  live: Boolean(document.querySelector('.board.live')),
  targets: [...document.querySelectorAll('.tutorial-target')].map((e) => e.dataset.slot || e.id || e.className),
})"""
"""What a stuck lesson's failure shows: the last messages each way, the refusals' words, the
board's state and what is highlighted."""


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
    """Through the table's help dialog (the Keys button; its key on a phone, where the
    button makes room for the round)."""
    keys = page.locator(".bar-tools button[aria-keyshortcuts='?']")
    if keys.is_visible():
        keys.click()
    else:
        page.keyboard.press("?")
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


def expected_text(words: dict[str, str], lesson: str) -> str:
    """The coach's words for a lesson, with the engine's numbers and the buttons' names."""
    return fill(
        words[f"tutorial.step.{lesson}"],
        button=words["sheet.next" if lesson == "score" else "own.vote"],
        **SCORES,
        **TOTALS,
    )


def boxes(page: Page, *selectors: str) -> list[dict[str, float]]:
    """The boxes of the first element of each selector, read at one moment (the badge's
    round trip, say, may widen the header between two reads)."""
    found: list[dict[str, float] | None] = page.evaluate(
        """(selectors) => selectors.map((selector) => {
          const element = document.querySelector(selector);
          if (!element) return null;
          const { x, y, width, height } = element.getBoundingClientRect();
          return { x, y, width, height };
        })""",
        list(selectors),
    )
    assert all(each is not None for each in found), dict(zip(selectors, found, strict=True))
    return [each for each in found if each is not None]


def sheet_beside_the_coach(page: Page, lesson: str) -> None:
    """At a round's end the coach covers no part of the score sheet, which is on the screen."""
    page.wait_for_selector(".sheet-panel #score-sheet.tutorial-target")
    wait_settled(page)
    coach, panel, *ready_box = boxes(page, "#coach", ".sheet-panel", *(["#ready-button"] if lesson == "score" else []))
    height = page.evaluate("() => innerHeight")
    assert coach["y"] + coach["height"] <= panel["y"], (lesson, coach, panel)
    assert panel["y"] + panel["height"] <= height, (lesson, panel, height)
    if lesson == "score":
        [ready] = ready_box
        assert panel["y"] <= ready["y"] and ready["y"] + ready["height"] <= panel["y"] + panel["height"], (ready, panel)


def header_on_one_line(page: Page) -> None:
    """On a phone during a round the page's header and the table's bar share one line, as
    at any table, and the coach comes below it."""
    bar, top, coach = boxes(page, ".table-bar", ".topbar", "#coach")
    assert abs(bar["y"] - top["y"]) < 1 and bar["height"] < 40 and top["height"] < 40, (bar, top)
    assert bar["x"] + bar["width"] <= top["x"] + 1 and top["x"] + top["width"] <= page.viewport_size["width"] + 1, (
        bar,
        top,
    )
    assert coach["y"] >= max(bar["y"] + bar["height"], top["y"] + top["height"]) - 1, (coach, bar, top)


def coach_folds_away(page: Page, words: dict[str, str]) -> None:
    """At the match's end the coach's words can be hidden with the keyboard (its button
    keeps the focus), so that the whole score sheet is on a small phone's screen below the
    coach's head; and shown again."""
    toggle = page.locator("#coach-toggle")
    [coach] = boxes(page, "#coach")
    tall = coach["height"]
    assert tall > 0, "the coach is not shown"
    assert (
        toggle.get_attribute("aria-expanded") == "true"
        and toggle.get_attribute("aria-label") == words["tutorial.coach.hide"]
    )
    toggle.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#coach-text", state="hidden")
    assert (
        toggle.get_attribute("aria-expanded") == "false"
        and toggle.get_attribute("aria-label") == words["tutorial.coach.show"]
    )
    assert page.evaluate("() => document.activeElement.id") == "coach-toggle"
    wait_settled(page)
    coach, sheet, panel = boxes(page, "#coach", "#score-sheet", ".sheet-panel")
    assert coach["height"] < min(tall / 2, 100), (tall, coach)
    assert coach["y"] + coach["height"] <= panel["y"], (coach, panel)
    assert sheet["y"] >= 0 and sheet["y"] + sheet["height"] <= page.evaluate("() => innerHeight"), sheet
    page.keyboard.press("Enter")
    page.wait_for_selector("#coach-text", state="visible")
    assert toggle.get_attribute("aria-expanded") == "true"


def race_is_lost(page: Page, words: dict[str, str]) -> None:
    """After the race: the learner's red 8 was beaten to the pile by the tutor's (its words
    on the card, a moment only), and stayed."""
    # By how much, when the two plays were ranked within a race's 250 ms; else only who
    # (which of the two depends on the learner's measured delay: both say the tutor won).
    tutor = words["tutorial.tutor"]
    said = fill(words["refused.beaten.by"], name=tutor)
    faster = "^" + re.escape(fill(words["refused.faster"], name=tutor, ms="MSMS")).replace("MSMS", r"\d+") + "$"
    page.wait_for_function(
        "([said, faster]) => window.bubbles.some(([, , words]) => words === said || new RegExp(faster).test(words))",
        arg=[said, faster],
    )
    bubbles = page.evaluate("() => window.bubbles")
    told = {(slot, card) for slot, card, text in bubbles if text == said or re.fullmatch(faster[1:-1], text)}
    assert told == {("row-2", "r8")}, bubbles
    assert page.get_attribute('.own [data-slot="row-2"]', "data-card") == "r8"
    assert page.get_attribute('.pile[data-pile="0"]', "data-top") == "8", "the tutor's red 8 took the place"


TUTORS = {step.name for step in SCRIPT if step.seat == TUTOR}
"""The tutor's lessons: its move comes 1.2 s after the learner's, whatever the test does."""
NOTE_TARGETS = """() => {
  const coach = document.querySelector('#coach');
  window.lessonTargets = {};
  const note = () => {
    window.lessonTargets[coach.dataset.step] = [...document.querySelectorAll('.tutorial-target')]
      .map((e) => e.id || `${e.classList[0]}:${e.dataset.seat ?? ''}`);
  };
  note();
  new MutationObserver(note).observe(coach, { attributes: true, attributeFilter: ['data-step'] });
  window.bubbles = [];
  new MutationObserver(() => {
    for (const bubble of document.querySelectorAll('.own-card .bubble')) {
      const slot = bubble.closest('[data-slot]');
      window.bubbles.push([slot.dataset.slot, slot.dataset.card, bubble.textContent]);
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""
"""Keeps, as each lesson comes, what it highlights (``window.lessonTargets``), and every
refusal's words on an own card as they show (``window.bubbles``: slot, card, words)."""


def says(page: Page, text: str) -> None:
    page.wait_for_function("(text) => document.querySelector('#coach-text').textContent === text", arg=text)


def in_other_languages(page: Page, lang: str, lesson: str) -> None:
    """The coach says the lesson in each of :data:`ALSO` (not in English), then in ``lang`` again."""
    for other in ALSO:
        page.select_option("#lang", other)
        text = expected_text(texts(other), lesson)
        assert text != expected_text(texts("en"), lesson), f"{other}: {lesson} is in English"
        says(page, text)
        assert coach_step(page) == lesson
    page.select_option("#lang", lang)
    says(page, expected_text(texts(lang), lesson))


def learn(
    page: Page, lang: str, shot: Callable[..., Path] | None = None, sent: list[str] | None = None, *, also: bool = False
) -> list[str]:
    """Do the tutorial by clicking what is highlighted; the lessons seen, in order.  ``also``:
    at every lesson the coach says it in the other languages too."""
    words, english = texts(lang), texts("en")
    page.wait_for_selector("#coach[data-step='one']", timeout=WAIT_MS)
    page.wait_for_selector(".board.live", timeout=WAIT_MS)
    page.evaluate(NOTE_TARGETS)
    if page.evaluate("() => innerWidth") <= 600:
        header_on_one_line(page)
    seen: list[str] = []
    while True:
        lesson = coach_step(page)
        seen.append(lesson)
        expected = expected_text(words, lesson)
        # A round's end waits for its scores (round_over), a moment after the last move.
        with contextlib.suppress(PlaywrightTimeoutError):
            page.wait_for_function(
                "(text) => document.querySelector('#coach-text').textContent === text", arg=expected, timeout=5000
            )
        text = page.inner_text("#coach-text")
        assert text == expected, (lang, lesson, text)
        if lang != "en":
            assert text != expected_text(english, lesson), f"{lang}: {lesson} is in English"
        if lesson == "beaten":  # at once: the card's words show for a moment only
            race_is_lost(page, words)
        if also and lesson not in TUTORS:  # the tutor's moves do not wait for the switching
            in_other_languages(page, lang, lesson)
        if lesson in ("score", "match"):
            sheet_beside_the_coach(page, lesson)
        if lesson == "stop":
            assert page.get_attribute('.pile[data-pile="0"]', "data-complete") == "true", "the red pile is complete"
        if sent is not None and lesson == "next":
            wrong_moves_change_nothing(page, words, sent)
            aid_follows_the_piles(page)
        if sent is not None and lesson == "colour":
            # The language can change in the middle: the coach says the same step in Finnish.
            page.select_option("#lang", "fi")
            says(page, texts("fi")["tutorial.step.colour"])
            assert coach_step(page) == "colour"
            page.select_option("#lang", "en")
            says(page, expected)
        if lesson not in ("score", "match"):
            page.wait_for_selector(".board.live", timeout=WAIT_MS)  # round 2: its countdown is over
        if shot is not None and lesson in SHOWN.get(lang, ()):
            page.wait_for_function("() => !document.querySelector('.flying')")  # the cards have landed
            shot(page, f"{lang}-{lesson}")
        # The round fits the screen under the coach, as any round does (phones and desktop).
        assert page.evaluate("() => document.scrollingElement.scrollHeight <= innerHeight"), lesson
        if lesson == "match":
            break
        if lesson == "score":
            page.click("#ready-button.tutorial-target")
        elif lesson in TUTORS:
            # Highlighted when the lesson came (it may be over already: the tutor does not wait).
            noted = page.evaluate("(lesson) => window.lessonTargets[lesson]", lesson)
            assert noted == [f"opponent:{TUTOR}"], (lesson, noted)
        else:
            target = page.locator(
                ".own .own-card.tutorial-target, #turn-button.tutorial-target, #vote-button.tutorial-target"
            )
            assert target.count() == 1, f"{lesson}: one own card or button is highlighted"
            if lesson == "race":  # the tutor's red 8, on its stack, is pointed out too
                assert "tutorial-target" in (page.get_attribute(f'.opponent[data-seat="{TUTOR}"]', "class") or "")
            target.click()
        wait_step_after(page, lesson)
        if sent is not None and lesson == "next":
            # The aid follows the events: now the blue 1 and the red 3 fit.
            page.wait_for_function("() => document.querySelectorAll('.own .own-card.fits').length === 2")
            assert fit_marks(page) == engine_fits(page) == {("row", 0), ("row", 2)}
            assert page.get_attribute('.own [data-slot="row-2"]', "data-card") == "r3"
            set_aid(page, False)
            assert page.locator(".own-card.fits, .fit-mark").count() == 0
    # The match ended by the vote; the score sheet is the server's, its totals the engine's.
    assert "tutorial-target" in (page.get_attribute("#score-sheet", "class") or "")
    totals = page.evaluate(
        "() => [...document.querySelectorAll('#score-sheet tr[data-seat]')]"
        ".map((r) => [Number(r.dataset.seat), Number(r.dataset.total)])"
    )
    assert sorted(totals) == [[LEARNER, 6], [TUTOR, -8]]
    return seen


def test_a_learner_completes_the_tutorial_in_every_language(pages: Any, shot: Callable[..., Path]) -> None:
    for lang, (locale, width, height) in WALKS.items():
        # The small phone's learner asked for less motion (no flights, no pulsing highlight,
        # which Chromium would otherwise paint every frame): its one screenshot is the end.
        context = pages.context(width=width, height=height, locale=locale, reduced_motion=lang == "fi")
        context.add_init_script(RECORD_FRAMES)  # said if a lesson gets stuck
        sent: list[str] | None = None
        if lang == "en":
            page = pages.open("/", context=context)
            assert not page.is_checked("#lobby-aid"), "the beginner aid is off by default"
            sent = frames_sent(page)
            page.click("#learn-button")
        else:
            page = pages.open("/#/learn", context=context)
        seen = learn(page, lang, shot, sent, also=lang == "de")
        assert seen == LESSONS, (lang, seen)
        if lang != "en":
            shot(page, f"{lang}-match")
        if lang == "fi":  # the small phone
            coach_folds_away(page, texts(lang))
            page.click("#coach-toggle")
            shot(page, "fi-match-folded")
        if lang == "en":
            # Rematch deals the tutorial again: the coach starts over at the first step.
            page.click("#rematch-button")
            page.wait_for_selector("#coach[data-step='one']", timeout=WAIT_MS)
            page.wait_for_function("() => document.querySelector('.own [data-slot=\"row-0\"]')?.dataset.card === 'r1'")
            assert page.locator(".own .own-card.tutorial-target").get_attribute("data-card") == "r1"
        page.context.close()
