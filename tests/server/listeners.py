"""In-process stand-ins for a connection, for tests that drive a ``Table`` directly."""

from __future__ import annotations

from typing import Any

from ligretto import protocol


class Quiet:
    """A listener that ignores what it is sent."""

    def __init__(self) -> None:
        self.seat: int | None = None

    def detach(self) -> None:
        self.seat = None

    def send(self, message: Any) -> None:
        pass


class Recorder:
    """A listener that keeps every message (as a dict, whatever form the table sends)."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.messages: list[dict[str, Any]] = []
        self.detached = False

    def detach(self) -> None:
        self.seat = None
        self.detached = True

    def send(self, message: Any) -> None:
        self.messages.append(protocol.as_dict(message))

    def of(self, kind: str, ident: str | int | None = None) -> list[dict[str, Any]]:
        """The messages of type ``kind`` (with ``id`` ``ident``, if given)."""
        return [m for m in self.messages if m["type"] == kind and (ident is None or m.get("id") == ident)]

    def since(self, mark: int, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages[mark:] if m["type"] == kind]
