"""The history page (#/history/ID) and the leaderboard (#/leaderboard) in a real browser.

Matches are played in process (stand-in bots play for the profiles' seats, on a virtual
clock) into a real SQLite file by tests/storedrounds.py, as tests/server/web/test_server_historyapi.py does; one
real ``ligretto serve`` on that file serves this module's pages.  Ann plays two matches of
three rounds (classic with Bob and a bot; seed-es with a bot); Cid and Dee play 21 rated
one-round matches with a bot: enough for the leaderboard, and two pages of history.  The pages must show the score
sheets the players were sent in ``round_over``, narrow with the filters, show the API's
statistics, order the leaderboard by conservative rating, name no card, fit a phone and
pass axe-core (as tests/browser/test_accessibility.py runs it)."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from browserkit import ARTIFACTS, no_horizontal_overflow, screenshot
from playwright.sync_api import Page
from test_accessibility import describe, violations

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.ratings import season_of
from realserver import TEST_RATE, ServerProcess, running
from storedrounds import Person, StoredRounds

ROUNDS = 3
LADDER_MATCHES = 21
"""One more than a page of history (20 matches)."""
SHOTS = ARTIFACTS / "history-pages"
CARD_TEXT = re.compile(r"(?<![\w-])[rgyb](?:10|[1-9])(?![\w-])")
"""A card's wire name standing alone anywhere in a page's HTML."""
ENGLISH: dict[str, str] = json.loads(
    (Path(__file__).resolve().parents[2] / "src/ligretto/server/static/i18n/en.json").read_text(encoding="utf-8")
)


class Listener:
    """A connection stand-in that keeps every message it is sent (as dicts)."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.messages: list[dict[str, Any]] = []

    def detach(self) -> None:
        self.seat = None

    def send(self, message: Any) -> None:
        self.messages.append(protocol.as_dict(message))

    def round_overs(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "round_over"]


def play_into(path: Path) -> dict[str, Any]:
    with StoredRounds(path, start=time.time() - 3600) as stored:
        made = {
            name: stored.profile(name, symbol)
            for name, symbol in (("Ann", "sun"), ("Bob", "moon"), ("Cid", "star"), ("Dee", "heart"))
        }
        ids = {name: profile for name, (profile, _secret) in made.items()}
        seen: dict[str, list[dict[str, Any]]] = {}
        matches = (("HISTA", "classic", ["Ann", "Bob"], 7100), ("HISTB", "seed-es", ["Ann"], 7200))
        for code, preset, names, seed in matches:
            rules = RuleSet.preset(preset).replace(match_end=f"rounds:{ROUNDS}")
            ann = Listener()  # what Ann, the host, was sent
            people = [Person("Ann", ids["Ann"], ann), *(Person(name, ids[name], Listener()) for name in names[1:])]
            table = stored.table(
                code,
                people,
                ["smart:skilled"],
                rules=rules,
                seed=seed,
                countdown_s=1.0,
                rated=True,
                public=True,  # its code shows in anyone's view of the history (a private one's only to its owner)
            )
            stored.play(table, ROUNDS)
            seen[code] = ann.round_overs()
            table.close()
        rules = RuleSet.preset("classic").replace(match_end="rounds:1")
        people = [Person("Cid", ids["Cid"]), Person("Dee", ids["Dee"])]
        ladder = stored.table("LADDER", people, ["smart:casual"], rules=rules, seed=7300, countdown_s=1.0, rated=True)
        for _ in range(LADDER_MATCHES):
            stored.play(ladder)
        # Last season's final standings: Ann and Bob led it (this season they have too few).
        last = season_of(time.time()).previous.name
        for name, mu, matches in (("Ann", 30.0, 6), ("Bob", 28.0, 5)):
            stored.store.db.execute(
                "INSERT INTO season_ratings VALUES (?, ?, 0, ?, 2.0, ?)", (last, ids[name], mu, matches)
            )
    return {"ids": ids, "secrets": {name: secret for name, (_, secret) in made.items()}, "seen": seen}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("history-pages")
    result = play_into(folder / "ligretto.db")
    result["folder"] = folder
    return result


