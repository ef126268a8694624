"""Every JSON body of the HTTP API is one of the protocol's structs (``protocol.http``):
read strictly (no unknown or missing field) and written back the same, from the app in process.
Every error is one too: a number of a query or an address in anything but ASCII digits in
range (``bad_query``, ``no_round``), an unknown address, a method a route does not take, a
body over the limit, an answer that failed."""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import quote

import msgspec
import pytest
from keeperclient import PLAYERS
from starlette.testclient import TestClient

from ligretto import protocol
from ligretto.server.records import ratingstore


def typed(kind: type[msgspec.Struct], body: Any) -> msgspec.Struct:
    text = json.dumps(body)
    value = msgspec.json.decode(text, type=kind)
    assert json.loads(protocol.encode(value)) == body, f"{kind.__name__} writes another body than {body}"
    return value


def test_every_answer_of_the_http_api_is_a_struct(app_server: Any) -> None:
    server = app_server  # the app in process: no socket is the subject
    status, created = server.http("POST", "/api/tables", {"seats": 3, "public": True, "bots": ["greedy:expert"]})
    assert status == 201
    summary = typed(protocol.TableSummary, created)
    assert isinstance(summary, protocol.TableSummary) and summary.taken == 1

    status, details = server.http("GET", f"/api/tables/{summary.code}")
    assert status == 200
    read = typed(protocol.TableDetails, details)
    assert isinstance(read, protocol.TableDetails)
    assert read.players[1] is None and read.players[0] == protocol.PlayerEntry(0, read.players[0].name, "greedy:expert")

    status, listed = server.http("GET", "/api/tables")
    assert status == 200 and summary in typed(protocol.TableList, listed).tables  # type: ignore[attr-defined]

    status, tutorial = server.http("POST", "/api/tutorial", {"name": "Kim"})
    assert status == 201
    script = typed(protocol.TutorialCreated, tutorial)
    assert isinstance(script, protocol.TutorialCreated) and script.steps[6].action == protocol.ScriptTurn()

    for path, kind in (
        ("/api/presets", protocol.Presets),
        ("/api/emotes", protocol.Emotes),
        ("/healthz", protocol.Health),
    ):
        status, body = server.http("GET", path)
        assert status == 200, path
        typed(kind, body)

    for method, path, body, code in (
        ("GET", "/api/tables/nope", None, "no_table"),
        ("POST", "/api/tables", {"seats": 13}, "bad_seats"),
        ("POST", "/api/tables", {"colour": "red"}, "invalid"),
        ("POST", "/api/tutorial", {"name": " "}, "bad_name"),
        ("GET", "/api/rules/xx", None, "no_language"),
    ):
        status, answer = server.http(method, path, body)
        assert status in (400, 404), (path, status)
        error = typed(protocol.HttpError, answer)
        assert isinstance(error, protocol.HttpError) and error.error == code


BAD_NUMBERS = ("²", "①", "٣", "１", "9" * 4301, "-1", "1e3", "", " 3", "3 ", "+3", "3.0", "0x3", "0", "1000001")
BAD_NUMBERS += ("9" * 19,)
"""Numbers no query or address takes: Unicode digits (superscript, circled, Arabic-Indic,
full-width; ``str.isdigit`` says yes), 4,301 digits (over Python's limit for ``int``), a
sign, an exponent, nothing, spaces, a point, hex, out of range both ways, more than 18 digits."""


def error_of(answer: Any) -> protocol.HttpError:
    error = typed(protocol.HttpError, answer)
    assert isinstance(error, protocol.HttpError)
    return error


