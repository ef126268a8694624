"""``ligretto play`` and ``ligretto join`` on the command line: good arguments build the app
they describe (bad ones: tests/cli/test_errors.py)."""

from __future__ import annotations

from typing import Any

import pytest

from ligretto.bots.spec import BotSpec
from ligretto.cli import main
from ligretto.engine.races import DEFAULT_WINDOW_MS, Arbitration, Fairness
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.local import LocalGame
from ligretto.terminal.remote import RemoteTable, ws_url
from ligretto.terminal.serverapi import ServerApi, UrlError


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[LigrettoApp]:
    """Apps the command would run (not run: a test has no terminal)."""
    apps: list[LigrettoApp] = []

    def run(self: LigrettoApp, *args: Any, **kwargs: Any) -> None:
        apps.append(self)

    monkeypatch.setattr(LigrettoApp, "run", run)
    return apps


def test_play_builds_a_local_match(launched: list[LigrettoApp]) -> None:
    argv = ["play", "--players", "3", "--bots", "greedy:machine,smart:beginner", "--rules", "expert", "--seed", "4"]
    assert main([*argv, "--set", "match_end=rounds:2", "--name", "Tess", "--lang", "fr"]) == 0
    (app,) = launched
    game = app.transport
    assert isinstance(game, LocalGame)
    assert game.bots == [BotSpec("greedy", "machine"), BotSpec("smart", "beginner")]
    assert game.rules.expert and str(game.rules.match_end) == "rounds:2"
    assert game.table.match_seeds(1) == 4 and game.table.match_seeds(2) == 5  # --seed: match n uses seed + n - 1
    assert game.table.size == 3 and game.name == "Tess"
    assert app.lang == "fr"


def test_play_sets_how_races_are_judged(launched: list[LigrettoApp]) -> None:
    assert main(["play", "--arbitration", "arrival"]) == 0
    assert main(["play", "--window", "120"]) == 0
    assert main(["play"]) == 0
    judged = [app.transport.table.fairness for app in launched if isinstance(app.transport, LocalGame)]
    assert judged == [
        Fairness(Arbitration.ARRIVAL, DEFAULT_WINDOW_MS),
        Fairness(Arbitration.FAIR, 120),
        Fairness(Arbitration.FAIR, DEFAULT_WINDOW_MS),
    ]


def test_one_bot_spec_plays_every_opponent(launched: list[LigrettoApp]) -> None:
    assert main(["play", "--players", "5", "--bots", "random:casual"]) == 0
    game = launched[0].transport
    assert isinstance(game, LocalGame) and game.bots == [BotSpec("random", "casual")] * 4


def test_join_builds_a_remote_seat(launched: list[LigrettoApp], monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    asked: list[tuple[str, str]] = []  # the servers asked for their table (no server here)

    def has_table(api: ServerApi, code: str) -> bool:
        asked.append((api.base, code))
        return True

    monkeypatch.setattr(ServerApi, "table", has_table)
    assert (
        main(["join", "https://ligretto.example:8443", "--code", "ABC", "--name", "Tess", "--bot", "smart:expert"]) == 0
    )
    (app,) = launched
    remote = app.transport
    assert isinstance(remote, RemoteTable)
    assert remote.url == "wss://ligretto.example:8443/ws" and remote.code == "ABC" and remote.name == "Tess"
    assert remote.tokens.path == tmp_path / "ligretto" / "seats.json"
    assert app.bot == "smart:expert"
    assert remote.profiles is not None and remote.profiles.server == "https://ligretto.example:8443"
    assert remote.profiles.file.path == tmp_path / "ligretto" / "profiles.json" and remote.symbol == "sun"
    assert main(["join", "http://h:1", "--code", "ABC", "--name", "Tess", "--symbol", "moon"]) == 0
    assert isinstance(launched[1].transport, RemoteTable) and launched[1].transport.symbol == "moon"
    assert asked == [("https://ligretto.example:8443", "ABC"), ("http://h:1", "ABC")]


def test_server_addresses() -> None:
    assert ws_url("http://127.0.0.1:8000") == "ws://127.0.0.1:8000/ws"
    assert ws_url("http://127.0.0.1:8000/") == "ws://127.0.0.1:8000/ws"
    assert ws_url("ws://host:1/ws") == "ws://host:1/ws"
    assert ws_url("https://host") == "wss://host/ws"
    with pytest.raises(UrlError):
        ws_url("127.0.0.1:8000")
