"""The terminal client at a real ``ligretto serve`` on 127.0.0.1: join, add a bot, start,
play a round by key presses, and come back to the seat with the kept token after a drop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
import websockets
from tui_support import host_into_play, play_by_keys, screen_text, sheet_rows, until

from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.model import Phase, TableModel
from ligretto.terminal.remote import RemoteTable, SeatTokens, ws_url
from realserver import ServerProcess


def test_joins_a_server_table_and_plays_a_round(
    server: ServerProcess, tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    code = server.create_table(2, options={"match_end": "rounds:1"})
    tokens = SeatTokens(tmp_path / "seats.json")
    remote = RemoteTable(server.url, code, "Tess", tokens=tokens)
    # an expert, not a machine: a machine bot can end the round before the person has a play
    app = LigrettoApp(remote, bot="smart:expert")

    async def scenario() -> None:
        async with app.run_test(size=(100, 32)) as pilot:
            model = app.model
            await until(pilot, lambda: model.phase is Phase.LOBBY and model.seat == 0, what="the seat")
            assert "You are the host" in screen_text(app)
            assert tokens.get(f"{ws_url(server.url)}#{code}") == model.token is not None
            await pilot.press("b")
            await until(pilot, lambda: sum(p is not None for p in model.people) == 2, what="the bot")
            assert "Smart bot 2 (bot smart:expert)" in screen_text(app)
            await pilot.press("enter")
            await until(pilot, lambda: model.phase is Phase.PLAYING, what="go")
            assert model.best_round_trip is not None, "the clock was synchronised"
            # a safety net, not a timing target: a loaded CI machine slows the pilot and the bot
            presses = await play_by_keys(pilot, model, lambda: model.phase is Phase.OVER, timeout=90.0)
            assert presses > 0
            await until(pilot, lambda: model.result is not None and bool(model.sheet), what="the score sheet")
            assert model.result is not None
            text = screen_text(app)
            rows = sheet_rows(text, ["Tess (you)", "Smart bot 2"])
            for seat, name in enumerate(["Tess (you)", "Smart bot 2"]):
                line = model.result.scores[seat]
                assert rows[name][:3] == [str(line.center), str(line.stack), str(line.score)]
            assert "Match over:" in text
            assert model.result.scores[0].center > 0 or model.refusals > 0
            # The round's replay: the link on the sheet is the server's page of the round,
            # whose token the server answers with that round.
            over = model.session.round_over
            assert over is not None and over.replay is not None
            token = over.replay
            assert f"Replay of round 1: {server.url}/#/replay/{token}" in text, text
            status, replay = server.http("GET", f"/api/replays/{token}")
            assert status == 200 and (replay["match"], replay["round"]) == (1, 1)
            assert [p["name"] for p in replay["players"]] == ["Tess", "Smart bot 2"]

    arun(scenario())


def test_comes_back_to_its_seat_after_a_drop_and_after_a_restart(
    server: ServerProcess, tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    code = server.create_table(2, options={"match_end": "rounds:1"})
    tokens = SeatTokens(tmp_path / "seats.json")
    first = LigrettoApp(RemoteTable(server.url, code, "Tess", tokens=tokens), bot="smart:beginner")

    async def scenario() -> None:
        async with first.run_test(size=(100, 32)) as pilot:
            model = first.model
            await host_into_play(pilot, model)
            remote = first.transport
            assert isinstance(remote, RemoteTable) and remote.ws is not None
            token = model.token
            remote.ws.transport.abort()  # the connection drops
            await until(pilot, lambda: remote.connects == 2 and model.view is not None, what="the reconnection")
            await until(pilot, lambda: "seat 1" in model.notice, what="the welcome back")
            assert model.seat == 0 and model.token == token
            assert model.me is not None and model.me.discard_size == 3, "the snapshot gave the round back"
            await pilot.press("space")
            await until(pilot, lambda: model.me is not None and model.me.discard_size == 6, what="a turn after")
        # A new client (the program was restarted) finds the token in its file.
        second = LigrettoApp(RemoteTable(server.url, code, "Someone else", tokens=tokens))
        async with second.run_test(size=(100, 32)) as pilot:
            model = second.model
            await until(pilot, lambda: model.view is not None, what="the snapshot")
            assert model.seat == 0 and model.name(0) == "Tess"
            assert model.phase in (Phase.PLAYING, Phase.OVER)

    arun(scenario())


def test_a_start_that_closes_a_gap_moves_the_client_to_its_new_seat_quietly(
    server: ServerProcess, tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    """Ann (host) at seat 0, Xena at seat 1, the client at seat 2; Xena leaves, Ann starts:
    the client is welcomed again at seat 1 with the same token, and says nothing about
    connecting (it did not reconnect)."""
    code = server.create_table(3, options={"match_end": "rounds:1"})
    tokens = SeatTokens(tmp_path / "seats.json")
    remote = RemoteTable(server.url, code, "Tess", tokens=tokens)
    model = TableModel()
    delivered: list[dict[str, Any]] = []

    def deliver(message: dict[str, Any]) -> None:
        delivered.append(message)
        model.receive(message)

    async def hello(ws: Any, name: str) -> None:
        await ws.send(json.dumps({"type": "hello", "v": 1, "code": code, "name": name}))
        while json.loads(await ws.recv())["type"] != "welcome":
            pass

    async def until_true(condition: Callable[[], bool], what: str) -> None:
        for _ in range(500):
            if condition():
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}; delivered: {delivered[-4:]}")

    async def scenario() -> None:
        async with websockets.connect(ws_url(server.url)) as ann, websockets.connect(ws_url(server.url)) as xena:
            await hello(ann, "Ann")
            await hello(xena, "Xena")
            remote.start(deliver)
            await until_true(lambda: model.seat == 2 and len(model.people) == 3, "the seat")
            token = model.token
            await xena.send(json.dumps({"type": "leave"}))
            await until_true(lambda: model.people[1] is None, "Xena leaving")
            mark = len(delivered)
            await ann.send(json.dumps({"type": "start"}))
            await until_true(lambda: model.view is not None, "the snapshot")
            answers = [m for m in delivered[mark:] if m["type"] != "pong"]  # keep-alive pings may be answered between
            kinds = [m["type"] for m in answers]
            assert kinds[:3] == ["welcome", "table", "snapshot"], kinds
            assert answers[0]["seat"] == 1 and answers[0]["token"] == token
            assert "connection" not in kinds, [m for m in delivered[mark:] if m["type"] == "connection"]
            assert model.seat == 1 and model.token == token and model.me is model.view.areas[1]  # type: ignore[union-attr]
            assert model.name(1) == "Tess" and model.name(0) == "Ann"
            assert tokens.get(f"{ws_url(server.url)}#{code}") == token and remote.connects == 1
        await remote.close()

    arun(scenario())


def test_what_leaves_is_stamped_as_it_leaves(tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    """The send loop makes each ping from the model's clock sync (echoing the last pong)
    and stamps each act with the server's time, as it goes out (the clock injected)."""
    clock = [100.0]
    model = TableModel()
    remote = RemoteTable(
        "http://127.0.0.1:1", "C", "Tess", tokens=SeatTokens(tmp_path / "seats.json"), now=lambda: clock[0]
    )
    remote.clock = model.clock  # what ``start`` does with the app's model
    model.receive({"type": "pong", "t": 100.0, "server_t": 5000.0}, now=100.02)  # offset 4899.99

    class Socket:
        def __init__(self) -> None:
            self.sent: list[dict[str, Any]] = []

        async def send(self, text: str) -> None:
            self.sent.append(json.loads(text))
            clock[0] += 0.5

    async def scenario() -> None:
        ws = Socket()
        clock[0] = 101.0
        remote.outbox.put_nowait({"type": "ping"})
        remote.outbox.put_nowait({"type": "act", "id": 1, "action": {"kind": "turn"}})
        sending = asyncio.create_task(remote._send_loop(ws))  # type: ignore[arg-type]
        while len(ws.sent) < 2:
            await asyncio.sleep(0.01)
        sending.cancel()
        ping, act = ws.sent
        assert ping == {"type": "ping", "t": 101.0, "echo": 5000.0, "held": pytest.approx(0.98)}
        assert act["t"] == pytest.approx(101.5 + 4899.99), "sent at 101.5 local, on the server's clock"

    arun(scenario())
