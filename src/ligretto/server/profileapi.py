"""The HTTP API of profiles (docs/protocol.md, "Profiles, history and ratings"): make one,
read, rename or delete one's own (``Authorization: Bearer <secret>``), a one-time code to
put it on another device and claiming that code.  Bodies in and out are protocol structs;
the profiles themselves are the store's (``server.profiles``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.server.api import _answer, _body, _error
from ligretto.server.profiles import Profile, ProfileError, Profiles

NO_STORE = protocol.HttpError("no_store", "this server keeps no profiles (it runs without a database)")


def profiles_of(request: Request) -> Profiles | None:
    store = request.app.state.lobby.store
    profiles: Profiles | None = getattr(store, "profiles", None)
    return profiles


def secret_of(request: Request) -> str | None:
    """The secret of ``Authorization: Bearer <secret>`` (``None``: no such header)."""
    scheme, _, secret = request.headers.get("authorization", "").partition(" ")
    return secret.strip() or None if scheme.lower() == "bearer" else None


def _profile(profile: Profile) -> protocol.ProfileMsg:
    return protocol.ProfileMsg(profile.id, profile.name, profile.symbol)


def _refused(error: ProfileError) -> Response:
    return _error(error.status, error.code, error.message)


async def create_profile(request: Request) -> Response:
    """``POST /api/profiles`` {name, symbol}: a new profile and this device's secret."""
    profiles = profiles_of(request)
    if profiles is None:
        return _answer(NO_STORE, 503)
    spec = await _body(request, protocol.CreateProfile)
    if isinstance(spec, Response):
        return spec
    try:
        profile, secret = profiles.create(spec.name, spec.symbol)
    except ProfileError as error:
        return _refused(error)
    return _answer(protocol.ProfileSecret(profile.id, secret, profile.name, profile.symbol), 201)


async def my_profile(request: Request) -> Response:
    """``GET``, ``PATCH`` (``{name?, symbol?}``) and ``DELETE /api/profiles/me``."""
    profiles = profiles_of(request)
    if profiles is None:
        return _answer(NO_STORE, 503)
    secret = secret_of(request)
    try:
        if request.method == "GET":
            return _answer(_profile(profiles.by_secret(secret)))
        if request.method == "DELETE":
            profiles.delete(secret)
            return Response(status_code=204)
        profiles.by_secret(secret)  # an unknown secret is told so before a bad body
        spec = await _body(request, protocol.UpdateProfile)
        if isinstance(spec, Response):
            return spec
        return _answer(_profile(profiles.update(secret, spec.name, spec.symbol)))
    except ProfileError as error:
        return _refused(error)


async def link_profile(request: Request) -> Response:
    """``POST /api/profiles/me/link``: a one-time code for another device."""
    profiles = profiles_of(request)
    if profiles is None:
        return _answer(NO_STORE, 503)
    try:
        code, expires_s = profiles.link(secret_of(request))
    except ProfileError as error:
        return _refused(error)
    return _answer(protocol.ProfileLink(code, expires_s), 201)


async def claim_profile(request: Request) -> Response:
    """``POST /api/profiles/claim`` {code}: the profile of a one-time code, with a secret
    of this device's own."""
    profiles = profiles_of(request)
    if profiles is None:
        return _answer(NO_STORE, 503)
    spec = await _body(request, protocol.ClaimProfile)
    if isinstance(spec, Response):
        return spec
    try:
        profile, secret = profiles.claim(spec.code)
    except ProfileError as error:
        return _refused(error)
    return _answer(protocol.ProfileSecret(profile.id, secret, profile.name, profile.symbol))
