"""The terminal client in a service of two processes (issue 16): it joins through one,
its table lives on the other (carried by the relay); the owner is killed mid-round
(SIGKILL); the client reconnects by itself with its seat token to the process it knows,
which has taken the table over (restored from the shared file), finds its seat and the
round as it was, and plays on after the fresh countdown."""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import redis
from tui_support import host_into_play, until

from ligretto.server.cluster import keys
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.model import Phase
from ligretto.terminal.remote import RemoteTable, SeatTokens
from realserver import ServerProcess, running
from redisserver import RedisServer, redis_server

__all__ = ["redis_server"]


def test_follows_its_table_to_another_process_after_a_kill(
    redis_server: RedisServer, tmp_path: Path, arun: Callable[[Coroutine[Any, Any, Any]], Any]
) -> None:
    redis_server.flush()
    directory = redis.Redis.from_url(redis_server.url, decode_responses=True)
    with contextlib.ExitStack() as stack:
        owner, entrance = (
            stack.enter_context(running(ServerProcess(db, tmp_path / f"{name}.log", redis=redis_server.url)))
            for db, name in ((tmp_path / "ligretto.db", "owner"), (tmp_path / "ligretto.db", "entrance"))
        )
        code = _create_on(owner)
        remote = RemoteTable(entrance.url, code, "Tess", tokens=SeatTokens(tmp_path / "seats.json"))
        app = LigrettoApp(remote, bot="smart:beginner")

        async def scenario() -> None:
            async with app.run_test(size=(100, 32)) as pilot:
                model = app.model
                await host_into_play(pilot, model)
                token = model.token
                owner.kill()
                entrance_id = entrance.http("GET", "/healthz")[1]["process"]
                await until(
                    pilot, lambda: directory.get(keys.table(code)) == entrance_id, what="the take-over", timeout=30.0
                )
                # welcomed since: by the entrance (the owner is dead), and the round on again
                await until(
                    pilot,
                    lambda: remote.connects >= 2 and remote.welcomed and model.phase is Phase.PLAYING,
                    what="back at the seat after go",
                    timeout=30.0,
                )
                assert model.seat == 0 and model.token == token
                assert model.me is not None and model.me.discard_size == 3, "the restored round is the one lost"
                await _turn_again(pilot, model)

        arun(scenario())
        status, health = entrance.http("GET", "/healthz")
        assert status == 200 and health["tables"] == 1, "the entrance took the table over"
    directory.close()


def _create_on(process: ServerProcess) -> str:
    """A table made by ``process`` itself (the header of a request placed there)."""
    body = json.dumps({"seats": 2, "preset": "classic", "options": {"match_end": "rounds:1"}, "public": False}).encode()
    request = urllib.request.Request(process.url + "/api/tables", data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header(keys.RELAYED, "1")
    with urllib.request.urlopen(request, timeout=5) as answer:
        code: str = json.loads(answer.read())["code"]
    return code


async def _turn_again(pilot: Any, model: Any) -> None:
    """Turn the hand once more (the round may still be counting down for an instant after
    the welcome: a turn refused then is pressed again)."""
    for _ in range(5):
        await pilot.press("space")
        with contextlib.suppress(AssertionError):
            await until(pilot, lambda: model.me is not None and model.me.discard_size == 6, timeout=3.0)
            return
    raise AssertionError("the hand did not turn after the take-over")
