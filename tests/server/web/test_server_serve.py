"""``ligretto serve`` as an operator's supervisor sees it, on real processes: a port it
cannot listen on ends it at once with a non-zero status and one line naming the address
(alone, and as a process of a service with a real ``redis-server``), and a password in the
Redis address never reaches its output."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from realserver import ServerProcess, running
from redisserver import RedisServer, redis_server, redis_url

__all__ = ["redis_server", "redis_url"]

PASSWORD = "s3cret-of-the-operator"
BOUNDED_S = 60
"""How long a refused start may take before the test fails (a bound, not a target)."""


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port of 127.0.0.1 that something else listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


@pytest.mark.parametrize("service", [False, True], ids=["alone", "redis"])
def test_a_port_in_use_ends_the_process_with_one_line_naming_it(
    request: pytest.FixtureRequest, tmp_path: Path, taken_port: int, service: bool
) -> None:
    command = [sys.executable, "-m", "ligretto", "serve", "--port", str(taken_port), "--db", str(tmp_path / "l.db")]
    done = subprocess.run(
        command + (["--redis", request.getfixturevalue("redis_url")] if service else []),
        capture_output=True,
        text=True,
        timeout=BOUNDED_S,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr == f"ligretto serve: cannot listen on 127.0.0.1:{taken_port}: Address already in use\n"
    assert not (tmp_path / "l.db").exists()  # refused before it opened its store (or joined a service)


def test_the_redis_password_is_in_no_line_of_the_output(tmp_path: Path) -> None:
    """A process of a service whose Redis has a password: its start-up line shows the
    address with the password masked, and nothing it writes holds the password."""
    locked = RedisServer(tmp_path, password=PASSWORD)
    locked.start()
    try:
        server = ServerProcess.in_folder(tmp_path, redis=locked.url, log_level="info")
        with running(server):
            assert server.healthy()
        log = server.log_text()
    finally:
        locked.stop()
    (line,) = [line for line in log.splitlines() if line.startswith("ligretto: serving on")]
    assert f"of the service at redis://:***@127.0.0.1:{locked.port}/0)" in line
    assert PASSWORD not in log