@pytest.fixture(scope="module")
def server(played: dict[str, Any]) -> Iterator[ServerProcess]:
    """This module's one server, on the file the matches were played into."""
    folder: Path = played["folder"]
    with running(ServerProcess(folder / "ligretto.db", folder / "server.log", **TEST_RATE)) as process:
        yield process


def months(season: dict[str, Any]) -> str:
    """A season's months as the page writes them in English ("Oct – Dec 2026")."""
    starts = datetime.fromtimestamp(season["starts"], tz=UTC)
    ends = datetime.fromtimestamp(season["ends"] - 1, tz=UTC)
    return f"{starts:%b} – {ends:%b %Y}" if starts.year == ends.year else f"{starts:%b %Y} – {ends:%b %Y}"


def api(server: ServerProcess, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        return json.loads(response.read())


def open_history(pages: Any, profile: str, *, width: int = 1280) -> Page:
    page: Page = pages.open(f"/#/history/{profile}", width=width)
    page.wait_for_selector("#history-stats .stats")
    page.wait_for_selector(".history-page[aria-busy='false']")
    return page


def shown_matches(page: Page) -> list[str]:
    codes: list[str] = page.eval_on_selector_all(".history-match", "(all) => all.map((m) => m.dataset.code)")
    return codes


def settle(page: Page) -> None:
    page.wait_for_selector(".history-page[aria-busy='false']")


READ_SHEETS = """(match) => [...match.querySelectorAll('table.past-sheet')].map((table) =>
  [...table.querySelectorAll('tbody tr')].map((row) => ({
    seat: Number(row.dataset.seat), place: Number(row.dataset.place), center: Number(row.dataset.center),
    stack: Number(row.dataset.stack), score: Number(row.dataset.score), total: Number(row.dataset.total),
    text: row.innerText })))"""


def test_the_history_shows_both_matches_with_the_sheets_the_players_saw(
    pages: Any, played: dict[str, Any], server: ServerProcess
) -> None:
    ann = played["ids"]["Ann"]
    page = open_history(pages, ann)
    assert shown_matches(page) == ["HISTB", "HISTA"], "newest first"
    assert page.inner_text("#history-title") == "Ann: match history"
    listed = {entry["code"]: entry for entry in api(server, f"/api/profiles/{ann}/matches")["matches"]}
    for code in ("HISTA", "HISTB"):
        match = page.locator(f".history-match[data-code='{code}']")
        match.locator("summary").click()
        sheets = match.evaluate(READ_SHEETS)
        overs = played["seen"][code]
        assert len(sheets) == len(overs) == ROUNDS
        for number, (rows, over) in enumerate(zip(sheets, overs, strict=True), start=1):
            assert over["round"] == number
            by_seat = {row["seat"]: row for row in rows}
            assert sorted(by_seat) == list(range(len(over["scores"])))
            for seat, line in enumerate(over["scores"]):
                row = by_seat[seat]
                assert (row["center"], row["stack"], row["score"], row["total"]) == (
                    line["center"],
                    line["stack"],
                    line["score"],
                    over["totals"][seat],
                )
            # Best total first, as the table's sheet sorts it.
            assert [row["total"] for row in rows] == sorted((row["total"] for row in rows), reverse=True)
        assert overs[-1]["match_over"]
        final = {row["seat"]: row["place"] for row in sheets[-1]}
        assert [final[seat] for seat in range(len(final))] == listed[code]["places"]
        preset = listed[code]["preset"]
        assert match.get_attribute("data-preset") == preset == {"HISTA": "classic", "HISTB": "seed-es"}[code]
        assert ENGLISH[f"preset.{preset}"] in match.inner_text()
        names = match.locator(".history-places li").all_inner_texts()
        assert any("Ann" in name for name in names) and len(names) == len(over["scores"])
    assert page.locator(".history-match[data-code='HISTA'] .history-places a", has_text="Bob").count() == 1


def test_ones_own_history_links_each_rounds_replay_and_a_visitors_does_not(pages: Any, played: dict[str, Any]) -> None:
    ann = played["ids"]["Ann"]
    visitor = open_history(pages, ann)
    visitor.locator(".history-match[data-code='HISTA'] summary").click()
    assert visitor.locator(".history-replay a").count() == 0, "a round's link is for its players to share"
    context = pages.context()
    kept = json.dumps({"id": ann, "secret": played["secrets"]["Ann"]})
    context.add_init_script(f"localStorage.setItem('ligretto.profile', {json.dumps(kept)})")
    page = pages.open("/#/history", context=context)
    page.wait_for_selector(".history-page[aria-busy='false'] .history-match")
    for code in ("HISTA", "HISTB"):
        match = page.locator(f".history-match[data-code='{code}']")
        match.locator("summary").click()
        links = match.locator(".history-replay a")
        told = [over["replay"] for over in played["seen"][code]]
        assert [links.nth(i).get_attribute("href") for i in range(links.count())] == [f"#/replay/{t}" for t in told]
    page.locator(".history-match[data-code='HISTA'] .history-replay a").last.click()
    page.wait_for_function("() => window.ligrettoReplay !== undefined")
    assert page.url.endswith(f"#/replay/{played['seen']['HISTA'][-1]['replay']}")


def test_the_filters_narrow_the_list_and_the_statistics(
    pages: Any, played: dict[str, Any], server: ServerProcess
) -> None:
    ann = played["ids"]["Ann"]
    page = open_history(pages, ann)
    cases = [("seed-es", "", ["HISTB"]), ("", "3", ["HISTA"]), ("classic", "2", []), ("", "", ["HISTB", "HISTA"])]
    for preset, players, expected in cases:
        page.select_option("#history-preset", preset)
        settle(page)
        page.focus("#history-players")
        page.select_option("#history-players", players)
        settle(page)
        assert page.evaluate("document.activeElement.id") == "history-players", "the select drawn again keeps the focus"
        assert shown_matches(page) == expected, (preset, players)
        query = "&".join(
            part for part in (f"preset={preset}" if preset else "", f"players={players}" if players else "") if part
        )
        stats = api(server, f"/api/profiles/{ann}/stats?{query}")
        assert int(page.get_attribute("[data-stat='matches']", "data-value") or -1) == stats["matches"] == len(expected)
        assert page.inner_text("#history-matches-title").endswith(f"({len(expected)})")


def test_the_history_pages_through_more_matches_than_one_page(
    pages: Any, played: dict[str, Any], server: ServerProcess
) -> None:
    cid = played["ids"]["Cid"]
    first, second = (api(server, f"/api/profiles/{cid}/matches?page={n}") for n in (1, 2))
    assert (first["pages"], first["total"], len(first["matches"]), len(second["matches"])) == (2, LADDER_MATCHES, 20, 1)
    page = open_history(pages, cid)

    def listed() -> list[int]:
        numbers: list[int] = page.eval_on_selector_all(
            ".history-match", "(all) => all.map((m) => Number(m.dataset.match))"
        )
        return numbers

    assert listed() == [entry["match"] for entry in first["matches"]]
    assert page.inner_text("#history-page") == "Page 1 of 2" and page.is_disabled("#history-prev")
    page.click("#history-next")
    page.wait_for_selector("#history-page:text('Page 2 of 2')")
    assert listed() == [entry["match"] for entry in second["matches"]] == [1]
    assert page.is_disabled("#history-next")
    page.click("#history-prev")
    page.wait_for_selector("#history-page:text('Page 1 of 2')")
    assert listed()[0] == LADDER_MATCHES


def test_the_statistics_equal_the_api(pages: Any, played: dict[str, Any], server: ServerProcess) -> None:
    ann = played["ids"]["Ann"]
    stats = api(server, f"/api/profiles/{ann}/stats")
    assert stats["matches"] == 2 and stats["rounds"] == 2 * ROUNDS
    page = open_history(pages, ann)
    shown = dict(
        page.eval_on_selector_all("[data-stat]", "(all) => all.map((s) => [s.dataset.stat, Number(s.dataset.value)])")
    )
    for key in (
        "matches",
        "rounds",
        "rounds_won",
        "stops",
        "center_per_round",
        "stack_per_round",
        "races_won",
        "races_lost",
    ):
        assert shown[key] == pytest.approx(stats[key]), key
    reactions = dict(
        page.eval_on_selector_all(
            "#history-reactions tr[data-kind]", "(all) => all.map((r) => [r.dataset.kind, Number(r.dataset.seconds)])"
        )
    )
    assert reactions == pytest.approx(stats["reaction_s"]) and "play" in reactions
    rating = page.locator("#history-rating")
    assert float(rating.get_attribute("data-rating") or "nan") == pytest.approx(stats["rating"]["rating"])
    assert float(rating.get_attribute("data-sigma") or "nan") == pytest.approx(stats["rating"]["sigma"])
    assert stats["rating"]["like_bot"], "the server names the nearest calibrated bot"
    strategy, level = stats["rating"]["like_bot"].split(":")
    assert (
        page.inner_text("#history-like-bot")
        == f" · about as good as a {strategy.capitalize()} ({level.capitalize()}) bot"
    )
    # Statistics over time: one bar per match of the filter, in each chart.
    assert page.locator("#chart-center rect").count() == len(stats["by_match"]) == 2
    won = [int(text.split(": ")[1]) for text in page.locator("#chart-rounds-won rect title").all_text_contents()]
    assert won == [m["rounds_won"] for m in stats["by_match"]]


def test_the_leaderboard_orders_by_conservative_rating(
    pages: Any, played: dict[str, Any], server: ServerProcess
) -> None:
    ids = played["ids"]
    page: Page = pages.open("/")
    page.click("#nav-leaderboard")
    page.wait_for_selector("#leaderboard-table tbody tr")
    board = api(server, "/api/leaderboard")
    rows = page.eval_on_selector_all(
        "#leaderboard-table tbody tr",
        "(all) => all.map((r) => [r.dataset.id, Number(r.dataset.rating), Number(r.dataset.matches)])",
    )
    assert [row[0] for row in rows] == [entry["id"] for entry in board["entries"]]
    assert {row[0] for row in rows} == {ids["Cid"], ids["Dee"]}, "Ann and Bob have fewer than 5 rated matches"
    conservative = [entry["mu"] - 3 * entry["sigma"] for entry in board["entries"]]
    assert conservative == sorted(conservative, reverse=True)
    assert [row[1] for row in rows] == pytest.approx(conservative, abs=1e-6)
    assert [row[2] for row in rows] == [LADDER_MATCHES, LADDER_MATCHES]
    # By number of players: three (the ladder's tables); two players: nobody is rated there yet.
    page.select_option("#leaderboard-players", "3")
    page.wait_for_selector(".leaderboard-page[aria-busy='false'] #leaderboard-table")
    at_three = api(server, "/api/leaderboard?players=3")
    assert page.eval_on_selector_all("#leaderboard-table tbody tr", "(all) => all.map((r) => r.dataset.id)") == [
        e["id"] for e in at_three["entries"]
    ]
    page.select_option("#leaderboard-players", "2")
    page.wait_for_selector("#leaderboard-empty")
    page.select_option("#leaderboard-players", "")
    page.wait_for_selector("#leaderboard-table tbody tr")
    # This season by default; last season's final standings; all time.
    assert page.locator("#leaderboard-season option").all_inner_texts() == [
        f"This season ({months(board['seasons'][0])})",
        months(board["seasons"][1]),
        "All time",
    ]
    assert page.inner_text("#leaderboard-table caption") == f"Overall · This season ({months(board['seasons'][0])})"
    page.select_option("#leaderboard-season", board["seasons"][1]["name"])
    page.wait_for_selector(".leaderboard-page[aria-busy='false'] #leaderboard-table")
    assert page.eval_on_selector_all("#leaderboard-table tbody tr", "(all) => all.map((r) => r.dataset.id)") == [
        ids["Ann"],
        ids["Bob"],
    ]
    assert page.inner_text("#leaderboard-table caption").endswith(": final standings")
    page.select_option("#leaderboard-season", "all")
    page.wait_for_selector(".leaderboard-page[aria-busy='false'] #leaderboard-table")
    everything = api(server, "/api/leaderboard?season=all")
    assert page.eval_on_selector_all("#leaderboard-table tbody tr", "(all) => all.map((r) => r.dataset.id)") == [
        e["id"] for e in everything["entries"]
    ]
    page.select_option("#leaderboard-season", "")
    page.wait_for_selector(".leaderboard-page[aria-busy='false'] #leaderboard-table")
    first = board["entries"][0]
    page.click(f"#leaderboard-table tr[data-id='{first['id']}'] a")
    page.wait_for_selector("#history-stats .stats")
    assert page.inner_text("#history-title") == f"{first['name']}: match history"


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_no_page_names_a_card_both_fit_the_screen_and_axe_finds_no_violation(
    pages: Any, played: dict[str, Any], width: int, height: int
) -> None:
    context = pages.context(width=width, height=height)
    page: Page = pages.open(f"/#/history/{played['ids']['Ann']}", context=context)
    page.wait_for_selector("#history-stats .stats")
    for summary in page.locator(".history-sheets summary").all():
        summary.click()
    board: Page = pages.open("/#/leaderboard", context=context)
    board.wait_for_selector("#leaderboard-table tbody tr")
    for name, shown in (("history", page), ("leaderboard", board)):
        html = shown.inner_html("#app")
        assert not CARD_TEXT.findall(re.sub(r"<[^>]*>", " ", html)), f"the {name} page shows a card"
        assert not re.findall(r'data-card="', html), f"the {name} page holds a card"
        sizes = no_horizontal_overflow(shown)
        assert sizes[0] == sizes[1], f"the {name} page sticks out sideways at {width} px: {sizes}"
        assert "⟦" not in shown.inner_text("body")
        found = [describe(name, violation) for violation in violations(shown)]
        assert not found, "axe-core:\n" + "\n".join(found)
        screenshot(shown, SHOTS / f"{name}-{width}x{height}.png", full_page=True)


def test_both_pages_speak_every_language_on_a_phone(pages: Any, played: dict[str, Any]) -> None:
    """In each of the seven languages, at 390 px: the page's own words (not English, no raw
    key), nothing sticking out sideways; a screenshot of German and Finnish, the longest."""
    page: Page = pages.open(f"/#/history/{played['ids']['Ann']}", width=390)
    page.wait_for_selector("#history-stats .stats")
    page.locator(".history-sheets summary").first.click()
    board: Page = pages.open("/#/leaderboard", width=390)
    board.wait_for_selector("#leaderboard-table tbody tr")
    english = {
        "history": page.inner_text("#history-stats-title"),
        "leaderboard": board.inner_text("#leaderboard-title"),
    }
    for lang in ("en", "es", "pt", "it", "fr", "fi", "de"):
        for name, shown, heading in (
            ("history", page, "#history-stats-title"),
            ("leaderboard", board, "#leaderboard-title"),
        ):
            shown.select_option("#lang", lang)
            shown.wait_for_selector(f"html[lang='{lang}'] {heading}")
            if lang != "en":
                assert shown.inner_text(heading) != english[name], f"{lang}: the {name} page still speaks English"
            assert "⟦" not in shown.inner_text("body"), (lang, name)
            sizes = no_horizontal_overflow(shown)
            assert sizes[0] == sizes[1], f"{lang}: the {name} page sticks out sideways: {sizes}"
            if lang in ("de", "fi"):
                screenshot(shown, SHOTS / f"{name}-390-{lang}.png", full_page=True)
