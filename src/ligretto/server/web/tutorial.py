"""``POST /api/tutorial``: a tutorial table for one learner (``server/table/tutorial.py``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.protocol import ProtocolError
from ligretto.server.table.tutorial import LEARNER, SCRIPT, TUTOR
from ligretto.server.web import http
from ligretto.server.web.lobby import Lobby


async def create_tutorial(request: Request) -> Response:
    """A tutorial table for one learner: its code, the learner's seat token and the script."""
    lobby: Lobby = request.app.state.lobby
    spec = await http.body_of(request, protocol.CreateTutorial)
    if isinstance(spec, Response):
        return spec
    try:
        name = protocol.check_name(spec.name)
    except ProtocolError as error:
        return http.error(400, error.code, error.message)
    refusal = http.over_quota(request)
    if refusal is not None:
        return refusal.response()
    code = await lobby.reserve_code(stored=False)
    table = lobby.create_tutorial(name, code)
    assert table.tutor is not None
    return http.answer(protocol.tutorial_created(table.code, table.tutor.token, LEARNER, TUTOR, SCRIPT), 201)
