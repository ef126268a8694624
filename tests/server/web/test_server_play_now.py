"""Play now and the invite page over a real server: ``POST /api/tables`` with bots that
start the match when the first person joins (and its bad input), the table summary the
invite page shows before joining, and the invite link's QR code (``qr.svg``)."""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree

import pytest
import segno

from ligretto.engine.races import DEFAULT_WINDOW_MS
from wire import hidden_keys

PLAY_NOW = {"bots": ["smart:casual"] * 3, "start": True, "options": {"match_end": "rounds:1"}}
SVG = "{http://www.w3.org/2000/svg}"

pytestmark = pytest.mark.shared_server  # one real server for the module's tests


def test_play_now_seats_the_bots_and_starts_when_the_person_joins(server: Any, arun: Any) -> None:
    status, answer = server.http("POST", "/api/tables", PLAY_NOW)
    assert status == 201, answer
    code = answer["code"]
    assert answer["phase"] == "lobby" and answer["seats"] == 4 and answer["taken"] == 3 and answer["host"] is None

    async def scenario() -> None:
        tess = server.client("Tess")
        await tess.connect()
        welcome = await tess.hello(code, "Tess")
        assert welcome["type"] == "welcome" and welcome["seat"] == 3, welcome
        # One hello and the match is on: the countdown's table message and the deal follow.
        table = await tess.wait_for(lambda m: m["type"] == "table" and m["phase"] == "countdown")
        assert table["host"] == 3
        assert [s["bot"] for s in table["seats"]] == ["smart:casual"] * 3 + [None]
        snapshot = await tess.wait_for("snapshot")
        assert snapshot["view"]["viewer"] == 3 and len(snapshot["view"]["areas"]) == 4
        await tess.wait_for("go", timeout=5)
        # Playing: the person's own plays go through like at any table.
        answers = await tess.play(3)
        assert answers and all(a["type"] == "ack" for a in answers), answers
        assert not tess.problems, tess.problems
        # A second person gets the table as it is: the match started, so watch instead.
        late = server.client("Late")
        await late.connect()
        refused = await late.hello(code, "Late")
        assert refused["type"] == "error" and refused["code"] in ("started", "full"), refused
        await late.close()
        await tess.close()

    arun(scenario())


def test_play_now_rematch_deals_again_with_the_same_bots(server: Any, arun: Any) -> None:
    body = {"bots": ["smart:machine"], "seats": 2, "start": True, "options": {"match_end": "rounds:1"}}
    status, answer = server.http("POST", "/api/tables", body)
    assert status == 201, answer

    async def scenario() -> None:
        ann = await server.client("Ann").join(answer["code"])
        await ann.wait_for("go", timeout=5)
        await ann.play_to_end()
        over = await ann.wait_for(lambda m: m["type"] == "table" and m["phase"] == "over", timeout=20)
        assert over["winners"] is not None
        mark = len(ann.messages)
        await ann.command({"type": "start"})
        again = await ann.wait_for(lambda m: m["type"] == "table" and m["phase"] == "countdown", since=mark)
        assert again["round"] == 1 and [s["bot"] for s in again["seats"]] == ["smart:machine", None]
        await ann.wait_for("snapshot", since=mark)
        await ann.close()

    arun(scenario())


def test_a_table_that_does_not_start_at_once_waits_for_its_host(server: Any, arun: Any) -> None:
    status, answer = server.http("POST", "/api/tables", {"bots": ["greedy:beginner", "smart"]})
    assert status == 201 and answer["taken"] == 2, answer

    async def scenario() -> None:
        ann = await server.client("Ann").join(answer["code"])
        assert ann.table is not None and ann.table["phase"] == "lobby" and ann.seat == 2
        assert [s and s["bot"] for s in ann.table["seats"]] == ["greedy:beginner", "smart:skilled", None, None]
        await ann.close()

    arun(scenario())


def test_play_now_refuses_bad_bots_clearly_and_makes_no_table(app_server: Any) -> None:
    server = app_server  # the app in process: no socket is the subject
    for body, error, words in (
        ({"bots": ["genius:expert"]}, "bad_bot", "unknown strategy 'genius'"),
        ({"bots": ["smart:godlike"]}, "bad_bot", "unknown level 'godlike'"),
        ({"bots": ["smart"] * 4}, "bad_bot", "4 seats take at most 3 bots"),
        ({"seats": 2, "bots": ["smart", "smart"], "start": True}, "bad_bot", "2 seats take at most 1 bots"),
        ({"start": True}, "too_few", "needs at least one bot"),
        ({"bots": "smart:casual"}, "invalid", "Expected `array`"),
        ({"bots": [3]}, "invalid", "Expected `str`"),
        ({"start": "yes"}, "invalid", "Expected `bool`"),
        ({"seats": 13, "bots": ["smart"]}, "bad_seats", "2-12 seats"),
    ):
        status, answer = server.http("POST", "/api/tables", body)
        assert status == 400 and answer["error"] == error and words in answer["message"], (body, status, answer)
    assert server.http("GET", "/healthz")[1]["tables"] == 0, "a refused request made a table"


