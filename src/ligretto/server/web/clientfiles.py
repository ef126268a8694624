"""The browser client's files (``server/static/``), served at every address no route of
the app answers (:func:`not_routed`), and Starlette's own refusals as the HTTP API's JSON
errors (:func:`refused`, :func:`failed`).

Two things Starlette does by itself are not done here: it redirects a directory's address
without its final slash (``GET /.``) to an absolute URL made of the request's ``Host``
header, and a path with a slash too many or too few to the same: an open redirect to any
server a link names.  :class:`ClientFiles` redirects to a path on this server alone, and
the app's router makes no slash redirect (``create_app``)."""

from __future__ import annotations

from http import HTTPStatus
from pathlib import PurePath

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Router
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ligretto.server.web import http

API = "/api/"
"""The HTTP API's addresses: none of them is a file of the client."""


class ClientFiles(StaticFiles):
    """The client's files, ``index.html`` for a directory; a directory's address without
    its final slash is redirected to that directory's own path (``/.`` and ``/js/..`` to
    ``/``), a ``Location`` with no scheme or host: never to another server."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if isinstance(response, RedirectResponse):
            # ``path`` is normalised and relative (``lookup_path`` served it): one leading
            # slash, so never a network-path reference such as ``//evil.example``.
            return RedirectResponse("/" if path == "." else f"/{PurePath(path).as_posix()}/")
        return response


def not_routed(router: Router, files: ASGIApp | None) -> ASGIApp:
    """What answers an address no route has: the client's ``files`` (an HTTP request
    outside ``/api/``), else the router's own ``not_found`` (404 for HTTP, which
    :func:`refused` writes as JSON; a WebSocket closed)."""

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        if files is not None and scope["type"] == "http" and not scope["path"].startswith(API):
            await files(scope, receive, send)
        else:
            await router.not_found(scope, receive, send)

    return answer


async def refused(request: Request, refusal: Exception) -> Response:
    """Starlette's refusals (no route: 404 ``not_found``; a method the route does not take:
    405 ``method_not_allowed``, with its ``Allow``; another status: its reason phrase in
    snake case) as the API's JSON error."""
    assert isinstance(refusal, HTTPException)
    status = refusal.status_code
    code = HTTPStatus(status).phrase.lower().replace(" ", "_")
    if status == HTTPStatus.NOT_FOUND:
        message = "there is nothing at this address"
    elif status == HTTPStatus.METHOD_NOT_ALLOWED and refusal.headers:
        message = f"{request.method[:16]} is not allowed here: {refusal.headers.get('Allow', '')}"
    else:
        message = refusal.detail
    return http.error(status, code, message, refusal.headers)


async def failed(request: Request, exception: Exception) -> Response:
    """A request whose answer failed (a bug: its traceback is logged) as the JSON error
    500 ``internal``."""
    del request, exception  # nothing of either goes back to the client
    return http.error(500, "internal", "the server failed to answer this request")
