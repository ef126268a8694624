"""``ligretto play`` and ``ligretto join`` on the command line: bad arguments give one clear
line and exit code 2; good ones build the app they describe."""

from __future__ import annotations

from typing import Any

import pytest

from ligretto.bots.spec import BotSpec
from ligretto.cli import main
from ligretto.engine.races import DEFAULT_WINDOW_MS, Arbitration, Fairness
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.local import LocalGame
from ligretto.terminal.remote import RemoteTable, UrlError, ws_url


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--players", "1"], "players must be 2-12"),
        (["play", "--players", "13"], "players must be 2-12"),
        (["play", "--players", "x"], "invalid int value"),
        (["play", "--bots", "genius"], "unknown strategy 'genius'"),
        (["play", "--bots", "smart:slow"], "unknown level 'slow'"),
        (["play", "--players", "4", "--bots", "smart,greedy"], "2 bots named for 3 players"),
        (["play", "--rules", "nope"], "unknown preset 'nope'"),
        (["play", "--set", "row_size=9"], "option 'row_size'"),
        (["play", "--set", "expert"], "expected option=value"),
        (["play", "--name", "  "], "a display name is required"),
        (["play", "--lang", "xx"], "no rulebook in language 'xx'"),
        (["play", "--arbitration", "speed"], "invalid choice: 'speed'"),
        (["play", "--window", "251"], "from 0 to 250, not 251"),
        (["play", "--window", "-1"], "from 0 to 250, not -1"),
        (["play", "--window", "8.5"], "invalid int value"),
        (["join", "http://127.0.0.1:8000", "--name", "Tess"], "the following arguments are required: --code"),
        (["join", "--code", "ABC", "--name", "Tess"], "the following arguments are required: url"),
        (["join", "ftp://example.org", "--code", "ABC", "--name", "Tess"], "bad server address 'ftp://example.org'"),
        (["join", "http://127.0.0.1:8000", "--code", "ABC", "--name", "x" * 25], "limited to 24 characters"),
        (["join", "http://127.0.0.1:8000", "--code", "ABC", "--name", "T", "--bot", "nope"], "unknown strategy"),
        (["join", "http://127.0.0.1:8000", "--code", " ", "--name", "Tess"], "invite code is required"),
        (["join", "http://127.0.0.1:8000", "--code", "ABC", "--name", "T", "--symbol", "skull"], "--symbol: a back"),
        (["profile"], "the following arguments are required: url"),
        (["profile", "http://127.0.0.1:8000", "--link", "--claim", "ABCD"], "go alone"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("ligretto: error: ")
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


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


def test_server_addresses() -> None:
    assert ws_url("http://127.0.0.1:8000") == "ws://127.0.0.1:8000/ws"
    assert ws_url("http://127.0.0.1:8000/") == "ws://127.0.0.1:8000/ws"
    assert ws_url("ws://host:1/ws") == "ws://host:1/ws"
    assert ws_url("https://host") == "wss://host/ws"
    with pytest.raises(UrlError):
        ws_url("127.0.0.1:8000")