def test_the_invite_summary_names_host_seats_and_rules_and_nothing_hidden(server: Any, arun: Any) -> None:
    code = server.create_table(4, options={"match_end": "rounds:2"})

    async def scenario() -> None:
        ann = await server.client("Ann").join(code)
        await ann.command({"type": "add_bot", "strategy": "greedy", "level": "expert"})
        await ann.wait_for(lambda m: m["type"] == "table" and m["seats"][1] is not None)
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert status == 200
        assert summary["host"] == "Ann" and summary["seats"] == 4 and summary["taken"] == 2
        assert summary["rules"]["match_end"] == "rounds:2"
        assert summary["players"] == [
            {"seat": 0, "name": "Ann", "bot": None},
            {"seat": 1, "name": "Greedy bot 2", "bot": "greedy:expert"},
            None,
            None,
        ]
        # Once a round is dealt the summary still names no card and no token.
        await ann.command({"type": "start"})
        await ann.wait_for("snapshot")
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert status == 200 and summary["phase"] in ("countdown", "playing")
        assert not hidden_keys(summary) and ann.token not in str(summary)
        assert not re.search(r"\b[rgyb]\d{1,2}\b", str(summary)), summary
        await ann.close()

    arun(scenario())
    assert server.http("GET", "/api/tables/nosuchcode")[0] == 404


def qr_modules(svg: str) -> tuple[int, set[tuple[int, int]]]:
    """(size in modules, the dark modules as (row, column)) of a segno SVG: its dark path is
    runs of ``h`` (draw right) joined by ``m`` (relative moves), at half-module heights."""
    root = ElementTree.fromstring(svg)
    group = root.find(f"{SVG}g")
    assert group is not None, "segno draws the code in one scaled group"
    match = re.fullmatch(r"scale\((\d+)\)", group.get("transform", ""))
    assert match, group.attrib
    scale = int(match.group(1))
    size = int(root.get("width", "0")) // scale
    path = next(p for p in root.iter(f"{SVG}path") if p.get("stroke"))
    x = y = 0.0
    dark: set[tuple[int, int]] = set()
    for command, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", path.get("d", "")):
        if command == "M":
            x, y = float(a), float(b)
        elif command == "m":
            x, y = x + float(a), y + float(b)
        else:
            dark.update((int(y), int(x) + i) for i in range(int(a)))
            x += float(a)
    return size, dark


def test_the_qr_code_is_an_svg_of_exactly_the_invite_link(app_server: Any) -> None:
    server = app_server  # the app in process: no socket is the subject
    code = server.create_table(3)
    status, svg = server.http("GET", f"/api/tables/{code}/qr.svg")
    assert status == 200 and isinstance(svg, str) and svg.startswith("<svg")
    root = ElementTree.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.findtext(f"{SVG}title"), "an SVG with a title"
    size, dark = qr_modules(svg)
    link = f"{server.url}/#/t/{code}"
    expected = segno.make_qr(link, error="m", boost_error=False)
    border = (size - len(expected.matrix)) // 2
    assert border == 4, "the standard quiet zone"
    want = {(r + border, c + border) for r, row in enumerate(expected.matrix) for c, bit in enumerate(row) if bit}
    assert dark == want, "the SVG's modules are the QR code of the invite link"
    other = segno.make_qr(f"{server.url}/#/t/{code}x", error="m", boost_error=False)
    assert dark != {(r + border, c + border) for r, row in enumerate(other.matrix) for c, bit in enumerate(row) if bit}
    status, answer = server.http("GET", "/api/tables/nosuchcode/qr.svg")
    assert status == 404 and answer["error"] == "no_table"


def test_a_table_is_made_with_the_judging_asked_for_and_a_bad_one_is_refused(server: Any, arun: Any) -> None:
    """``arbitration`` and ``window_ms`` of ``POST /api/tables``: the table's ``table``
    message shows them; by default a table judges fairly with a 200 ms window."""
    status, made = server.http("POST", "/api/tables", {"arbitration": "arrival", "window_ms": 120})
    assert status == 201
    status, plain = server.http("POST", "/api/tables", {})
    assert status == 201

    async def scenario() -> None:
        for code, judging in ((made["code"], ("arrival", 120)), (plain["code"], ("fair", DEFAULT_WINDOW_MS))):
            client = await server.client("Ann").join(code)
            assert client.table is not None
            assert (client.table["arbitration"], client.table["window_ms"]) == judging
            await client.close()

    arun(scenario())
    tables = server.http("GET", "/healthz")[1]["tables"]
    for body in ({"arbitration": "fastest"}, {"window_ms": 251}, {"window_ms": -5}, {"window_ms": 1.5}):
        status, answer = server.http("POST", "/api/tables", body)
        assert status == 400 and answer["error"] in ("bad_fairness", "invalid"), (body, answer)
    assert server.http("GET", "/healthz")[1]["tables"] == tables, "a refused request made a table"


def test_the_claim_qr_code_is_an_svg_of_exactly_the_claim_link_of_its_code(app_server: Any) -> None:
    server = app_server  # the app in process: no socket is the subject
    """``POST /api/profiles/claim/qr.svg`` {code}: the QR code of the link that puts a
    profile on another device (the code in the body, never in an address)."""
    status, svg = server.http("POST", "/api/profiles/claim/qr.svg", {"code": "Xr4_pT2k"})
    assert status == 200 and isinstance(svg, str) and svg.startswith("<svg")
    assert ElementTree.fromstring(svg).findtext(f"{SVG}title"), "an SVG with a title"
    size, dark = qr_modules(svg)
    expected = segno.make_qr(f"{server.url}/#/claim/Xr4_pT2k", error="m", boost_error=False)
    border = (size - len(expected.matrix)) // 2
    assert border == 4
    assert dark == {
        (r + border, c + border) for r, row in enumerate(expected.matrix) for c, bit in enumerate(row) if bit
    }
    for body in ({"code": "no/such"}, {"code": "x" * 33}, {"code": ""}):
        status, answer = server.http("POST", "/api/profiles/claim/qr.svg", body)
        assert status == 400 and answer["error"] == "bad_code", (body, answer)
    status, answer = server.http("POST", "/api/profiles/claim/qr.svg", {"link": "Xr4_pT2k"})
    assert status == 400 and answer["error"] == "invalid"
