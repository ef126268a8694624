"""In-process stand-ins for a connection, for tests that drive a ``Table`` directly."""

from __future__ import annotations

from typing import Any


class Quiet:
    """A listener that ignores what it is sent."""

    def __init__(self) -> None:
        self.seat: int | None = None

    def detach(self) -> None:
        self.seat = None

    def send(self, message: dict[str, Any]) -> None:
        pass
