"""The operator's files (``Dockerfile``, ``deploy/compose.yaml``, ``deploy/nginx.conf``,
``deploy/Caddyfile``, ``deploy/systemd/ligretto@.service``) tested by running what they run.

This machine has no container engine and no systemd as PID 1, so the same commands run
as plain processes on 127.0.0.1 (``deployfiles.py``): a REAL redis-server
(``tests/redisserver.py``) and the session's REAL PostgreSQL (``tests/pgserver.py``) with
the role and database the compose file's ``postgres`` service makes at its first start;
the compose file's two apps started with the image's entry point followed by their
``command``; Debian's nginx (installed when missing) with ``deploy/nginx.conf`` inside a
small wrapper, and beside it Debian's Caddy with ``deploy/Caddyfile`` (its site plain HTTP
on a port here, ``tests/caddyproxy.py``); the image's entry point on its own and its
``HEALTHCHECK``; the unit's ``ExecStart``.  What cannot run without an engine or systemd
(``docker build``, ``compose up``, the unit's sandbox) is only parsed and verified
(``systemd-analyze verify``).  The database's operations (backups, upgrades, rollback)
are ``test_operations.py``'s.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import websockets
from deployfiles import (
    DEPLOY,
    ROOT,
    WAIT_S,
    Plain,
    compose,
    compose_app,
    dockerfile_stages,
    env_file,
    exec_form,
    final_stage,
    first_start,
    healthcheck_command,
    localize,
    service_env,
    unit_file,
)

import pgserver
from caddyproxy import MARKED_DOWN, MARKED_UP, Caddy, caddy_config, validate
from debianpackages import ensure_installed
from ligretto.client.session import Session
from nginxproxy import nginx_config, start_nginx, stop_proxy
from pgserver import PgServer
from realserver import free_port
from redisserver import RedisServer

SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze"
READY_S = 10.0
"""How long an app may take to answer /readyz with every check ok."""


@dataclass
class Stack:
    """The compose file's service as plain processes."""

    folder: Path
    pg: PgServer
    redis: RedisServer
    places: dict[str, int]
    apps: dict[str, Plain]
    proxy_port: int
    caddy: Caddy

    def proxy(
        self, method: str, path: str, body: Any = None, port: int | None = None, timeout: float = WAIT_S
    ) -> tuple[int, Any]:
        """An HTTP request through nginx (or the proxy on ``port``: ``stack.caddy.port``)."""
        data = None if body is None else json.dumps(body).encode()
        url = f"http://127.0.0.1:{port or self.proxy_port}{path}"
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def address(self, service: str) -> str:
        return f"http://127.0.0.1:{self.places[f'{service}:8000']}"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, postgres: PgServer) -> Iterator[Stack]:
    """deploy/compose.yaml's five services, as plain processes, and Caddy with
    deploy/Caddyfile in front of the same apps; stopped at the end (the apps' logs free of
    tracebacks)."""
    folder = tmp_path_factory.mktemp("compose")
    services = compose()["services"]
    redis = RedisServer(folder)
    redis.start()
    first_start(services["postgres"], postgres)
    places = {"postgres:5432": postgres.port, "redis:6379": redis.port}
    places |= {f"{name}:8000": free_port() for name in ("app1", "app2")}
    apps = {name: compose_app(name, places, folder) for name in ("app1", "app2")}
    nginx: subprocess.Popen[bytes] | None = None
    caddy: Caddy | None = None
    try:
        for app in apps.values():
            app.launch()
        for app in apps.values():
            app.wait_ready()
        proxy_port = free_port()
        nginx = start_nginx(nginx_config(places, proxy_port, folder), proxy_port, folder)
        caddy_port = free_port()
        caddy = Caddy.start(caddy_config(places, caddy_port, folder), caddy_port, folder)
        yield Stack(folder, postgres, redis, places, apps, proxy_port, caddy)
    finally:
        if nginx is not None:
            stop_proxy(nginx)
        if caddy is not None:
            caddy.stop()
        for app in apps.values():
            app.stopped_cleanly()
        redis.stop()


# --- the compose file, run ----------------------------------------------------------------


def test_the_proxy_spreads_requests_over_both_apps(stack: Stack) -> None:
    """nginx's upstreams are the two apps; each says it is at its --advertise address."""
    answers = [stack.proxy("GET", "/healthz") for _ in range(4)]
    assert all(status == 200 for status, _ in answers), answers
    assert {body["address"] for _, body in answers} == {stack.address("app1"), stack.address("app2")}


