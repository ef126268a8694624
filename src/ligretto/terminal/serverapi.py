"""The terminal client's HTTP requests to a server (docs/protocol.md, "HTTP API"): one
blocking request each, with a bounded wait, and a server that refuses, does not answer or
is no ligretto server said in one line.  ``ligretto join`` first asks for its table
(:meth:`ServerApi.table`), so that a server that is not running or a code it does not know
is said at once instead of a client that tries forever; ``profiles.ProfileApi`` adds the
profile API."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import msgspec

from ligretto import protocol

HTTP_TIMEOUT_S = 10.0
"""Seconds one request may take."""
TABLE_S = 5.0
"""Seconds ``ligretto join`` waits for the server to answer whether it has the table."""

Body = TypeVar("Body", bound=msgspec.Struct)


class UrlError(ValueError):
    """A server address that is not http(s):// or ws(s)://."""


def base_url(url: str) -> str:
    """The server's base address, the key of its profile: ``ws://host:8000/ws`` -> ``http://host:8000``."""
    parts = urlsplit(url.strip())
    schemes = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
    if parts.scheme not in schemes or not parts.netloc:
        raise UrlError(f"bad server address {url!r}: expected e.g. http://127.0.0.1:8000")
    path = parts.path.rstrip("/")
    path = path.removesuffix("/ws") if path.endswith("/ws") else path
    return urlunsplit((schemes[parts.scheme], parts.netloc, path, "", ""))


class Refused(Exception):
    """The server refused a request: its status, error code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class Unavailable(Exception):
    """Nothing to be had from this server: unreachable, or not the API asked for at all
    (profiles: no database, 503 ``no_store``); the message says which."""


class ServerApi:
    """The HTTP API of one server (``base``: its base address), one blocking request each."""

    API = "ligretto API"
    """What a server that answers no JSON is said to lack."""

    def __init__(self, base: str, timeout: float = HTTP_TIMEOUT_S) -> None:
        self.base = base
        self.timeout = timeout

    def _call(self, method: str, path: str, *, secret: str | None = None, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if secret is not None:
            request.add_header("Authorization", f"Bearer {secret}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            raise self._refusal(error) from None
        except (OSError, ValueError) as error:
            raise Unavailable(f"cannot reach {self.base}: {_reason(error)}") from None
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise Unavailable(f"{self.base} has no {self.API} (its answer is no JSON)") from None

    def _refusal(self, error: urllib.error.HTTPError) -> Exception:
        try:
            answer = msgspec.json.decode(error.read(), type=protocol.HttpError)
        except (msgspec.DecodeError, OSError):
            return Unavailable(f"{self.base} has no {self.API} (HTTP {error.code})")
        return Refused(error.code, answer.error, answer.message)

    def _read(self, answer: Any, body: type[Body]) -> Body:
        try:
            return msgspec.convert(answer, body)
        except msgspec.ValidationError as error:
            raise Unavailable(f"{self.base} answered no {self.API}'s answer: {error}") from None

    def table(self, code: str) -> bool:
        """Whether the server has a table of invite code ``code`` (``GET /api/tables/{code}``);
        :class:`Unavailable` if it cannot say (not running, not a ligretto server, a table
        being taken over in a service of several processes)."""
        try:
            self._call("GET", f"/api/tables/{urllib.parse.quote(code, safe='')}")
        except Refused as error:
            if error.code == "no_table":
                return False
            raise Unavailable(f"{self.base} cannot say now: {error.message}") from None
        return True


def _reason(error: Exception) -> str:
    """Why a request got no answer, in words (``Connection refused``, ``timed out``)."""
    reason = getattr(error, "reason", error)
    return getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
