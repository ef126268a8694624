"""Conformance: the Python client model and the browser's ``mirror.js`` are one model.

Event streams recorded from engine-played rounds (every preset, the expert variant with
its placements, 2-12 seats, refusals, reconnection snapshots mid-round) are replayed
through :class:`ligretto.client.Mirror`, through the Python clients' session
(:class:`ligretto.client.Session`, fed the stream as the server's messages: its mirror)
and through ``static/js/mirror.js`` in Chromium; after every event message each must
equal the engine's own view for the seat and for a spectator, and each must say the
same about where each of the seat's cards goes
(``targetPile`` / ``target_pile``: a pile, ``NEW_PILE`` for a 1, ``null``/``None`` for
nowhere), onto which piles it may be dragged (``fitsPile`` over every pile, as
``controls.js`` judges a drop / ``piles_for``) and which row columns the stack and
discard tops go on (expert).
"""

from __future__ import annotations

import copy
import json
import mimetypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Route, sync_playwright
from recorded_streams import Stream, as_seen_by, as_sent, streams

import ligretto.server
from ligretto.client.mirror import NEW_PILE, Mirror
from ligretto.client.session import Session

STATIC = Path(ligretto.server.__file__).parent / "static"
ORIGIN = "http://ligretto.test"
CHROMIUM = "/usr/bin/chromium"

REPLAY_JS = """
async (recorded) => {
  // The streams come as one JSON text: Playwright's own serialization of ~7 MB of
  // arguments takes seconds, JSON.parse milliseconds.
  const streams = JSON.parse(recorded);
  const { NEW_PILE, applyEvents, fitsColumn, fitsPile, playableCards, targetPile } = await import("/js/mirror.js");
  const canonical = (value) => JSON.stringify(value, (key, inner) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.keys(inner).sort().map((k) => [k, inner[k]]))
      : inner);
  const clone = (value) => JSON.parse(JSON.stringify(value));
  const failures = [];
  let checked = 0;
  for (const stream of streams) {
    for (const viewer of [stream.seat, null]) {
      let view = clone({ ...stream.snapshot, viewer });
      for (const [number, step] of stream.steps.entries()) {
        if (step.snapshot) {
          view = clone({ ...step.snapshot, viewer });
          continue;
        }
        applyEvents(view, clone(step.events));
        checked += 1;
        const expected = { ...step.view, viewer };
        if (canonical(view) !== canonical(expected)) {
          failures.push({ stream: stream.name, viewer, step: number, got: view, expected });
          break;
        }
        if (viewer === null) continue;
        const area = view.areas[stream.seat];
        const cards = playableCards(area).map(({ card }) => card);
        const targets = Object.fromEntries(cards.map((card) => [card, targetPile(view, card)]));
        // Where a drop may put it (controls.js, playOnto): a 1 on a new pile, else each pile it fits.
        const piles = Object.fromEntries(cards.map((card) => [card, targets[card] === NEW_PILE
          ? [NEW_PILE] : view.center.filter((pile) => fitsPile(card, pile)).map((pile) => pile.index)]));
        const tops = [area.stack_top, area.discard_top].filter(Boolean);
        const columns = Object.fromEntries(tops.map((card) => [card, area.row.map((c) => fitsColumn(card, c))]));
        const got = { targets, piles, columns };
        const answers = { targets: step.targets, piles: step.piles, columns: step.columns };
        if (canonical(got) !== canonical(answers)) {
          failures.push({ stream: stream.name, viewer, step: number, got, expected: answers });
          break;
        }
      }
    }
  }
  return { failures, checked, newPile: NEW_PILE };
}
"""


def with_answers(stream: Stream) -> dict[str, Any]:
    """The stream as the page gets it, with the Python model's answers to "where does
    each of the seat's cards go" after every step (checked against the engine by
    tests/client/test_mirror.py); the Python model is replayed here too, on its own and
    in the session of the seat and of a spectator, which must give the same views and
    the same answers."""
    data = stream.to_dict()
    mirror = Mirror.from_view(as_seen_by(stream.snapshot, stream.seat), strict=True)
    spectator = Mirror.from_view(stream.snapshot, strict=True)
    sessions = {seat: Session(strict=True) for seat in (stream.seat, None)}
    sent = {seat: as_sent(stream, seat) for seat in sessions}
    for seat, session in sessions.items():
        session.receive(sent[seat][0])
    for number, step in enumerate(data["steps"]):
        for seat, session in sessions.items():
            message = sent[seat][1][number]
            if message is not None:
                session.receive(copy.deepcopy(message))
        if "snapshot" in step:
            mirror = Mirror.from_view(as_seen_by(step["snapshot"], stream.seat), strict=True)
            spectator = Mirror.from_view(step["snapshot"], strict=True)
            continue
        mirror.apply(copy.deepcopy(step["events"]))
        spectator.apply(copy.deepcopy(step["events"]))
        assert mirror.problems == [] and spectator.problems == [], stream.name
        assert mirror.to_dict() == as_seen_by(step["view"], stream.seat), stream.name
        assert spectator.to_dict() == step["view"], stream.name
        area = mirror.areas[stream.seat]
        step["targets"] = {card: mirror.target_pile(card) for _, _, card in area.playable()}
        step["piles"] = {card: mirror.piles_for(card) for _, _, card in area.playable()}
        step["columns"] = {
            card: [Mirror.goes_on(card, column) for column in area.row]
            for card in (area.stack_top, area.discard_top)
            if card is not None
        }
        seated, watching = sessions[stream.seat].mirror, sessions[None].mirror
        assert seated is not None and watching is not None
        assert seated.to_dict() == mirror.to_dict() and watching.to_dict() == spectator.to_dict(), stream.name
        assert {card: seated.target_pile(card) for card in step["targets"]} == step["targets"], stream.name
        assert sessions[stream.seat].seat == stream.seat and sessions[None].seat is None, stream.name
    assert all(session.problems == [] for session in sessions.values()), stream.name
    return data


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: the conformance test needs Debian's Chromium (apt-get install chromium)")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