def test_each_app_is_ready_with_its_database_and_redis(stack: Stack) -> None:
    """The compose commands give each app PostgreSQL and Redis: /readyz checks both.  (On a
    loaded machine one check may miss its 1 s: readiness is asked again for a few seconds,
    as a load balancer does, and every answer names the same three checks.)"""
    for app in stack.apps.values():
        answers = []
        deadline = time.monotonic() + READY_S
        while not answers or (answers[-1][0] != 200 and time.monotonic() < deadline):
            answers.append(app.http("GET", "/readyz"))
            if answers[-1][0] != 200:
                time.sleep(0.5)
        assert all(set(body["checks"]) == {"loop", "database", "redis"} for _, body in answers), answers
        status, body = answers[-1]
        assert status == 200, answers
        assert body["checks"] == {"loop": "ok", "database": "ok", "redis": "ok"}, body


def test_the_backends_health_checks_pass(stack: Stack) -> None:
    """The postgres and redis services' health checks, run against the real servers (with
    where they are here), answer 0; the apps wait for them, and the proxy for the apps."""
    services = compose()["services"]
    where = {
        "pg_isready": [str(pgserver.ensure_postgres() / "pg_isready"), "-h", "127.0.0.1", "-p", str(stack.pg.port)],
        "redis-cli": ["redis-cli", "-h", "127.0.0.1", "-p", str(stack.redis.port)],
    }
    for name in ("postgres", "redis"):
        kind, program, *arguments = services[name]["healthcheck"]["test"]
        assert kind == "CMD", services[name]["healthcheck"]
        checked = subprocess.run([*where[program], *arguments], capture_output=True, text=True, check=False)
        assert checked.returncode == 0, (name, checked.stdout, checked.stderr)
    for app in ("app1", "app2"):
        assert services[app]["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
    assert services["proxy"]["depends_on"] == {
        "app1": {"condition": "service_healthy"},
        "app2": {"condition": "service_healthy"},
    }
    assert services["postgres"]["image"] == "postgres:15" and services["redis"]["image"] == "redis:7"
    assert "POSTGRES_PASSWORD" in service_env(services["postgres"]), "the superuser's password"
    assert "POSTGRES_PASSWORD" not in service_env(services["app1"]), "the apps see their role's only"
    assert "./nginx.conf:/etc/nginx/conf.d/default.conf:ro" in services["proxy"]["volumes"]


async def join(port: int, code: str, name: str) -> tuple[Any, Session]:
    """A player at ``code`` over a WebSocket through nginx, welcomed and told the table."""
    session = Session(code=code, name=name, strict=True)
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws", open_timeout=WAIT_S)
    await ws.send(json.dumps(session.connect()))
    await until(ws, session, lambda: session.table is not None)
    assert session.welcomed and session.refused is None, session.refused
    return ws, session


async def until(ws: Any, session: Session, done: Any) -> None:
    """Read the session's messages until ``done()``."""
    async with asyncio.timeout(WAIT_S):
        while not done():
            session.receive(await ws.recv())


def test_a_table_is_made_and_joined_through_the_proxy(stack: Stack) -> None:
    """POST /api/tables through nginx, then two players over WebSockets through it (the
    upgrade passed on); the first sees the second take the other seat.  The same through
    Caddy."""
    for port in (stack.proxy_port, stack.caddy.port):
        code = made_table(stack, port)
        status, table = stack.proxy("GET", f"/api/tables/{code}", port=port)
        assert status == 200 and table["code"] == code, table
        asyncio.run(two_players(port, code))


def made_table(stack: Stack, port: int) -> str:
    """A table made with POST /api/tables through the proxy on ``port``."""
    status, made = stack.proxy("POST", "/api/tables", {"seats": 2, "preset": "classic", "options": {}}, port)
    assert status == 201, made
    code: str = made["code"]
    return code


async def two_players(port: int, code: str) -> None:
    """Two players join ``code`` over WebSockets through the proxy on ``port``; the first
    sees the second take the other seat."""
    ws_a, alice = await join(port, code, "alice")
    ws_b, bob = await join(port, code, "bob")
    try:
        assert (alice.seat, bob.seat) == (0, 1)
        await until(ws_a, alice, lambda: alice.table is not None and alice.table.seats[1] is not None)
        assert alice.table is not None and [s.name for s in alice.table.seats if s] == ["alice", "bob"]
        assert alice.problems == [] and bob.problems == []
    finally:
        await ws_a.close()
        await ws_b.close()


def test_a_rolling_restart_through_the_proxy_answers_every_request(stack: Stack) -> None:
    """One app stopped (SIGTERM) and started again, then the other: every request through
    nginx, and through Caddy, meanwhile is answered.  With nginx's default ``max_fails=1
    fail_timeout=10s`` the app restarted first is still marked down when the second stops:
    502.  Caddy tries a refused connection again on the other app, and holds a request that
    finds both marked down (the app started again not yet checked again) until its next
    check marks it up; without ``lb_try_duration`` both are 502 or 503."""
    first, second = stack.apps["app1"], stack.apps["app2"]
    proxies = (stack.proxy_port, stack.caddy.port)
    first.stop()
    for port in proxies:
        assert [stack.proxy("GET", "/healthz", port=port)[0] for _ in range(6)] == [200] * 6, port
    first.start()
    second.stop()
    for port in proxies:
        answers = [stack.proxy("GET", "/healthz", port=port) for _ in range(6)]
        assert [status for status, _ in answers] == [200] * 6, (port, answers)
        assert {body["address"] for _, body in answers} == {stack.address("app1")}
    second.start()


def test_caddy_gives_a_frozen_app_no_new_players(stack: Stack) -> None:
    """An app frozen (SIGSTOP, as a stalled machine) still accepts connections (the kernel
    does) and answers none.  Caddy's health check marks it down once its ``/readyz`` goes
    unanswered (2 s); from then on every request and every new player through Caddy
    reaches the other app and is answered: 0 of them wait on the frozen one.  Through nginx
    meanwhile one request of two in a row goes to it and gets no answer (docs/deploy.md:
    open-source nginx has no active health check).  Thawed (SIGCONT), it is marked up at
    the next check and gets requests again."""
    frozen = stack.apps["app1"]
    caddy, upstream = stack.caddy, stack.places["app1:8000"]
    ids = {name: app.http("GET", "/healthz")[1]["process"] for name, app in stack.apps.items()}
    _answered_by(stack, caddy.port, ids["app1"])  # both in Caddy's rotation (restarted above)
    _answered_by(stack, caddy.port, ids["app2"])
    since = caddy.mark()
    assert frozen.pid is not None
    os.kill(frozen.pid, signal.SIGSTOP)
    try:
        caddy.wait_for_check(MARKED_DOWN, upstream, since)
        through_nginx = []
        for _ in range(2):
            try:
                through_nginx.append(stack.proxy("GET", "/healthz", timeout=1.0)[1]["process"])
            except TimeoutError:
                through_nginx.append("no answer")
        assert sorted(through_nginx) == sorted([ids["app2"], "no answer"]), through_nginx
        answers = [stack.proxy("GET", "/healthz", port=caddy.port) for _ in range(10)]
        assert [(status, body["process"]) for status, body in answers] == [(200, ids["app2"])] * 10, answers
        asyncio.run(two_players(caddy.port, made_table(stack, caddy.port)))
    finally:
        os.kill(frozen.pid, signal.SIGCONT)
    caddy.wait_for_check(MARKED_UP, upstream, since)
    _answered_by(stack, caddy.port, ids["app1"])
    asyncio.run(two_players(caddy.port, made_table(stack, caddy.port)))


def test_the_caddyfile_is_valid_as_shipped_and_quoted_whole_in_the_docs(tmp_path: Path) -> None:
    """``caddy validate`` accepts deploy/Caddyfile as it is (its TLS site, which the
    tests run as plain HTTP), and docs/deploy.md shows that file, not a copy of its own."""
    validated = validate(DEPLOY / "Caddyfile", tmp_path)
    assert validated.returncode == 0 and "Valid configuration" in validated.stdout, validated.stderr
    assert (DEPLOY / "Caddyfile").read_text() in (ROOT / "docs" / "deploy.md").read_text()


def _answered_by(stack: Stack, port: int, process: str) -> None:
    """Ask ``/healthz`` through the proxy on ``port`` until ``process`` answers (Caddy's
    least_conn picks at random between idle apps)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        status, body = stack.proxy("GET", "/healthz", port=port)
        assert status == 200, body
        if body["process"] == process:
            return
        assert time.monotonic() < deadline, f"{process} does not answer through the proxy"


# --- the image -----------------------------------------------------------------------------


def test_the_image_runs_its_entry_point_and_its_health_check(tmp_path: Path) -> None:
    """ENTRYPOINT + CMD as a plain process serves, its SQLite file in the volume's place;
    the HEALTHCHECK's command answers 0 while it runs and fails once it is stopped."""
    image = final_stage()
    port = free_port()
    places = {"127.0.0.1:8000": port}
    command = localize(exec_form(image["ENTRYPOINT"]) + exec_form(image["CMD"]), places, port, tmp_path)
    server = Plain(command, port, tmp_path / "image.log", {**os.environ})
    health = localize(healthcheck_command(), places, port, tmp_path)
    server.start()
    try:
        checked = subprocess.run(health, capture_output=True, text=True, check=False, timeout=WAIT_S)
        assert checked.returncode == 0, checked.stderr
        assert (tmp_path / "ligretto.db").exists()
    finally:
        server.stopped_cleanly()
    failed = subprocess.run(health, capture_output=True, check=False, timeout=WAIT_S)
    assert failed.returncode != 0


def test_the_image_is_built_compiled_and_runs_as_its_own_user() -> None:
    """What docker build would do, read: the builder makes the wheel with gcc and refuses
    one without compiled modules; the image installs the wheel only, runs as a user of its
    own, exposes 8000; .dockerignore keeps the local environment out of the context."""
    builder, image = dockerfile_stages((ROOT / "Dockerfile").read_text())
    assert builder[0] == ("FROM", "python:3.11-slim AS builder") and image[0] == ("FROM", "python:3.11-slim")
    builder_runs = " ".join(arguments for name, arguments in builder if name == "RUN")
    assert "gcc" in builder_runs and "pip wheel" in builder_runs and ".so" in builder_runs
    image_runs = " ".join(arguments for name, arguments in image if name == "RUN")
    assert "gcc" not in image_runs and "--no-index" in image_runs
    final = dict(image)
    assert final["USER"] not in ("root", "0") and final["EXPOSE"] == "8000"
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "build", "tests", "**/*.so"} <= set(ignored)


