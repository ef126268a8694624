"""``GET /api/presets``: the engine's rule options and presets, so no client keeps a copy;
encoded once, the same bytes on every call."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from ligretto.engine.rules import OPTIONS, PRESETS, RuleSet
from ligretto.server.web import rules

pytestmark = pytest.mark.shared_server  # one real server for the module's tests


def _get(server: Any, path: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(server.url + path, timeout=5.0) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read()


def test_presets_are_the_engines_options_and_presets(server: Any) -> None:
    status, kind, body = _get(server, "/api/presets")
    assert status == 200
    assert kind.split(";")[0] == "application/json"
    data = json.loads(body)
    assert set(data) == {"options", "presets"}

    # Every preset, in the engine's order (classic first), as the full rule set it is.
    assert [preset["name"] for preset in data["presets"]] == list(PRESETS)
    assert data["presets"][0]["name"] == "classic"
    for preset in data["presets"]:
        assert preset["rules"] == RuleSet.preset(preset["name"]).to_dict(), preset["name"]

    # Every option, in the engine's order, as the engine describes it.
    assert data["options"] == [option.to_dict() for option in OPTIONS.values()]
    assert {option["name"]: option["default"] for option in data["options"]} == RuleSet().to_dict()


def test_presets_are_encoded_once(server: Any) -> None:
    first = _get(server, "/api/presets")
    second = _get(server, "/api/presets")
    assert first == second
    assert first[2] == rules.RULE_OPTIONS_BODY  # what this process encodes, byte for byte
