"""The terminal client's profile on each server (docs/clients.md, Terminal client, Profiles).

A profile is kept per server in ``$XDG_STATE_HOME/ligretto/profiles.json`` (mode 0600),
keyed by the server's base address, as ``{id, secret}`` and nothing else: the name and the
back symbol are the server's to say.  :class:`ProfileApi` speaks the server's profile API
(docs/protocol.md, "Profiles, history and ratings") over plain HTTP; :class:`ProfileKeeper`
is one server's profile as ``ligretto join`` needs it: checked, made on the first join,
renamed to the joining name, forgotten and made again when the server no longer knows it.  The secret goes only to the
server (the ``Authorization`` header, ``hello.profile``), never to the screen.
"""

from __future__ import annotations

import urllib.error
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ligretto import protocol
from ligretto.engine.cards import Symbol
from ligretto.terminal.serverapi import Refused, ServerApi, Unavailable, base_url
from ligretto.terminal.statefiles import read_json, state_dir, write_private

SYMBOLS = tuple(symbol.name.lower() for symbol in Symbol)
"""The back symbols a profile may have (the decks' backs): sun, moon, star, heart."""
DEFAULT_SYMBOL = SYMBOLS[0]
"""The back symbol of a profile made without ``--symbol``."""


@dataclass(frozen=True, slots=True)
class Kept:
    """What the state file keeps of one server's profile."""

    id: str
    secret: str


class ProfileFile:
    """Profiles by server base address, in a JSON file only its owner may read."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_dir() / "profiles.json"

    def get(self, server: str) -> Kept | None:
        entry = read_json(self.path).get(server)
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and isinstance(entry.get("secret"), str):
            return Kept(entry["id"], entry["secret"])
        return None

    def put(self, server: str, kept: Kept | None) -> None:
        """Keep ``kept`` for ``server`` (``None`` forgets it)."""
        data = read_json(self.path)
        if kept is None:
            data.pop(server, None)
        else:
            data[server] = {"id": kept.id, "secret": kept.secret}
        write_private(self.path, data)


class ProfileApi(ServerApi):
    """The profile API of one server (``base``: its base address), one blocking request each."""

    API = "profile API"

    def _refusal(self, error: urllib.error.HTTPError) -> Exception:
        refusal = super()._refusal(error)
        if isinstance(refusal, Refused) and refusal.code == "no_store":
            return Unavailable(f"{self.base} keeps no profiles (it runs without a database)")
        return refusal

    def _secret(self, answer: Any) -> protocol.ProfileSecret:
        return self._read(answer, protocol.ProfileSecret)

    def _profile(self, answer: Any) -> protocol.ProfileMsg:
        return self._read(answer, protocol.ProfileMsg)

    def create(self, name: str, symbol: str) -> protocol.ProfileSecret:
        return self._secret(self._call("POST", "/api/profiles", body={"name": name, "symbol": symbol}))

    def me(self, secret: str) -> protocol.ProfileMsg:
        return self._profile(self._call("GET", "/api/profiles/me", secret=secret))

    def update(self, secret: str, name: str | None, symbol: str | None) -> protocol.ProfileMsg:
        body = {key: value for key, value in (("name", name), ("symbol", symbol)) if value is not None}
        return self._profile(self._call("PATCH", "/api/profiles/me", secret=secret, body=body))

    def delete(self, secret: str) -> None:
        self._call("DELETE", "/api/profiles/me", secret=secret)

    def link(self, secret: str) -> protocol.ProfileLink:
        return self._read(self._call("POST", "/api/profiles/me/link", secret=secret), protocol.ProfileLink)

    def claim(self, code: str) -> protocol.ProfileSecret:
        return self._secret(self._call("POST", "/api/profiles/claim", body={"code": code}))


class ProfileKeeper:
    """One server's profile for ``ligretto join``: the kept one checked, or one made."""

    def __init__(self, url: str, file: ProfileFile | None = None, api: ProfileApi | None = None) -> None:
        self.server = base_url(url)
        self.file = file or ProfileFile()
        self.api = api or ProfileApi(self.server)

    def change(self, secret: str, name: str | None, symbol: str | None = None) -> protocol.ProfileMsg:
        """The profile renamed and/or given another back symbol (``PATCH /api/profiles/me``):
        the one way both ``ligretto profile --rename`` and ``ligretto join --name`` change it."""
        return self.api.update(secret, name, symbol)

    def _named(self, secret: str, name: str) -> str:
        """The line of a kept profile, renamed to ``name`` first if its name differs (the
        seat's name is the profile's); a rename the server refuses leaves it as it was."""
        profile = self.api.me(secret)
        if profile.name == name:
            return f"profile {name}"
        try:
            renamed = self.change(secret, name)
        except Refused as error:
            if error.code == "bad_profile":
                raise
            return f"profile {profile.name}, not renamed: {error.message}"
        return f"profile {renamed.name}, renamed from {profile.name}"

    def for_join(self, name: str, symbol: str = DEFAULT_SYMBOL) -> tuple[str | None, str]:
        """The secret to send in ``hello`` (``None``: join without a profile) and one line
        saying which profile it is, or why there is none.  A kept profile whose name is not
        ``name`` is renamed to it; one the server no longer knows (401 ``bad_profile``) is
        forgotten and a new one made."""
        try:
            kept = self.file.get(self.server)
            if kept is not None:
                try:
                    return kept.secret, self._named(kept.secret, name)
                except Refused as error:
                    if error.code != "bad_profile":
                        raise
                    self.file.put(self.server, None)
            made = self.api.create(name, symbol)
        except Unavailable as error:
            return None, f"without a profile: {error}"
        except Refused as error:
            return None, f"without a profile: {error.message}"
        self.file.put(self.server, Kept(made.id, made.secret))
        again = "a new profile (the old one is gone)" if kept is not None else "a new profile"
        return made.secret, f"{again} {made.name}"

    def forget(self, secret: str) -> None:
        """Forget the kept profile if its secret is ``secret`` (a ``hello`` refused it)."""
        kept = self.file.get(self.server)
        if kept is not None and kept.secret == secret:
            self.file.put(self.server, None)