# --- the systemd unit --------------------------------------------------------------------


UNIT = DEPLOY / "systemd" / "ligretto@.service"


def test_the_unit_runs_its_exec_start(stack: Stack) -> None:
    """The unit's ExecStart, ``%i`` a port, runs as a plain process with its
    EnvironmentFile's variables: it serves and is ready (the database and Redis of its
    command line, on this machine: the compose stack's, whose service it joins)."""
    service = unit_file(UNIT)["Service"]
    port = free_port()
    [exec_start] = service["ExecStart"]
    places = {"localhost:5432": stack.pg.port, "localhost:6379": stack.redis.port}
    command = localize(shlex.split(exec_start.replace("%i", str(port))), places, port, stack.folder)
    [environment] = service["EnvironmentFile"]
    server = Plain(command, port, stack.folder / "unit.log", {**os.environ, **env_file(environment)})
    server.start()
    try:
        status, body = server.http("GET", "/readyz")
        assert status == 200 and body["checks"]["database"] == "ok" and body["checks"]["redis"] == "ok", body
        status, body = server.http("GET", "/healthz")
        assert body["address"] == f"http://127.0.0.1:{port}", body
    finally:
        server.stopped_cleanly()


def test_the_unit_is_hardened_and_restarts(tmp_path: Path) -> None:
    """The unit's supervision and sandbox settings, and ``systemd-analyze verify`` of an
    instance (in a root of its own with the host's units and the program's path)."""
    service = unit_file(UNIT)["Service"]
    wanted = {
        "Restart": "always",
        "User": "ligretto",
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ReadWritePaths": "/var/lib/ligretto",
        "PrivateTmp": "yes",
        "KillSignal": "SIGTERM",
    }
    assert {key: service.get(key, [""])[-1] for key in wanted} == wanted
    assert int(service["TimeoutStopSec"][-1]) >= 20
    assert "%i" in service["ExecStart"][0] and not re.search(r"://[^@/\s]+:[^@/\s]+@", service["ExecStart"][0])
    ensure_installed("systemd", Path(SYSTEMD_ANALYZE).exists)
    program = Path(shlex.split(service["ExecStart"][0])[0])
    (tmp_path / program.relative_to("/")).parent.mkdir(parents=True)
    (tmp_path / program.relative_to("/")).write_text("#!/bin/sh\n")
    (tmp_path / program.relative_to("/")).chmod(0o755)
    (tmp_path / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, tmp_path / "etc/systemd/system")
    shutil.copytree("/lib/systemd/system", tmp_path / "usr/lib/systemd/system", symlinks=True)
    verified = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", f"--root={tmp_path}", "ligretto@8001.service"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (verified.returncode, verified.stdout + verified.stderr) == (0, "")
