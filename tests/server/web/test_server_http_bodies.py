"""Every JSON body of the HTTP API is one of the protocol's structs (``protocol.http``):
read strictly (no unknown or missing field) and written back the same, from the app in process."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from ligretto import protocol


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
