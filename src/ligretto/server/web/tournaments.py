"""The HTTP API of tournaments (docs/protocol.md, "Tournaments"): ``POST /api/tournaments``
(a host makes one), ``GET /api/tournaments/{id}`` (standings, stages, tables),
``POST …/entrants`` (enter, with a profile's ``Authorization: Bearer`` if any),
``POST …/start`` (the host), ``POST …/seat`` (an entrant's seat at the stage being
played).  Bodies in and out are protocol structs; the stages are the lobby's
:class:`~ligretto.server.web.director.Director`'s, the records the store's."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ligretto import protocol
from ligretto.engine.rules import RuleError
from ligretto.protocol import ProtocolError
from ligretto.server.records.profiles import ProfileError
from ligretto.server.records.tournaments import TournamentRefusal
from ligretto.server.web import http
from ligretto.server.web.director import Director, Elsewhere, details_of
from ligretto.server.web.profiles import NO_STORE, profiles_of, secret_of

__all__ = ["tournament_routes"]


def _director(request: Request) -> Director | None:
    director: Director | None = getattr(request.app.state, "director", None)
    return director


def _refused(error: TournamentRefusal | ProfileError) -> Response:
    return http.error(error.status, error.code, error.message)


async def create_tournament(request: Request) -> Response:
    """``POST /api/tournaments``: a new tournament, its bots entered; the host's secret."""
    director = _director(request)
    if director is None:
        return http.answer(NO_STORE, 503)
    spec = await http.body_of(request, protocol.CreateTournament)
    if isinstance(spec, Response):
        return spec
    refusal = http.over_quota(request)
    if refusal is not None:
        return refusal.response()
    try:
        return http.answer(director.create(spec), 201)
    except RuleError as error:
        return http.error(400, "bad_rules", str(error))
    except ProtocolError as error:
        return http.error(400, error.code, error.message)
    except TournamentRefusal as error:
        return _refused(error)


async def get_tournament(request: Request) -> Response:
    director = _director(request)
    if director is None:
        return http.answer(NO_STORE, 503)
    try:
        return http.answer(details_of(director.tournaments.get(request.path_params["id"])))
    except TournamentRefusal as error:
        return _refused(error)


async def enter_tournament(request: Request) -> Response:
    """``POST …/entrants`` {name}: a person enters, with their profile if the request has its secret."""
    director = _director(request)
    profiles = profiles_of(request)
    if director is None or profiles is None:
        return http.answer(NO_STORE, 503)
    spec = await http.body_of(request, protocol.JoinTournament)
    if isinstance(spec, Response):
        return spec
    try:
        secret = secret_of(request)
        profile = None if secret is None else profiles.by_secret(secret).id
        return http.answer(director.join(request.path_params["id"], spec.name, profile), 201)
    except ProtocolError as error:
        return http.error(400, error.code, error.message)
    except (TournamentRefusal, ProfileError) as error:
        return _refused(error)


async def start_tournament(request: Request) -> Response:
    """``POST …/start`` {host}: the host starts it; the answer is its first stage paired."""
    director = _director(request)
    if director is None:
        return http.answer(NO_STORE, 503)
    spec = await http.body_of(request, protocol.HostSecret)
    if isinstance(spec, Response):
        return spec
    ident = request.path_params["id"]
    try:
        await director.start(ident, spec.host)
        return http.answer(details_of(director.tournaments.get(ident)))
    except TournamentRefusal as error:
        return _refused(error)


async def tournament_seat(request: Request) -> Response:
    """``POST …/seat`` {secret}: the entrant's table, seat and token at the stage being played."""
    director = _director(request)
    if director is None:
        return http.answer(NO_STORE, 503)
    spec = await http.body_of(request, protocol.EntrantSecret)
    if isinstance(spec, Response):
        return spec
    try:
        return http.answer(director.seat_of(request.path_params["id"], spec.secret))
    except TournamentRefusal as error:
        return _refused(error)
    except Elsewhere as elsewhere:  # the table's owner answers (it has the seat's token)
        forwarded = await director.lobby.directory.forward(request, elsewhere.code)
        if forwarded is not None:
            return forwarded
    try:  # taken over here by the lookup (a table nobody held), else nowhere
        return http.answer(director.seat_of(request.path_params["id"], spec.secret))
    except TournamentRefusal as error:
        return _refused(error)
    except Elsewhere:
        return _refused(TournamentRefusal("no_stage", "the table of your stage is not here", 409))


def tournament_routes() -> list[Route]:
    """The routes of tournaments."""
    return [
        Route("/api/tournaments", create_tournament, methods=["POST"]),
        Route("/api/tournaments/{id}", get_tournament),
        Route("/api/tournaments/{id}/entrants", enter_tournament, methods=["POST"]),
        Route("/api/tournaments/{id}/start", start_tournament, methods=["POST"]),
        Route("/api/tournaments/{id}/seat", tournament_seat, methods=["POST"]),
    ]
