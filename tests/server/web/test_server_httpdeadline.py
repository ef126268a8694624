"""HTTP request deadlines and the header cap (``server/web/httpdeadline.py``, docs/protocol.md
Limits), against a real server with a short ``request_timeout_s``: a request that never
arrives whole (half a header, half a body) is cut off while ``/healthz`` keeps answering;
a whole request, even one sent in pieces, is answered; headers over the cap get 400; a
body declared over the limit gets 413 at once, before any of it is sent.  And what only
raw requests can send: no redirect names the ``Host`` header.

These wait on the wall clock on purpose: what they check is uvicorn's real sockets being
closed by the protocol's real timer.  They share one server with both limits (each test's
connections are its own); the request sent in pieces, slower than that deadline in all,
has a server with a longer one."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from realserver import running

TIMEOUT_S = 0.5
WAIT_S = 5.0
HEADER_CAP = 2048


@pytest.fixture(scope="module")
def server(server_class: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The module's server: ``request_timeout_s`` ``TIMEOUT_S``, headers capped at ``HEADER_CAP``."""
    folder = tmp_path_factory.mktemp("deadline")
    with running(server_class.in_folder(folder, request_timeout_s=TIMEOUT_S, max_header_bytes=HEADER_CAP)) as process:
        yield process


def _connect(server: Any) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT_S)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (a timeout fails the test)."""
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def _read_response(sock: socket.socket) -> bytes:
    """One whole HTTP response (headers, then as many body bytes as its Content-Length
    says), however the socket splits it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "closed before the response's headers"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed in the middle of the response's body"
        body += chunk
    assert len(body) == length, "more than one response"
    return head + b"\r\n\r\n" + body


def test_half_sent_headers_are_cut_off_and_healthz_still_answers(server: Any) -> None:
    stalled = [_connect(server) for _ in range(50)]
    for sock in stalled:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    assert server.healthy(), "the stalled requests hold nothing up"
    opened = time.monotonic()
    for sock in stalled:
        assert _read_all(sock) == b"", "closed without an answer"
        sock.close()
    assert time.monotonic() - opened < TIMEOUT_S + WAIT_S
    assert server.healthy()


def test_a_connection_that_sends_nothing_is_cut_off(server: Any) -> None:
    with _connect(server) as sock:
        assert _read_all(sock) == b""


def test_a_half_sent_body_is_cut_off(server: Any) -> None:
    tables = server.http("GET", "/healthz")[1]["tables"]  # the module's server: others' tables too
    with _connect(server) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"seats": '
        )
        answer = _read_all(sock)
    assert b"201" not in answer, "no table is made of half a body"
    assert server.http("GET", "/healthz")[1]["tables"] == tables


def test_a_whole_request_sent_in_pieces_is_answered(server_with: Callable[..., Any]) -> None:
    server = server_with(request_timeout_s=TIMEOUT_S * 4)
    with _connect(server) as sock:
        for piece in (b"GET /healthz HTTP/1.1\r\n", b"Host: x\r\n", b"Connection: close\r\n\r\n"):
            sock.sendall(piece)
            time.sleep(TIMEOUT_S / 2)
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 200") and b'"status":"ok"' in answer


def test_the_deadline_runs_again_for_the_next_request_on_a_kept_alive_connection(server: Any) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        first = _read_response(sock)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # the next request, never finished
        assert _read_all(sock) == b""


def test_headers_over_the_cap_are_refused(server: Any) -> None:
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Big: " + b"a" * (2 * HEADER_CAP) + b"\r\n\r\n")
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 400")
    status, body = server.http("GET", "/healthz")
    assert status == 200 and body["status"] == "ok", "an ordinary request passes"


def test_a_websocket_is_not_cut_off_by_the_request_deadline(server: Any, arun: Any) -> None:

    async def scenario() -> None:
        code = server.create_table(2)
        client = await server.client("Ann", keepalive=0.3).join(code)
        await asyncio.sleep(TIMEOUT_S * 3)  # well past the deadline, pinging all along
        await client.barrier()
        assert not client.closed
        await client.close()

    arun(scenario())


def test_a_body_declared_over_the_limit_is_refused_before_it_is_sent(server: Any) -> None:
    tables = server.http("GET", "/healthz")[1]["tables"]  # the module's server: others' tables too
    with _connect(server) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
        )
        answer = _read_all(sock)  # no byte of the body sent: the answer, then the connection closed
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), answer[:200]
    assert json.loads(body)["error"] == "too_large"
    assert server.http("GET", "/healthz")[1]["tables"] == tables


def test_no_redirect_names_the_host_header(server: Any) -> None:
    """Starlette would redirect these to ``http://evil.example/...`` (an open redirect)."""
    for path, location in (
        (b"/.", b"/"),
        (b"/js/..", b"/"),
        (b"//evil.example/..", b"/"),
        (b"/api/tables/", None),
        (b"//evil.example", None),
    ):
        with _connect(server) as sock:
            sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
            head = _read_all(sock).partition(b"\r\n\r\n")[0]
        assert b"evil.example" not in head, (path, head)
        lines = head.split(b"\r\n")
        found = [line.split(b":", 1)[1].strip() for line in lines if line.lower().startswith(b"location:")]
        assert found == ([] if location is None else [location]), (path, head)
