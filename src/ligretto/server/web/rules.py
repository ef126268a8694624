"""The game's reference for every client, so none keeps a copy: ``GET /api/presets`` (the
engine's rule options and presets), ``GET /api/emotes`` and ``GET /api/rules/{lang}`` (the
rule book as HTML)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from ligretto import protocol, rulebook
from ligretto.server.web import http

RULE_OPTIONS_BODY = protocol.encode(protocol.presets_body())
"""The body of ``GET /api/presets``, encoded once: the rules never change while the server runs."""


EMOTES_BODY = protocol.encode(protocol.Emotes(list(protocol.EMOTES)))
"""The body of ``GET /api/emotes``: the reactions a player may send, encoded once."""


async def emotes(request: Request) -> Response:
    """The fixed list of reactions (``protocol.EMOTES``), so no client keeps a copy of it."""
    return Response(EMOTES_BODY, media_type="application/json")


async def presets(request: Request) -> Response:
    """The rule options and presets of the engine, so no client keeps a copy of them."""
    return Response(RULE_OPTIONS_BODY, media_type="application/json")


async def rules_page(request: Request) -> Response:
    """The rule book in one language as HTML (the browser client's rules page)."""
    lang = request.path_params["lang"]
    if lang not in rulebook.LANGUAGES:
        return http.error(404, "no_language", f"no rules in language {lang!r}")
    # Loaded at the first rules page, not at every start (a restarted server takes its
    # tables back sooner): a few hundredths of a second, once.
    from markdown_it import MarkdownIt  # noqa: PLC0415

    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(rulebook.text(lang))
    return HTMLResponse(html)
