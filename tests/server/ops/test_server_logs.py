"""Quiet, useful logs (``server/ops/logs.py``): what a client can cause at will is counted in
``/metrics`` and written a few lines a second at most (the sampler on an injected clock);
a text frame that is not UTF-8 writes one line, never a traceback; ``--log-format json``
writes one JSON object per line, errors included.  The last tests run a real server."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import websockets

from ligretto.server.ops import logs, metrics
from realserver import TEST_RATE

# --- the sampler, on an injected clock ---------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_the_sampler_lets_a_few_lines_a_second_through_per_cause() -> None:
    clock = Clock()
    sampled = logs.Sampled(lines=3, per_s=1.0, now=clock)
    assert [sampled.allow("malformed") for _ in range(10)] == [0, 0, 0] + [None] * 7
    # Another cause has its own share.
    assert sampled.allow("invalid") == 0
    clock.t += 0.99
    assert sampled.allow("malformed") is None
    # A new second: the first line let through says how many were left out.
    clock.t += 0.01
    assert sampled.allow("malformed") == 8
    assert sampled.allow("malformed") == 0
    clock.t += 5.0
    assert sampled.allow("malformed") == 0


def test_the_sampled_log_says_how_many_lines_it_left_out() -> None:
    clock = Clock()
    sampled = logs.Sampled(lines=2, per_s=1.0, now=clock)
    logger = logging.getLogger("ligretto.test.sampled")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        for i in range(1000):
            sampled.log(logger, "malformed", logging.INFO, "refused message %d", i)
        clock.t += 1.0
        sampled.log(logger, "malformed", logging.INFO, "refused message %d", 1000)
        sampled.log(logger, "rate_limited", logging.DEBUG, "not enabled: never counted")
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue().splitlines() == [
        "refused message 0",
        "refused message 1",
        "refused message 1000 (and 998 more like it)",
    ]
    assert "rate_limited" not in sampled.windows


# --- formats and the invalid UTF-8 filter ------------------------------------------------


def _record(message: str, error: BaseException | None = None, name: str = "ligretto.server") -> logging.LogRecord:
    exc_info = None if error is None else (type(error), error, error.__traceback__)
    return logging.LogRecord(name, logging.ERROR, __file__, 1, message, (), exc_info)


def _raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as caught:
        return caught


def test_json_lines_are_one_object_each_errors_with_their_traceback() -> None:
    formatter = logs.JsonFormatter()
    error = _raised(RuntimeError("the disk is full"))
    lines = [formatter.format(_record("could not write\nto ligretto.db", error)), formatter.format(_record("ok"))]
    assert all("\n" not in line for line in lines)
    first, second = (json.loads(line) for line in lines)
    assert first["level"] == "error" and first["logger"] == "ligretto.server"
    assert first["message"] == "could not write\nto ligretto.db"
    assert "Traceback" in first["exception"] and "RuntimeError: the disk is full" in first["exception"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", first["time"])
    assert "exception" not in second and second["message"] == "ok"


def _bad_count(code: str) -> float:
    return metrics.REGISTRY.get_sample_value("ligretto_bad_messages_total", {"code": code}) or 0.0


def test_uvicorns_invalid_utf8_traceback_becomes_one_counted_line() -> None:
    clock = Clock()
    utf8 = logs.InvalidUtf8(logs.Sampled(lines=2, now=clock))
    uvicorn_error = logging.getLogger("uvicorn.error")
    level = uvicorn_error.level
    uvicorn_error.setLevel(logging.INFO)
    before = _bad_count("invalid_utf8")

    def record() -> logging.LogRecord:
        error = _raised(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"))
        return _record("Invalid UTF-8 sequence received from client.", error, "uvicorn.error")

    try:
        kept = [r for r in (record() for _ in range(5)) if utf8.filter(r)]
        clock.t += 1.0
        later = record()
        assert utf8.filter(later)
        # Any other error of uvicorn's keeps its traceback.
        other = _record("Exception in ASGI application", _raised(KeyError("x")), "uvicorn.error")
        assert utf8.filter(other) and other.exc_info is not None
        # Not logged at all below INFO, still counted.
        uvicorn_error.setLevel(logging.WARNING)
        assert not utf8.filter(record())
    finally:
        uvicorn_error.setLevel(level)
    assert _bad_count("invalid_utf8") == before + 7
    assert len(kept) == 2
    for kept_record in kept:
        assert kept_record.exc_info is None and kept_record.levelno == logging.INFO
        assert kept_record.getMessage() == logs.INVALID_UTF8_TEXT
    assert later.getMessage() == logs.INVALID_UTF8_TEXT + " (and 3 more like it)"


def _line(name: str, level: int, msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


def test_uvicorns_info_lines_come_a_few_a_second_per_kind_warnings_always() -> None:
    clock = Clock()
    sampled = logs.SampledInfo(logs.Sampled(lines=2, per_s=1.0, now=clock))
    opened = [_line("uvicorn.error", logging.INFO, "connection open") for _ in range(5)]
    assert [sampled.filter(r) for r in opened] == [True, True, False, False, False]
    access = _line("uvicorn.access", logging.INFO, '%s - "WebSocket %s" %s', "127.0.0.1:1", "/ws", "[accepted]")
    assert sampled.filter(access), "another kind of line has its own share"
    warning = _line("uvicorn.error", logging.WARNING, "connection open")
    assert sampled.filter(warning), "warnings are never left out"
    clock.t += 1.0
    again = _line("uvicorn.error", logging.INFO, "connection open")
    assert sampled.filter(again) and again.getMessage() == "connection open (and 3 more like it)"


def test_configure_samples_uvicorns_loggers_once_however_often_it_runs() -> None:
    for _ in range(2):
        logs.configure("info", "text", io.StringIO())
    for name in logs.UVICORN_LOGGERS:
        kinds = [type(f) for f in logging.getLogger(name).filters]
        assert kinds.count(logs.SampledInfo) == 1, name


def test_an_unknown_log_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown log format 'xml'"):
        logs.configure("info", "xml")


def test_configure_sends_every_logger_to_one_handler_in_json() -> None:
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    stream = io.StringIO()
    try:
        logs.configure("info", "json", stream)
        logging.getLogger("uvicorn.error").info("Uvicorn running")
        logging.getLogger("ligretto.store").debug("not at info")
        try:
            raise OSError("disk I/O error")
        except OSError:
            logging.getLogger("ligretto.store").exception("could not write to %s", "x.db")
    finally:
        for handler in root.handlers[:]:
            root.removeHandler(handler)
        for handler in saved:
            root.addHandler(handler)
        root.setLevel(level)
    entries = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(e["logger"], e["level"]) for e in entries] == [("uvicorn.error", "info"), ("ligretto.store", "error")]
    assert "OSError: disk I/O error" in entries[1]["exception"]


# --- a real server -----------------------------------------------------------------------

Arun = Callable[[Coroutine[Any, Any, Any]], Any]
BAD = ("{nope", '{"type": "dance"}', '{"type": "act", "id": 1}', '{"type": "ready"}')
"""Four causes: malformed, unknown_type, invalid, not_joined."""


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def _lines(server: Any, needle: str) -> list[str]:
    return [line for line in server.log_text().splitlines() if needle in line]


def test_a_thousand_bad_messages_write_a_few_lines(server_with: Callable[..., Any], arun: Arun) -> None:
    server = server_with(log_level="info", **TEST_RATE)

    async def scenario() -> float:
        client = await server.client("flood").connect()
        start = time.monotonic()
        for i in range(1000):
            await client.send(BAD[i % len(BAD)], paced=False)
        deadline = time.monotonic() + 20.0
        while len(client.all("error")) < 1000:
            assert time.monotonic() < deadline, f"{len(client.all('error'))} errors of 1000"
            await client.next_arrival(1.0)
        await client.barrier()
        elapsed = time.monotonic() - start
        await client.close()
        return elapsed

    elapsed = arun(scenario())
    text = server.http("GET", "/metrics")[1]
    for code in ("malformed", "unknown_type", "invalid", "not_joined"):
        assert _metric(text, f'ligretto_bad_messages_total{{code="{code}"}}') == 250, code
    refused = _lines(server, "refused message")
    # At most LINES_PER_S a second for each of the four causes, and some were written.
    assert 4 <= len(refused) <= 4 * logs.LINES_PER_S * (int(elapsed) + 2), refused
    assert any("more like it" in line for line in refused) or elapsed < 1.0, refused


def test_invalid_utf8_writes_no_traceback(server_with: Callable[..., Any], arun: Arun) -> None:
    server = server_with(log_level="info")

    async def scenario() -> list[int | None]:
        codes = []
        for _ in range(20):
            ws = await websockets.connect(server.ws_url, ping_interval=None)
            await ws.send(b'{"type": "ping", "t": 1, "x": "\xff\xfe"}', text=True)
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 5.0)
            codes.append(ws.close_code)
        return codes

    assert arun(scenario()) == [1007] * 20
    text = server.http("GET", "/metrics")[1]
    assert _metric(text, 'ligretto_bad_messages_total{code="invalid_utf8"}') == 20
    log = server.log_text()
    assert "Traceback" not in log and "UnicodeDecodeError" not in log, log
    lines = _lines(server, logs.INVALID_UTF8_TEXT)
    assert 1 <= len(lines) <= 20, log
    assert server.healthy()


def test_json_log_lines_parse(server_with: Callable[..., Any], arun: Arun) -> None:
    server = server_with(log_level="info", log_format="json")

    async def scenario() -> None:
        client = await server.client("Ann").join(server.create_table(2))
        await client.send("{nope")
        await client.wait_for("error", code="malformed")
        await client.send({"type": "start"})  # a refusal by the table (one player): counted too
        await client.wait_for("error", code="too_few")
        await client.close()

    arun(scenario())
    text = server.http("GET", "/metrics")[1]
    assert _metric(text, 'ligretto_bad_messages_total{code="too_few"}') == 1
    server.stop()
    lines = [line for line in server.log_text().splitlines() if line.strip()]
    logged = [line for line in lines if not line.startswith(("--- start", "ligretto: serving on"))]
    entries = [json.loads(line) for line in logged]
    assert {"time", "level", "logger", "message"} <= set(entries[0])
    assert any(e["logger"] == "ligretto.server" and "malformed" in e["message"] for e in entries), lines
    assert any(e["logger"] == "uvicorn.access" and "/api/tables" in e["message"] for e in entries), lines


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:s3cret@redis.internal:6379/0", "redis://:***@redis.internal:6379/0"),
        ("redis://ann:s3cret@10.0.0.5/1", "redis://ann:***@10.0.0.5/1"),
        ("rediss://:p%40ss@[::1]:6380/0", "rediss://:***@[::1]:6380/0"),
        ("postgresql://ann:p@ss:w0rd@db:5432/games", "postgresql://ann:***@db:5432/games"),
        (
            "postgresql://db/games?user=ann&password=s3cret&sslmode=require",
            "postgresql://db/games?user=ann&password=***&sslmode=require",
        ),
        ("redis://127.0.0.1:6379/0?Password=s3cret", "redis://127.0.0.1:6379/0?password=***"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("postgresql://ann@db/games", "postgresql://ann@db/games"),
        ("/var/lib/ligretto/ligretto.db", "/var/lib/ligretto/ligretto.db"),
        ("redis://:s3cret@[::1/0", "redis://***"),
    ],
)
def test_an_address_is_shown_without_its_password(url: str, shown: str) -> None:
    assert logs.without_password(url) == shown
    assert "s3cret" not in logs.without_password(url) and "w0rd" not in logs.without_password(url)
