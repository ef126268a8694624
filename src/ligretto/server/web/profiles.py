"""The HTTP API of profiles (docs/protocol.md, "Profiles, history and ratings"): make one,
read, rename or delete one's own (``Authorization: Bearer <secret>``), a one-time code to
put it on another device and claiming that code.  Bodies in and out are protocol structs;
the profiles themselves are the store's (``server/records/profiles.py``)."""

from __future__ import annotations

import re
import time

from starlette.requests import Request
from starlette.responses import Response

from ligretto import protocol
from ligretto.server.ops import metrics
from ligretto.server.ops.addresses import address_of
from ligretto.server.records.profiles import Profile, ProfileError, Profiles, check_profile
from ligretto.server.web import http
from ligretto.server.web.lobby import Lobby

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
    return http.error(error.status, error.code, error.message)


async def create_profile(request: Request) -> Response:
    """``POST /api/profiles`` {name, symbol}: a new profile and this device's secret."""
    profiles = profiles_of(request)
    if profiles is None:
        return http.answer(NO_STORE, 503)
    spec = await http.body_of(request, protocol.CreateProfile)
    if isinstance(spec, Response):
        return spec
    try:
        name, symbol = check_profile(spec.name, spec.symbol)  # a bad body does not count
    except ProfileError as error:
        return _refused(error)
    lobby: Lobby = request.app.state.lobby
    refusal = lobby.profile_quota.allow(address_of(request.client), time.monotonic())
    if refusal is not None:
        metrics.REFUSED.labels(refusal.code).inc()
        return refusal.response()
    profile, secret = profiles.create(name, symbol)
    return http.answer(protocol.ProfileSecret(profile.id, secret, profile.name, profile.symbol), 201)


async def my_profile(request: Request) -> Response:
    """``GET``, ``PATCH`` (``{name?, symbol?}``) and ``DELETE /api/profiles/me``."""
    profiles = profiles_of(request)
    if profiles is None:
        return http.answer(NO_STORE, 503)
    secret = secret_of(request)
    try:
        if request.method == "GET":
            return http.answer(_profile(profiles.by_secret(secret)))
        if request.method == "DELETE":
            profiles.delete(secret)
            return Response(status_code=204)
        profiles.by_secret(secret)  # an unknown secret is told so before a bad body
        spec = await http.body_of(request, protocol.UpdateProfile)
        if isinstance(spec, Response):
            return spec
        return http.answer(_profile(profiles.update(secret, spec.name, spec.symbol)))
    except ProfileError as error:
        return _refused(error)


async def link_profile(request: Request) -> Response:
    """``POST /api/profiles/me/link``: a one-time code for another device."""
    profiles = profiles_of(request)
    if profiles is None:
        return http.answer(NO_STORE, 503)
    try:
        code, expires_s = profiles.link(secret_of(request))
    except ProfileError as error:
        return _refused(error)
    return http.answer(protocol.ProfileLink(code, expires_s), 201)


async def claim_profile(request: Request) -> Response:
    """``POST /api/profiles/claim`` {code}: the profile of a one-time code, with a secret
    of this device's own."""
    profiles = profiles_of(request)
    if profiles is None:
        return http.answer(NO_STORE, 503)
    spec = await http.body_of(request, protocol.ClaimProfile)
    if isinstance(spec, Response):
        return spec
    try:
        profile, secret = profiles.claim(spec.code)
    except ProfileError as error:
        return _refused(error)
    return http.answer(protocol.ProfileSecret(profile.id, secret, profile.name, profile.symbol))


CLAIM_CODE = re.compile(r"[A-Za-z0-9_-]{4,32}")
"""What a one-time code of a profile may look like (``server/records/profiles.py`` makes url-safe ones)."""


def claim_link(request: Request, code: str) -> str:
    """The link that puts a profile on another device, as the browser writes it
    (``profile.js`` ``claimLink``)."""
    return f"{str(request.base_url).rstrip('/')}/#/claim/{code}"


async def claim_qr(request: Request) -> Response:
    """``POST /api/profiles/claim/qr.svg`` {code}: the claim link of a one-time code as a QR
    code, for the other device's camera.  The code goes in the body, so no address (and no
    access log) carries it; the answer encodes the link only (whether the code is good is
    for the claim to say)."""
    spec = await http.body_of(request, protocol.ClaimProfile)
    if isinstance(spec, Response):
        return spec
    if not CLAIM_CODE.fullmatch(spec.code):
        return http.error(400, "bad_code", "a one-time code is 4 to 32 letters, digits, - or _")
    return http.qr_svg(claim_link(request, spec.code), "Ligretto profile link")
