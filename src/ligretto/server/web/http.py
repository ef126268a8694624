"""The HTTP API's common answers, with public names for every resource's module: a
request's JSON body as a protocol struct (``body_of``), a typed answer (``answer``), an
error (``error``), the quota of tables per address (``over_quota``) and a link as a QR code
(``qr_svg``)."""

from __future__ import annotations

import io
import time
from typing import TypeVar

import msgspec
import segno
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.server.ops import metrics
from ligretto.server.ops.addresses import address_of
from ligretto.server.web.admission import Refusal
from ligretto.server.web.lobby import Lobby

T = TypeVar("T")


async def body_of(request: Request, kind: type[T]) -> T | Response:
    """An HTTP request's JSON body as ``kind`` (a protocol struct; empty means ``{}``), or
    the error answer: too large, not JSON at all (``malformed``, as on the WebSocket) or
    JSON of the wrong shape (``invalid``)."""
    try:
        body = await request.body()
    except ClientDisconnect:  # gone, or cut off by the request deadline: nobody to answer
        return Response(status_code=400)
    if len(body) > protocol.MAX_MESSAGE_BYTES:
        return error(413, "too_large", "request too large")
    try:
        return msgspec.json.decode(body or b"{}", type=kind)
    except msgspec.ValidationError as invalid:  # a DecodeError too: first
        return error(400, "invalid", str(invalid))
    except msgspec.DecodeError as malformed:
        return error(400, "malformed", f"malformed JSON: {malformed}")


def answer(body: msgspec.Struct, status_code: int = 200) -> Response:
    """A typed body of the HTTP API (``protocol.http``) as JSON; an error answer counted
    in ``/metrics`` by its code."""
    if isinstance(body, protocol.HttpError):
        metrics.BAD_REQUESTS.labels(body.error).inc()
    return Response(protocol.encode(body), status_code=status_code, media_type="application/json")


def error(status_code: int, code: str, message: str) -> Response:
    return answer(protocol.HttpError(code, message), status_code)


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
