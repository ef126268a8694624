"""The HTTP API's common answers, with public names for every resource's module: a
request's JSON body as a protocol struct (``body_of``, a declared body over the limit
refused before it is read), a number of a query or an address read strictly
(``whole_number``, ``query_number``), a typed answer (``answer``), an error (``error``), the
quota of tables per address (``over_quota``) and a link as a QR code (``qr_svg``)."""

from __future__ import annotations

import io
import time
from collections.abc import Mapping
from typing import TypeVar

import msgspec
import segno
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.engine import rules
from ligretto.server.ops import metrics
from ligretto.server.ops.addresses import address_of
from ligretto.server.web.admission import Refusal
from ligretto.server.web.lobby import Lobby

T = TypeVar("T")


class BadQuery(Exception):
    """A query parameter that is not what its route takes: answered 400 ``bad_query``."""


def whole_number(text: str, low: int, high: int) -> int | None:
    """``text`` as a whole number from ``low`` to ``high`` (``rules.whole_number``: ASCII
    digits alone), or ``None``."""
    number = rules.whole_number(text)
    return number if number is not None and low <= number <= high else None


def query_number(request: Request, name: str, low: int, high: int) -> int | None:
    """The query parameter ``name`` as a whole number from ``low`` to ``high``
    (:func:`whole_number`); ``None`` if the query has no ``name``; :class:`BadQuery` if it
    has anything else (empty too)."""
    text = request.query_params.get(name)
    if text is None:
        return None
    number = whole_number(text, low, high)
    if number is None:
        shown = text if len(text) <= 24 else f"{text[:20]}… ({len(text)} characters)"
        raise BadQuery(f"{name} is a whole number {low}-{high} in ASCII digits, not {shown!r}")
    return number


TOO_LARGE = f"request bodies are limited to {protocol.MAX_MESSAGE_BYTES} bytes"
CLOSE = {"Connection": "close"}
"""An answer after which the connection is closed: a body left unread is not read."""


async def body_of(request: Request, kind: type[T]) -> T | Response:
    """An HTTP request's JSON body as ``kind`` (a protocol struct; empty means ``{}``), or
    the error answer: too large (413 as soon as the headers declare it, or once more
    than the limit has arrived; the connection then closed), not JSON at all
    (``malformed``, as on the WebSocket) or JSON of the wrong shape (``invalid``)."""
    declared = request.headers.get("content-length")
    if declared is not None and whole_number(declared, 0, protocol.MAX_MESSAGE_BYTES) is None:
        return error(413, "too_large", TOO_LARGE, CLOSE)
    body = b""
    try:
        async for chunk in request.stream():  # a body sent in chunks, with no length declared
            body += chunk
            if len(body) > protocol.MAX_MESSAGE_BYTES:
                return error(413, "too_large", TOO_LARGE, CLOSE)
    except ClientDisconnect:  # gone, or cut off by the request deadline: nobody to answer
        return Response(status_code=400)
    request._body = body  # read once: ``request.body()`` gives it again (a request relayed to another process)
    try:
        return msgspec.json.decode(body or b"{}", type=kind)
    except msgspec.ValidationError as invalid:  # a DecodeError too: first
        return error(400, "invalid", str(invalid))
    except msgspec.DecodeError as malformed:
        return error(400, "malformed", f"malformed JSON: {malformed}")


def answer(body: msgspec.Struct, status_code: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    """A typed body of the HTTP API (``protocol.http``) as JSON; an error answer counted
    in ``/metrics`` by its code."""
    if isinstance(body, protocol.HttpError):
        metrics.BAD_REQUESTS.labels(body.error).inc()
    return Response(protocol.encode(body), status_code=status_code, headers=headers, media_type="application/json")


def error(status_code: int, code: str, message: str, headers: Mapping[str, str] | None = None) -> Response:
    return answer(protocol.HttpError(code, message), status_code, headers)


async def try_again(request: Request, unavailable: Exception) -> Response:
    """The answer to a request the service cannot serve this moment (``Unavailable``: its
    Redis is away, or the table's owner died and its lease still runs): 503 with
    ``Retry-After``, ``moving`` at a table's own address, ``unavailable`` elsewhere (no new
    table now).  The app's handler of ``Unavailable``, so no route catches it itself."""
    del unavailable
    if "code" in request.path_params:
        return error(503, "moving", "this table is being taken over: try again in a moment", {"Retry-After": "1"})
    message = "the service cannot take new tables right now: try again in a moment"
    return error(503, "unavailable", message, {"Retry-After": "1"})


def over_quota(request: Request) -> Refusal | None:
    """Count one more table from the request's address (``Settings.tables_per_minute``);
    the 429 answer if it is one too many."""
    lobby: Lobby = request.app.state.lobby
    refusal = lobby.quota.allow(address_of(request.client), time.monotonic())
    if refusal is not None:
        metrics.REFUSED.labels(refusal.code).inc()
    return refusal


QR_SCALE = 8
"""Pixels per module of the QR code's SVG (its own size; the page scales it)."""
QR_BORDER = 4
"""The quiet zone around the code, in modules (the QR standard asks for 4)."""


def qr_code(link: str) -> segno.QRCode:
    """The QR code of an invite link: error correction M (15 %: a phone still reads it off a
    scratched or glaring screen), the smallest version that holds it."""
    return segno.make_qr(link, error="m", boost_error=False)


def qr_svg(link: str, title: str) -> Response:
    """A link as the SVG of its QR code (white background, the standard quiet zone)."""
    buffer = io.BytesIO()
    qr_code(link).save(buffer, kind="svg", scale=QR_SCALE, border=QR_BORDER, xmldecl=False, title=title, light="#fff")
    return Response(buffer.getvalue(), media_type="image/svg+xml")
