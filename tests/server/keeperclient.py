"""A small client of the score keeper's HTTP API for the tests over a real server: JSON
calls, and :class:`SheetStream`, one live stream (Server-Sent Events) read in a thread of
its own, each ``event: sheet`` parsed and queued."""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

Answer = tuple[int, Any]

PLAYERS = [
    {"name": "Alice", "back": {"colour": "red", "symbol": "sun"}},
    {"name": "Bob", "back": {"colour": "red", "symbol": "moon"}},
    {"name": "Cleo", "back": {"colour": "blue", "symbol": "star"}},
]


def call(
    server: Any, method: str, path: str, body: Any = None, *, secret: str | None = None, raw: bytes | None = None
) -> Answer:
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if secret is not None:
        request.add_header("Authorization", f"Bearer {secret}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text, status, kind = response.read(), response.status, response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        text, status, kind = error.read(), error.code, error.headers.get("Content-Type", "")
    return status, json.loads(text) if "json" in kind else text.decode()


def new_sheet(server: Any, **fields: Any) -> dict[str, Any]:
    status, body = call(server, "POST", "/api/sheets", {"players": PLAYERS, **fields})
    assert status == 201, body
    sheet: dict[str, Any] = body
    return sheet


def entry(center: Sequence[int], stack: Sequence[int], stopped_by: int | None) -> dict[str, Any]:
    return {
        "center": list(center),
        "stack": list(stack),
        "ending": "stop" if stopped_by is not None else "stalemate",
        "stopped_by": stopped_by,
    }


def put(
    server: Any, code: str, n: int, what: dict[str, Any], *, base: int | None, client_id: str, by: str = "Alice"
) -> Answer:
    return call(
        server, "PUT", f"/api/sheets/{code}/rounds/{n}", {"entry": what, "base": base, "by": by, "id": client_id}
    )


class SheetStream(threading.Thread):
    """``GET /api/sheets/{code}/events`` read line by line; every sheet received is queued
    with the time it arrived (the real clock: only ever a generous bound in a test)."""

    def __init__(self, server: Any, code: str) -> None:
        super().__init__(daemon=True)
        self.url = f"{server.url}/api/sheets/{code}/events"
        self.sheets: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.status: int | None = None
        self.kind = ""
        self.comments = 0
        self.opened = threading.Event()
        self.start()

    def run(self) -> None:
        with urllib.request.urlopen(self.url, timeout=30) as response:
            self.status, self.kind = response.status, response.headers.get("Content-Type", "")
            self.opened.set()
            event = None
            for line in response:
                text = line.decode().rstrip("\r\n")
                if text.startswith("event: "):
                    event = text.removeprefix("event: ")
                elif text.startswith("data: ") and event == "sheet":
                    self.sheets.put((time.monotonic(), json.loads(text.removeprefix("data: "))))
                elif text.startswith(":"):
                    self.comments += 1
                elif text == "":
                    event = None

    def next(self, timeout: float = 10.0) -> tuple[float, dict[str, Any]]:
        return self.sheets.get(timeout=timeout)

    def until(self, version: int, timeout: float = 10.0) -> tuple[float, dict[str, Any]]:
        """The first sheet of at least ``version`` (earlier ones skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            at, sheet = self.sheets.get(timeout=max(0.01, deadline - time.monotonic()))
            if sheet["version"] >= version:
                return at, sheet
