"""``ligretto profile URL``: the terminal's profile on a server (docs/clients.md, Terminal
client, Profiles) — shown, renamed, its back symbol changed, a one-time code to put it on
another device, a code from another device claimed, deleted.

Every argument is checked before any request, so bad input changes nothing; every
refusal is one line (``ligretto profile: error: ...``, exit code 2; a server that does not
answer: ``ligretto profile: ...``, exit code 1).  The secret is never printed.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from ligretto import protocol
from ligretto.protocol import ProtocolError, check_name
from ligretto.terminal.profiles import SYMBOLS, Kept, ProfileApi, ProfileFile, ProfileKeeper
from ligretto.terminal.serverapi import Refused, base_url

CODE = re.compile(r"[A-Za-z0-9_-]{4,32}")
"""What a one-time code looks like (the server's ``claim/qr.svg`` draws the same)."""


class ProfileCommandError(ValueError):
    """A refusal of ``ligretto profile``, said in one line."""


@dataclass(frozen=True, slots=True)
class Request:
    """What ``ligretto profile`` was asked to do (its options)."""

    url: str
    rename: str | None = None
    symbol: str | None = None
    link: bool = False
    claim: str | None = None
    delete: bool = False
    yes: bool = False


def _checked(request: Request) -> Request:
    """The request with its name trimmed, else :class:`ProfileCommandError` (before any request)."""
    changes = request.rename is not None or request.symbol is not None
    if sum((changes, request.link, request.claim is not None, request.delete)) > 1:
        raise ProfileCommandError("--link, --claim and --delete go alone (--rename and --symbol may go together)")
    if request.yes and not request.delete:
        raise ProfileCommandError("--yes only confirms --delete")
    name = request.rename
    if name is not None:
        try:
            name = check_name(name)
        except ProtocolError as error:
            raise ProfileCommandError(f"--rename: {error.message}") from None
    if request.symbol is not None and request.symbol not in SYMBOLS:
        raise ProfileCommandError(f"--symbol: a back symbol is one of {', '.join(SYMBOLS)}, not {request.symbol!r}")
    claim = request.claim
    if claim is not None:
        claim = claim.strip().rsplit("/claim/", 1)[-1]  # a pasted claim link gives its code
        if not CODE.fullmatch(claim):
            raise ProfileCommandError(f"--claim: {request.claim!r} is no one-time code (4-32 letters, digits, - or _)")
    return Request(request.url, name, request.symbol, request.link, claim, request.delete, request.yes)


class ProfileCommand:
    """One run of ``ligretto profile``: the kept file, the server's API, where it prints,
    how it asks (``ask``: the confirmation of ``--delete``) and the clock (the code's expiry)."""

    def __init__(
        self,
        url: str,
        *,
        file: ProfileFile | None = None,
        api: ProfileApi | None = None,
        out: TextIO | None = None,
        ask: Callable[[str], str] = input,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.server = base_url(url)
        self.file = file or ProfileFile()
        self.api = api or ProfileApi(self.server)
        self.keeper = ProfileKeeper(url, self.file, self.api)
        self.out = out or sys.stdout
        self.ask = ask
        self.clock = clock

    def say(self, line: str) -> None:
        print(line, file=self.out)

    def run(self, request: Request) -> None:
        if request.claim is not None:
            self._claim(request.claim)
            return
        kept = self.file.get(self.server)
        if kept is None:
            raise ProfileCommandError(
                f"no profile kept for {self.server}: `ligretto join` makes one, `--claim CODE` takes one"
            )
        try:
            if request.delete:
                self._delete(kept, request.yes)
            elif request.link:
                self._link(kept)
            elif request.rename is not None or request.symbol is not None:
                self._show(self.keeper.change(kept.secret, request.rename, request.symbol))
            else:
                self._show(self.api.me(kept.secret))
        except Refused as error:
            if error.code == "bad_profile":
                self.file.put(self.server, None)
                raise ProfileCommandError(
                    f"{self.server} no longer knows this profile (deleted?): forgotten here"
                ) from None
            raise

    def _show(self, profile: protocol.ProfileMsg) -> None:
        self.say(f"profile {profile.name} (back symbol {profile.symbol}) on {self.server}")
        self.say(f"id: {profile.id}")
        self.say(f"history: {self.server}/#/history/{profile.id}")

    def _link(self, kept: Kept) -> None:
        link = self.api.link(kept.secret)
        until = time.strftime("%H:%M:%S %Z", time.localtime(self.clock() + link.expires_s))
        self.say(f"one-time code: {link.code} (one use, valid {link.expires_s / 60:g} minutes, until {until})")
        self.say(f"claim link: {self.server}/#/claim/{link.code}")
        self.say(f"in another terminal: ligretto profile {self.server} --claim {link.code}")

    def _claim(self, code: str) -> None:
        claimed = self.api.claim(code)
        before = self.file.get(self.server)
        self.file.put(self.server, Kept(claimed.id, claimed.secret))
        if before is not None and before.id != claimed.id:
            self.say(f"this terminal's profile {before.id} on {self.server} is forgotten here (not deleted)")
        self._show(protocol.ProfileMsg(claimed.id, claimed.name, claimed.symbol))

    def _delete(self, kept: Kept, yes: bool) -> None:
        profile = self.api.me(kept.secret)
        if not yes:
            question = (
                f"Delete profile {profile.name} ({profile.id}) on {self.server} for good? It leaves the "
                "leaderboards and its past matches show 'Deleted player'. [y/N] "
            )
            try:
                answer = self.ask(question)
            except EOFError:
                answer = ""
            if answer.strip().lower() not in ("y", "yes"):
                self.say("kept: nothing deleted")
                return
        self.api.delete(kept.secret)
        self.file.put(self.server, None)
        self.say(f"deleted profile {profile.name} ({profile.id}) on {self.server}")


def run(request: Request, make: Callable[[str], ProfileCommand] = ProfileCommand) -> None:
    """``ligretto profile``: done, or refused with nothing changed, by what was asked
    (:class:`ProfileCommandError`, ``UrlError``, the server's ``Refused``: exit code 2) or
    by a server that cannot answer (``Unavailable``: exit code 1)."""
    request = _checked(request)
    make(request.url).run(request)