def serve_static(route: Route) -> None:
    """The browser client's files, as the server serves them, without a server."""
    path = route.request.url.removeprefix(ORIGIN).split("?")[0]
    if path == "/conformance.html":
        route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>conformance</title>")
        return
    file = (STATIC / path.lstrip("/")).resolve()
    if STATIC.resolve() not in file.parents or not file.is_file():
        route.fulfill(status=404, body="")
        return
    kind = "text/javascript" if file.suffix == ".js" else mimetypes.guess_type(file.name)[0] or "text/plain"
    route.fulfill(status=200, content_type=kind, body=file.read_bytes())


def test_mirror_js_and_the_python_model_follow_the_engine_event_by_event(browser: Browser) -> None:
    recorded = streams()
    assert {s.name.split("/")[0] for s in recorded} >= {"classic", "seed-es", "seed-pt", "expert"}
    assert {int(s.name.split("/")[1]) for s in recorded} == set(range(2, 13))
    assert sum(s.refusals for s in recorded) > 0
    assert any("snapshot" in step for s in recorded for step in s.steps)
    assert any(e["type"] == "card_placed" for s in recorded for step in s.steps for e in step.get("events", []))
    payload = [with_answers(stream) for stream in recorded]
    assert any(None in step.get("targets", {}).values() for s in payload for step in s["steps"])
    assert any(NEW_PILE in step.get("targets", {}).values() for s in payload for step in s["steps"])
    assert any(len(piles) > 1 for s in payload for step in s["steps"] for piles in step.get("piles", {}).values())

    page = browser.new_page()
    try:
        page.route(f"{ORIGIN}/**", serve_static)
        page.goto(f"{ORIGIN}/conformance.html")
        result = page.evaluate(REPLAY_JS, json.dumps(payload))
    finally:
        page.close()
    assert result["newPile"] == NEW_PILE
    assert result["failures"] == []
    replayed = sum(1 for s in payload for step in s["steps"] if "events" in step)
    assert result["checked"] == 2 * replayed  # every step, for the seat and for a spectator


KEEPER_JS = """
async (entries) => {
  const { COUNT_MIN, STACK_MAX, instantProblem } = await import("/js/keepentry.js");
  return { bounds: [COUNT_MIN, STACK_MAX], problems: entries.map((entry) => instantProblem(entry)) };
}
"""


def keeper_entries() -> list[dict[str, Any]]:
    """Rounds of three players, Stop by the first (0 left), one count of one player set to
    each value around the bounds (the rest well inside every check of the engine)."""
    entries = []
    for field in ("center", "stack"):
        for seat in (0, 1, 2):
            for count in range(-3, 14):
                entry = {"center": [5, 6, 7], "stack": [0, 3, 4], "ending": "stop", "stopped_by": 0}
                if field == "stack" and seat == 0:
                    entry["stopped_by"] = None
                    entry["ending"] = "stalemate"
                entry[field][seat] = count
                entries.append(entry)
    return entries


def test_the_score_keepers_instant_checks_are_the_engines_bounds(browser: Browser) -> None:
    """keepentry.js refuses at once exactly the counts the engine's ``check_entry`` refuses
    as out of bounds (a negative count, more than a stack holds), naming the same player."""
    from ligretto.engine.events import Ending
    from ligretto.engine.rules import RuleSet
    from ligretto.engine.scoring import ScoreSheet
    from ligretto.engine.state import STACK_SIZE
    from ligretto.engine.tally import TALLY_ENDINGS, Tally, check_entry

    entries = keeper_entries()
    page = browser.new_page()
    try:
        page.route(f"{ORIGIN}/**", serve_static)
        page.goto(f"{ORIGIN}/conformance.html")
        result = page.evaluate(KEEPER_JS, entries)
    finally:
        page.close()
    assert result["bounds"] == [0, STACK_SIZE]
    names = ["Ana", "Ben", "Cy"]
    refused_by_both = 0
    for entry, problem in zip(entries, result["problems"], strict=True):
        tally = Tally(
            tuple(entry["center"]), tuple(entry["stack"]), TALLY_ENDINGS[entry["ending"]], entry["stopped_by"]
        )
        assert tally.ending in (Ending.STOP, Ending.STALEMATE_VOTE)
        verdict = check_entry(RuleSet(), names, tally, 1, ScoreSheet(3))
        assert (problem is None) == (verdict is None), (entry, problem, verdict)
        if verdict is not None:
            refused_by_both += 1
            assert problem["seat"] == verdict.player, (entry, problem, verdict)
    assert refused_by_both == 2 * 3 * 3 + 3 * 3  # 3 negatives per count, and 3 over the stack


AIMS_JS = """
async () => {
  const { AIMS_PER_S, FADE_DEFAULT_MS } = await import("/js/aims.js");
  return [AIMS_PER_S, FADE_DEFAULT_MS];
}
"""


def test_the_browsers_aim_rate_and_fade_are_the_protocols(browser: Browser) -> None:
    """aims.js throttles and fades the aims (live presence) by the protocol's figures."""
    from ligretto import protocol

    page = browser.new_page()
    try:
        page.route(f"{ORIGIN}/**", serve_static)
        page.goto(f"{ORIGIN}/conformance.html")
        assert page.evaluate(AIMS_JS) == [protocol.AIMS_PER_S, protocol.AIM_FADE_S * 1000]
    finally:
        page.close()