def test_numbers_in_queries_and_addresses_are_ascii_digits_in_range(
    app_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    server = app_server  # the app in process: a server-side exception fails the test
    status, profile = server.http("POST", "/api/profiles", {"name": "Ann", "symbol": "sun"})
    assert status == 201
    status, sheet = server.http("POST", "/api/sheets", {"players": PLAYERS})
    assert status == 201
    queries = [
        f"/api/profiles/{profile['id']}/matches?players=",
        f"/api/profiles/{profile['id']}/matches?page=",
        f"/api/profiles/{profile['id']}/stats?players=",
        "/api/leaderboard?players=",
        "/api/leaderboard?page=",
    ]
    entry = {"center": [1, 1, 1], "stack": [0, 5, 5], "ending": "stop", "stopped_by": 0}
    round_one = {"entry": entry, "base": None, "by": "Alice", "id": "x"}
    for bad in BAD_NUMBERS:
        for query in queries:
            status, answer = server.http("GET", query + quote(bad))
            assert status == 400 and error_of(answer).error == "bad_query", (query, bad[:8], status, answer)
            assert len(answer["message"]) < 120, "a long number is not echoed whole"
        if bad:  # (an empty round is another address: not_found)
            status, answer = server.http("PUT", f"/api/sheets/{sheet['code']}/rounds/{quote(bad)}", round_one)
            assert status == 404 and error_of(answer).error == "no_round", (bad[:8], status, answer)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "no traceback, no error logged"
    # The same parameters in ASCII digits in range are read.
    assert server.http("GET", "/api/leaderboard?players=3&page=002")[1]["players"] == 3
    assert server.http("GET", f"/api/profiles/{profile['id']}/matches?players=12&page=1000000")[1]["page"] == 1000000
    assert server.http("PUT", f"/api/sheets/{sheet['code']}/rounds/01", round_one)[0] == 200


ROUTE_REFUSALS = (
    ("GET", "/api/nope", 404, "not_found", None),
    ("POST", "/api/tables/ABC/nope", 404, "not_found", None),
    ("GET", "/api/tables/", 404, "not_found", None),
    ("DELETE", "/api/tables", 405, "method_not_allowed", "GET, HEAD, POST"),
    ("GET", "/api/profiles", 405, "method_not_allowed", "POST"),
    ("POST", "/api/leaderboard", 405, "method_not_allowed", "GET, HEAD"),
    ("PATCH", "/api/sheets", 405, "method_not_allowed", "POST"),
    ("GET", "/js/nope.js", 404, "not_found", None),
    ("POST", "/", 405, "method_not_allowed", "GET, HEAD"),
)


def test_an_unknown_address_or_method_is_the_json_error(app_server: Any) -> None:
    server = app_server  # the app in process: no socket is the subject
    for method, path, status, code, allow in ROUTE_REFUSALS:
        answer = server.client.request(method, path, follow_redirects=False)
        assert answer.status_code == status, (method, path, answer.status_code, answer.text)
        assert answer.headers["content-type"] == "application/json", (method, path)
        assert error_of(answer.json()).error == code, (method, path)
        allowed = answer.headers.get("allow")
        assert allow is None if allowed is None else set(allowed.split(", ")) == set(allow.split(", ")), (method, path)
    index = server.client.get("/")
    assert index.status_code == 200 and index.headers["content-type"].startswith("text/html"), "the client is served"
    assert server.client.get("/js/main.js").status_code == 200


def test_a_failed_answer_is_the_json_error_and_tells_nothing_of_the_failure(
    app_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(ratingstore, "leaderboard", broken)
    client = TestClient(app_server.app, base_url=app_server.url, raise_server_exceptions=False)
    answer = client.get("/api/leaderboard")
    assert answer.status_code == 500 and answer.headers["content-type"] == "application/json"
    error = error_of(answer.json())
    assert error.error == "internal" and "a bug" not in error.message, "nothing of the failure goes to the client"


def test_a_body_over_the_limit_is_refused_however_it_is_sent(app_server: Any) -> None:
    server = app_server  # the app in process: the real socket's 413 is test_server_httpdeadline's
    tables = server.http("GET", "/healthz")[1]["tables"]

    def chunks() -> Any:  # no Content-Length: the body is sent in chunks
        yield b'{"seats": 2, "pad": "'
        for _ in range(10):
            yield b"x" * 1000
        yield b'"}'

    answer = server.client.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert answer.status_code == 413 and error_of(answer.json()).error == "too_large"
    assert answer.headers["connection"] == "close"
    assert server.http("GET", "/healthz")[1]["tables"] == tables
