"""The tournament pages in a real browser against a real server (docs/clients.md,
"Tournaments"): on a phone, a host follows the lobby's link and makes a tournament with
bots (#/tournament), enters it and starts it (#/tournament/ID); the first stage's tables
are listed with a link to watch each, the standings appear, and *Play my table* takes the
seat kept for the entrant (a ``welcome`` at that seat; its bar links back to the
tournament, as a spectator's does), while watching the stage's other table is refused her
(it is dealt her cards); in German the lobby lists the tournament once, not its tables,
and links to the same page, which has the German words; a knockout's page shows who went
out at stage 1; neither width overflows sideways, the page names no seed and axe-core
finds nothing (as tests/browser/test_accessibility.py runs it)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from browserkit import no_horizontal_overflow
from playwright.sync_api import expect
from test_accessibility import describe, violations

STATIC = Path(__file__).resolve().parents[2] / "src" / "ligretto" / "server" / "static"


def words(lang: str, key: str) -> str:
    text: str = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))[key]
    return text


def get(server: Any, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        return json.loads(response.read())


def test_a_host_makes_enters_starts_and_plays_a_tournament_on_a_phone(pages: Any, server: Any, shot: Any) -> None:
    # a knockout of four bots at tables of two, started now: its bracket is looked at last
    _, cup = server.http(
        "POST",
        "/api/tournaments",
        {
            "name": "KO cup",
            "table_size": 2,
            "pairing": "knockout",
            "options": {"match_end": "rounds:1"},
            "bots": ["smart:machine"] * 4,
        },
    )
    assert server.http("POST", f"/api/tournaments/{cup['id']}/start", {"host": cup["host"]})[0] == 200
    context = pages.context(width=360, height=640, touch=True)
    page = pages.open("/", context=context)
    page.click("#tournament-link")
    page.wait_for_selector("#tournament-name")
    found = [describe("create", violation) for violation in violations(page)]
    page.fill("#tournament-name", "Phone cup")
    page.select_option("#tournament-size", "3")
    page.select_option("#tournament-stages", "2")
    page.select_option("#tournament-pairing", "mixed")
    page.select_option("#tournament-bots", "5")
    page.select_option("#tournament-level", "machine")
    page.click("#tournament-create")
    page.wait_for_selector("#tournament-join")
    ident = page.url.rsplit("/", 1)[1]
    expect(page.locator("#tournament-entrants li")).to_have_count(5)
    page.fill("#tournament-my-name", "Ann")
    page.click("#tournament-join")
    expect(page.locator("#tournament-entered")).to_contain_text("Ann")
    expect(page.locator("#tournament-entrants li")).to_have_count(6)
    width, view = no_horizontal_overflow(page)
    assert width <= view
    shot(page, "open-360")
    page.click("#tournament-start")
    page.wait_for_selector("#tournament-standings")
    # the first stage: two tables of three, every entrant at one, a watch link each
    api = get(server, f"/api/tournaments/{ident}")
    assert api["state"] in ("playing", "over") and api["pairing"] == "mixed"
    expect(page.locator("#tournament-pairing-line")).to_have_text(words("en", "tournament.pairing.mixed"))
    (stage,) = [s for s in api["played"] if s["number"] == 1]
    codes = [t["code"] for t in stage["tables"]]
    section = page.locator('.tournament-stage[data-stage="1"]')
    for code in codes:
        expect(section.locator(f'li[data-code="{code}"] a.tournament-watch')).to_have_attribute("href", f"#/w/{code}")
    expect(page.locator("#tournament-standings tbody tr")).to_have_count(6)
    html = page.content()
    assert "seed" not in html.lower()
    width, view = no_horizontal_overflow(page)
    assert width <= view
    shot(page, "playing-360")
    found += [describe("playing", violation) for violation in violations(page)]
    assert not found, "\n".join(found)
    # Play my table: the seat kept for Ann (entrant 5) at the stage being played, taken with its token
    page.click("#tournament-play")
    page.wait_for_url("**/#/t/*")
    code = page.url.rsplit("/", 1)[1]
    played = get(server, f"/api/tournaments/{ident}")["played"]
    assert any(code == t["code"] and 5 in t["seats"] for s in played for t in s["tables"])
    assert page.evaluate(f"() => localStorage.getItem('ligretto.seat.{code}')")
    page.wait_for_selector(".table-screen[data-phase]")
    expect(page.locator(".table-screen")).not_to_have_attribute("data-phase", "")
    back = page.locator("#tournament-back")  # the way back to the tournament (hidden on a phone in a round)
    expect(back).to_have_text(words("en", "table.tournament").format(name="Phone cup", stage=1))
    expect(back).to_have_attribute("href", f"#/tournament/{ident}")
    # the other table of her stage is dealt her cards: watching it, she is told why she may not
    other = next(t["code"] for s in played if s["number"] == 1 for t in s["tables"] if t["code"] != code)
    page.goto(f"{server.url}/#/w/{other}")
    expect(page.get_by_role("alert")).to_have_text(words("en", "error.own_stage"))
    # in German, at desktop width: the lobby lists the tournament once (none of its tables),
    # and its link opens the same page
    german = pages.open("/", locale="de-DE")
    entry = german.locator(f'#lobby-tournaments li[data-tournament="{ident}"]')
    stage_words = words("de", "lobby.tournament.stage").format(stage=1, stages=2)
    expect(entry).to_contain_text("Phone cup")
    expect(entry).to_contain_text(stage_words)
    for stage_table in codes:
        expect(german.locator(f'#public-tables li[data-code="{stage_table}"]')).to_have_count(0)
    shot(german, "lobby-de-1280", full_page=True)
    entry.locator("a").click()
    german.wait_for_url(f"**/#/tournament/{ident}")
    expect(german.locator("#tournament-standings-title")).to_have_text(words("de", "tournament.standings"))
    expect(german.locator(".tournament-stage").first).to_be_visible()
    width, view = no_horizontal_overflow(german)
    assert width <= view
    shot(german, "de-1280")
    # the knockout's page: two stages (four at two tables, then the final), and once the
    # first is over its bracket says who went out at stage 1
    german.goto(f"{server.url}/#/tournament/{cup['id']}")
    expect(german.locator("#tournament-pairing-line")).to_have_text(words("de", "tournament.pairing.knockout"))
    out = german.locator("#tournament-standings .knockout-out")
    expect(out).to_have_count(4)
    expect(german.locator('#tournament-standings .knockout-out[data-out="1"]')).to_have_count(2, timeout=20_000)
    expect(german.locator('#tournament-standings .knockout-out[data-out="1"]').first).to_have_text(
        words("de", "tournament.out.at").format(n=1)
    )
    assert get(server, f"/api/tournaments/{cup['id']}")["stages"] == 2
    shot(german, "knockout-de-1280")
    # a spectator at the same width: the table's bar links back to the tournament
    german.goto(f"{server.url}/#/w/{code}")
    back = german.locator("#tournament-back")
    expect(back).to_have_text(words("de", "table.tournament").format(name="Phone cup", stage=1))
    expect(back).to_be_visible()
    width, view = no_horizontal_overflow(german)
    assert width <= view
    shot(german, "table-de-1280")
