"""``/readyz``: ready when the database, Redis (a process of a service) and the process
answer; what is missing when one does not, with a real PostgreSQL database dropped under
the server and a real redis-server stopped and started again; ``/healthz`` stays "ok"
(liveness) throughout.  While Redis is away a new table is 503 ``unavailable`` and a
``hello`` that needs Redis to find its table is closed 1013 (try again); so too, within
a second or two, while it hangs, not when it resumes."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from inprocess import BASE_URL, AppServer
from starlette.testclient import TestClient

from ligretto.server.cluster.redisdirectory import RedisDirectory
from ligretto.server.ops import logs, metrics
from ligretto.server.records.store import Store
from ligretto.server.web.app import create_app
from ligretto.server.web.settings import Settings
from ligretto.testkit.serverprocess import OPEN_LIMITS
from pgserver import PgServer
from redisserver import RedisServer


def readiness(client: Any) -> tuple[int, dict[str, Any]]:
    answer = client.get("/readyz")
    assert answer.headers["content-type"] == "application/json"
    body: dict[str, Any] = answer.json()
    return answer.status_code, body


def redis_errors() -> float:
    return metrics.REGISTRY.get_sample_value("ligretto_backend_errors_total", {"backend": "redis"}) or 0.0


def test_a_lone_server_is_ready_until_it_stops(tmp_path: Path) -> None:
    with AppServer(tmp_path) as server:
        assert readiness(server.client) == (200, {"status": "ready", "checks": {"loop": "ok", "database": "ok"}})
        server.app.state.stopping = lambda: True  # what serve.py says once told to stop
        status, body = readiness(server.client)
        assert (status, body["status"], body["checks"]["loop"]) == (503, "not_ready", "stopping")
        assert body["checks"]["database"] == "ok"
        assert server.http("GET", "/healthz")[1]["status"] == "ok"


def test_a_lost_postgresql_database_is_what_is_missing(postgres: PgServer) -> None:
    url = postgres.new_database()
    name = url.rsplit("/", 1)[1]
    store = Store(url)
    app = create_app(Settings(**OPEN_LIMITS), store)
    with TestClient(app, base_url=BASE_URL) as client:
        assert readiness(client)[0] == 200
        with psycopg.connect(postgres.url("postgres"), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        status, body = readiness(client)
        assert (status, body["status"], body["checks"]["loop"]) == (503, "not_ready", "ok")
        assert body["checks"]["database"] != "ok", body  # the probe's connection was cut
        status, body = readiness(client)  # and cannot be opened again
        assert status == 503 and "could not connect" in body["checks"]["database"], body
        assert name in body["checks"]["database"], "the operator reads which database"
        assert client.get("/healthz").json()["status"] == "ok"


def test_a_stopped_redis_is_what_is_missing_until_it_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    redis = RedisServer(tmp_path)
    redis.start()
    try:
        directory = RedisDirectory(redis.url, "http://127.0.0.1:8000")
        app = create_app(Settings(**OPEN_LIMITS), Store(str(tmp_path / "ligretto.db")), directory)
        with TestClient(app, base_url=BASE_URL) as client:
            status, body = readiness(client)
            assert (status, body["checks"]) == (200, {"loop": "ok", "database": "ok", "redis": "ok"})
            errors = redis_errors()
            monkeypatch.setattr(logs.BACKENDS, "now", lambda: 1000.0)  # one span of the sampled log
            monkeypatch.setattr(logs.BACKENDS, "windows", {})
            redis.stop()
            status, body = readiness(client)
            assert (status, body["status"]) == (503, "not_ready")
            assert body["checks"]["redis"].startswith("ConnectionError"), body
            assert (body["checks"]["database"], body["checks"]["loop"]) == ("ok", "ok")
            assert client.get("/healthz").json()["status"] == "ok"
            # Without Redis no process may make a table its own: try again, never a 500.
            made = client.post("/api/tables", json={"seats": 2})
            assert (made.status_code, made.json()["error"], made.headers["retry-after"]) == (503, "unavailable", "1")
            assert client.post("/api/tutorial", json={"name": "Ann"}).status_code == 503
            with client.websocket_connect("/ws") as socket:  # a table nobody here has
                socket.send_text('{"type": "hello", "v": 1, "code": "ZZZZ", "name": "Ann"}')
                closed = socket.receive()
            assert (closed["type"], closed["code"]) == ("websocket.close", 1013), closed
            details = client.get("/api/tables/ZZZZ")  # its owner cannot be asked: try again, not a 500
            assert (details.status_code, details.json()["error"], details.headers["retry-after"]) == (
                503,
                "moving",
                "1",
            )
            deadline = time.monotonic() + 10
            while (
                metrics.REGISTRY.get_sample_value("ligretto_backend_errors_total", {"backend": "redis"}) or 0
            ) <= errors:
                assert time.monotonic() < deadline, "the failed renewals are counted in /metrics"
                time.sleep(0.05)
            while redis_errors() < errors + 4:  # several renewals failed, from the thread and the loop
                assert time.monotonic() < deadline, "the failed renewals are counted in /metrics"
                time.sleep(0.05)
            away = [  # a warning; whether INFO is captured depends on the tests run before
                r.getMessage()
                for r in caplog.records
                if r.name.startswith("ligretto.cluster") and r.levelno >= logging.WARNING
            ]
            assert len(away) == 1, away  # renewals, sweeps, the lobby and its channels: one line in the span
            redis.start()  # the same port: the client connects again
            assert readiness(client)[0] == 200
            assert client.post("/api/tables", json={"seats": 2}).status_code == 201
    finally:
        redis.stop()


HUNG_S = 10.0
"""How long the hung Redis of the test below stays hung if nothing answers before (a
request held until it resumes is the defect)."""


def test_a_hung_redis_is_try_again_within_seconds_not_a_request_held_until_it_resumes(tmp_path: Path) -> None:
    """SIGSTOP: Redis takes every command and answers none.  A new table, a ``hello`` for a
    table another process may own and that table's details each wait for Redis a second
    (``keys.ANSWER_S``), then answer as while Redis is stopped: 503 ``unavailable``, 1013,
    503 ``moving``."""
    redis = RedisServer(tmp_path)
    redis.start()
    resume = threading.Timer(HUNG_S, redis.resume)
    try:
        directory = RedisDirectory(redis.url, "http://127.0.0.1:8000")
        app = create_app(Settings(**OPEN_LIMITS), Store(str(tmp_path / "ligretto.db")), directory)
        with TestClient(app, base_url=BASE_URL) as client:
            assert client.post("/api/tables", json={"seats": 2}).status_code == 201
            redis.hang()
            resume.start()
            began = time.monotonic()
            made = client.post("/api/tables", json={"seats": 2})
            assert (made.status_code, made.json().get("error")) == (503, "unavailable"), made.text
            assert time.monotonic() - began < 3.0, "the new table waited for Redis to resume"
            began = time.monotonic()
            with client.websocket_connect("/ws") as socket:  # a table nobody here has
                socket.send_text('{"type": "hello", "v": 1, "code": "ZZZZ", "name": "Ann"}')
                closed = socket.receive()
            assert (closed["type"], closed["code"]) == ("websocket.close", 1013), closed
            details = client.get("/api/tables/ZZZZ")
            assert (details.status_code, details.json().get("error")) == (503, "moving"), details.text
            assert time.monotonic() - began < 3.0, "the hello or the details waited for Redis to resume"
            assert resume.is_alive(), "answered before Redis resumed"
            redis.resume()
            assert client.post("/api/tables", json={"seats": 2}).status_code == 201
    finally:
        resume.cancel()
        redis.stop()
