"""The server's log: one handler for every logger (ours and uvicorn's), writing plain text
or one JSON object per line (``ligretto serve --log-format json``, docs/protocol.md
"Operations").

What a client can cause at will (a refused message, a text frame that is not UTF-8) is
counted in ``/metrics`` and logged through :class:`Sampled`: at most a few lines a second
per cause, the next line saying how many were left out, so a flood of bad messages cannot
fill the disk.  uvicorn logs a text frame with invalid UTF-8 as an error with a library
traceback; :class:`InvalidUtf8` makes it one counted, sampled line.  uvicorn's own INFO
lines (one per connection opened and closed, one per request) are sampled per kind of line
too (:class:`SampledInfo`).

No secret is in any line: an address of PostgreSQL or Redis is shown by
:func:`without_password` wherever it is logged, printed or put in an error message.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO

from ligretto.server.ops import metrics

LOG_FORMATS = ("text", "json")
"""The values of ``ligretto serve --log-format``."""
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LINES_PER_S = 3
"""Lines a second a :class:`Sampled` log writes per cause at most."""


HIDDEN = "***"
"""What a password is shown as."""


def without_password(url: str) -> str:
    """``url`` with its password, if it has one, shown as :data:`HIDDEN`: in the user part
    (``redis://:***@host:6379/0``, ``postgresql://ann:***@db/games``) and in a ``password``
    query parameter (libpq's and redis-py's); anything else as it is.  An address that
    cannot be read as a URL is shown as its scheme only."""
    try:
        parts = urllib.parse.urlsplit(url)
        password = parts.password
    except ValueError:
        return f"{url.partition(':')[0]}://{HIDDEN}"
    if password is not None:
        userinfo, _, hostport = parts.netloc.rpartition("@")
        parts = parts._replace(netloc=f"{userinfo.partition(':')[0]}:{HIDDEN}@{hostport}")
    if parts.query:
        query = [
            f"password={HIDDEN}" if pair.partition("=")[0].lower() == "password" else pair
            for pair in parts.query.split("&")
        ]
        parts = parts._replace(query="&".join(query))
    return urllib.parse.urlunsplit(parts)


class Sampled:
    """At most ``lines`` log lines per cause in each ``per_s`` seconds (``now``: the clock,
    injected in tests); the first line let through after some were left out says how many."""

    def __init__(self, lines: int = LINES_PER_S, per_s: float = 1.0, now: Callable[[], float] = time.monotonic) -> None:
        self.lines = lines
        self.per_s = per_s
        self.now = now
        self.windows: dict[str, list[float]] = {}
        """Cause -> [start of its window, lines written in it, lines left out since the last one]."""

    def allow(self, cause: str) -> int | None:
        """``None``: leave this line out; else let it through, and the number of lines of
        this cause left out since the last one let through."""
        now = self.now()
        window = self.windows.get(cause)
        if window is None or now - window[0] >= self.per_s:
            skipped = 0 if window is None else int(window[2])
            self.windows[cause] = [now, 1, 0]
            return skipped
        if window[1] < self.lines:
            window[1] += 1
            skipped, window[2] = int(window[2]), 0
            return skipped
        window[2] += 1
        return None

    def log(self, logger: logging.Logger, cause: str, level: int, message: str, *args: object) -> None:
        """Log one line of ``cause`` unless its share of this second is used up."""
        if not logger.isEnabledFor(level):
            return
        skipped = self.allow(cause)
        if skipped is None:
            return
        if skipped:
            message += " (and %d more like it)"
            args = (*args, skipped)
        logger.log(level, message, *args)


BACKEND_EVERY_S = 5.0
"""While a backend is away, one line about it in each such span."""
BACKENDS = Sampled(lines=1, per_s=BACKEND_EVERY_S)
"""The log of a lost backend, whose every use fails while it is away (the database: each
commit; Redis, for a process of a service: each renewal, sweep and publication): one line
per backend in each ``BACKEND_EVERY_S`` seconds, the next saying how many were left out,
instead of several lines a second."""


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, and for an error its ``exception`` (the traceback as one string)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry)


INVALID_UTF8_TEXT = "a client sent a text frame that is not UTF-8: its connection is closed (1007)"


class InvalidUtf8(logging.Filter):
    """On uvicorn's ``uvicorn.error`` logger: its error with a traceback for a text frame
    that is not UTF-8 (it closes that connection with 1007) becomes the bad message
    ``invalid_utf8`` in ``/metrics`` and one sampled INFO line without the traceback."""

    CAUSE = "invalid_utf8"

    def __init__(self, sampled: Sampled) -> None:
        super().__init__()
        self.sampled = sampled

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, UnicodeDecodeError):
            return True
        metrics.BAD_MESSAGES.labels(self.CAUSE).inc()
        if not logging.getLogger(record.name).isEnabledFor(logging.INFO):
            return False
        skipped = self.sampled.allow(self.CAUSE)
        if skipped is None:
            return False
        record.exc_info = record.exc_text = None
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg = INVALID_UTF8_TEXT + (f" (and {skipped} more like it)" if skipped else "")
        record.args = ()
        return True


class SampledInfo(logging.Filter):
    """On uvicorn's loggers: its INFO lines come a few a second per kind at most (a line
    per connection opened and closed, an access line per request: what a client makes at
    will, 10,000 connections would write 20,000 lines); the first line let through after
    some were left out says how many.  Warnings and errors always pass."""

    def __init__(self, sampled: Sampled) -> None:
        super().__init__()
        self.sampled = sampled

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO:
            return True
        skipped = self.sampled.allow(f"{record.name}:{record.msg}")
        if skipped is None:
            return False
        if skipped:
            record.msg = f"{record.getMessage()} (and {skipped} more like it)"
            record.args = ()
        return True


UVICORN_LOGGERS = ("uvicorn.error", "uvicorn.access")
"""The loggers of uvicorn that :func:`configure` samples."""


def configure(level: str = "info", log_format: str = "text", stream: IO[str] | None = None) -> logging.Handler:
    """Send every logger's lines (uvicorn's too: start it with ``log_config=None``) to one
    handler on ``stream`` (default standard error) in ``log_format`` (``text``, ``json``)."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"unknown log format {log_format!r}: expected one of {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        for old_filter in logger.filters[:]:
            if isinstance(old_filter, InvalidUtf8 | SampledInfo):
                logger.removeFilter(old_filter)
    uvicorn_error = logging.getLogger("uvicorn.error")
    uvicorn_error.addFilter(InvalidUtf8(Sampled()))
    for name in UVICORN_LOGGERS:
        logging.getLogger(name).addFilter(SampledInfo(Sampled()))
    return handler
