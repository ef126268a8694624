"""The terminal client's profile against a real ``ligretto serve`` with its SQLite file and a
temporary state directory: made on the first ``ligretto join`` to a server, the same one on
the next, sent in every ``hello`` (the server files the match under it), a deleted one
forgotten and made again; a server without profiles joined without one, saying so; the
state file holds ``{id, secret}`` per server only and is readable by its owner only."""

from __future__ import annotations

import asyncio
import http.server
import json
import stat
import threading
import urllib.request
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from ligretto import protocol
from ligretto.terminal.profiles import ProfileApi, ProfileFile, ProfileKeeper
from ligretto.terminal.remote import RemoteTable, SeatTokens
from ligretto.terminal.serverapi import Refused, base_url
from realserver import ServerProcess

Arun = Callable[[Coroutine[Any, Any, Any]], Any]


def test_base_addresses_key_the_profiles() -> None:
    assert base_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000"
    assert base_url("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert base_url("ws://127.0.0.1:8000/ws") == "http://127.0.0.1:8000"
    assert base_url("wss://ligretto.example/ws") == "https://ligretto.example"
    with pytest.raises(ValueError, match="bad server address"):
        base_url("127.0.0.1:8000")


def kept_file(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "ligretto" / "profiles.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_made_on_the_first_join_and_the_same_on_the_next(server: ServerProcess, tmp_path: Path) -> None:
    file = ProfileFile(tmp_path / "ligretto" / "profiles.json")
    secret, note = ProfileKeeper(server.url, file).for_join("Tess", "moon")
    assert secret is not None and note == "a new profile Tess"
    (entry,) = kept_file(tmp_path).values()
    assert set(entry) == {"id", "secret"} and entry["secret"] == secret
    assert list(kept_file(tmp_path)) == [server.url]
    status, me = server.http("GET", f"/api/profiles/{entry['id']}/matches")
    assert status == 200 and me["total"] == 0  # a live profile of the server

    again, note = ProfileKeeper(server.url + "/", file).for_join("Tess", "star")
    assert (again, note) == (secret, "profile Tess")  # the same profile: checked, not made again
    assert kept_file(tmp_path) == {server.url: entry}


def test_a_join_under_another_name_renames_the_kept_profile(server: ServerProcess, tmp_path: Path) -> None:
    """``--name`` is the name the seat shows: a kept profile with another name is renamed
    to it (its back symbol stays), and the line says so; the next join with that name
    changes nothing."""
    file = ProfileFile(tmp_path / "ligretto" / "profiles.json")
    keeper = ProfileKeeper(server.url, file)
    secret, _ = keeper.for_join("Tess", "moon")
    assert secret is not None
    (entry,) = kept_file(tmp_path).values()
    again, note = ProfileKeeper(server.url + "/", file).for_join("Tessa B.", "star")
    assert (again, note) == (secret, "profile Tessa B., renamed from Tess")
    assert kept_file(tmp_path) == {server.url: entry}  # the same profile, not a new one
    me = keeper.api.me(secret)
    assert (me.id, me.name, me.symbol) == (entry["id"], "Tessa B.", "moon")
    assert keeper.for_join("Tessa B.") == (secret, "profile Tessa B.")


def test_a_rename_the_server_refuses_keeps_the_profile_as_it_was(server: ServerProcess, tmp_path: Path) -> None:
    file = ProfileFile(tmp_path / "profiles.json")
    secret, _ = ProfileKeeper(server.url, file).for_join("Tess")

    class Refusing(ProfileApi):
        def update(self, secret: str, name: str | None, symbol: str | None) -> protocol.ProfileMsg:
            raise Refused(400, "bad_name", "this name is not allowed here")

    keeper = ProfileKeeper(server.url, file, Refusing(base_url(server.url)))
    assert keeper.for_join("Tessa") == (secret, "profile Tess, not renamed: this name is not allowed here")
    assert secret is not None and keeper.api.me(secret).name == "Tess"
    assert file.get(server.url) is not None


def test_a_profile_the_server_no_longer_knows_is_made_again(server: ServerProcess, tmp_path: Path) -> None:
    file = ProfileFile(tmp_path / "ligretto" / "profiles.json")
    keeper = ProfileKeeper(server.url, file)
    secret, _ = keeper.for_join("Tess")
    old = file.get(keeper.server)
    assert old is not None and secret is not None
    keeper.api.delete(secret)  # deleted on another device
    fresh, note = keeper.for_join("Tess")
    new = file.get(keeper.server)
    assert fresh is not None and new is not None and fresh == new.secret
    assert new.id != old.id and note == "a new profile (the old one is gone) Tess"
    assert keeper.api.me(fresh).symbol == "sun"  # the default back symbol


class _NoProfiles(http.server.BaseHTTPRequestHandler):
    """A server without a store (503 ``no_store``) or, at ``/bare``, without the API at all."""

    def do_POST(self) -> None:
        if self.server.bare:  # type: ignore[attr-defined]
            body, kind, status = b"Not Found", "text/plain", 404
        else:
            body = json.dumps({"error": "no_store", "message": "this server keeps no profiles"}).encode()
            kind, status = "application/json", 503
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(params=[False, True], ids=["no_store", "no_api"])
def no_profiles(request: pytest.FixtureRequest) -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NoProfiles)
    httpd.bare = request.param  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_server_without_profiles_is_joined_without_one(no_profiles: str, tmp_path: Path) -> None:
    file = ProfileFile(tmp_path / "profiles.json")
    secret, note = ProfileKeeper(no_profiles, file).for_join("Tess")
    assert secret is None
    assert note.startswith("without a profile: ") and ("keeps no profiles" in note or "no profile API" in note)
    assert "\n" not in note and not file.path.exists()


def test_an_unreachable_server_is_joined_without_a_profile(tmp_path: Path) -> None:
    secret, note = ProfileKeeper("http://127.0.0.1:1", ProfileFile(tmp_path / "profiles.json")).for_join("Tess")
    assert secret is None and note.startswith("without a profile: cannot reach http://127.0.0.1:1")


async def _until(condition: Callable[[], bool], what: str, seen: list[dict[str, Any]]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}; delivered: {seen[-4:]}")


def test_the_profile_goes_in_every_hello_and_the_match_is_filed_under_it(
    server: ServerProcess, tmp_path: Path, arun: Arun
) -> None:
    """The join makes the profile, its hello carries it (the seat is linked: the match the
    table starts is in the profile's history, with this seat), and the hello after a
    dropped connection carries it again."""
    code = server.create_table(2, options={"match_end": "rounds:1"})
    file = ProfileFile(tmp_path / "ligretto" / "profiles.json")
    remote = RemoteTable(
        server.url, code, "Tess", tokens=SeatTokens(tmp_path / "seats.json"), profiles=ProfileKeeper(server.url, file)
    )
    seen: list[dict[str, Any]] = []

    async def scenario() -> None:
        remote.start(seen.append)
        await _until(lambda: any(m["type"] == "welcome" for m in seen), "the welcome", seen)
        assert remote._hello()["profile"] == remote.session.profile is not None
        (connected,) = [m for m in seen if m["type"] == "connection"]
        assert connected["message"].endswith(": seat 1 (a new profile Tess)")
        assert remote.session.profile not in connected["message"]  # the secret is never shown
        remote.send({"type": "add_bot", "strategy": "smart", "level": "beginner"})
        remote.send({"type": "start"})
        await _until(lambda: any(m["type"] == "snapshot" for m in seen), "the deal", seen)
        assert remote.ws is not None
        remote.ws.transport.abort()
        await _until(lambda: remote.connects == 2 and remote.welcomed, "the reconnection", seen)
        assert remote._hello() == {
            "type": "hello",
            "v": 1,
            "code": code,
            "profile": remote.session.profile,
            "token": remote.session.token,
        }
        await remote.close()

    arun(scenario())
    kept = file.get(server.url)
    assert kept is not None and kept.secret == remote.session.profile
    request = urllib.request.Request(f"{server.url}/api/profiles/{kept.id}/matches")
    request.add_header("Authorization", f"Bearer {kept.secret}")  # its owner sees a private table's code
    with urllib.request.urlopen(request, timeout=10) as response:
        status, page = response.status, json.loads(response.read())
    assert status == 200 and page["total"] == 1
    (match,) = page["matches"]
    assert match["code"] == code
    assert match["players"][0] == {"seat": 0, "name": "Tess", "profile": kept.id, "bot": None}


def test_a_profile_deleted_before_the_hello_is_forgotten_and_the_seat_taken(
    server: ServerProcess, tmp_path: Path, arun: Arun
) -> None:
    """Deleted on another device between the check and the hello: the hello is refused
    ``bad_profile``, the profile forgotten, and the seat taken without one."""
    code = server.create_table(2)
    file = ProfileFile(tmp_path / "profiles.json")
    secret, _ = ProfileKeeper(server.url, file).for_join("Tess")
    assert secret is not None and file.get(server.url) is not None

    class DeletedMeanwhile(ProfileKeeper):
        def for_join(self, name: str, symbol: str = "sun") -> tuple[str | None, str]:
            found = super().for_join(name, symbol)
            self.api.delete(secret)
            return found

    keeper = DeletedMeanwhile(server.url, file)
    remote = RemoteTable(server.url, code, "Tess", tokens=SeatTokens(tmp_path / "seats.json"), profiles=keeper)
    seen: list[dict[str, Any]] = []

    async def scenario() -> None:
        remote.start(seen.append)
        await _until(lambda: any(m["type"] == "welcome" for m in seen), "the welcome", seen)
        assert remote.session.profile is None and file.get(server.url) is None
        (connected,) = [m for m in seen if m["type"] == "connection"]
        assert connected["message"].endswith("seat 1 (without a profile: the server no longer knows it)")
        assert all(m["type"] != "error" for m in seen)  # handled by the client, not shown as an error
        await remote.close()

    arun(scenario())


def test_a_profile_seated_on_another_device_watches(server: ServerProcess, tmp_path: Path, arun: Arun) -> None:
    """The same profile at the same table from a second terminal: the hello is refused
    ``profile_seated`` and the second terminal watches instead (with the profile)."""
    code = server.create_table(3)
    file = ProfileFile(tmp_path / "profiles.json")

    def terminal(folder: str) -> RemoteTable:
        tokens = SeatTokens(tmp_path / folder / "seats.json")
        return RemoteTable(server.url, code, "Tess", tokens=tokens, profiles=ProfileKeeper(server.url, file))

    first, second = terminal("a"), terminal("b")
    seen: list[dict[str, Any]] = []
    watching: list[dict[str, Any]] = []

    async def scenario() -> None:
        first.start(seen.append)
        await _until(lambda: any(m["type"] == "welcome" for m in seen), "the first welcome", seen)
        second.start(watching.append)
        await _until(lambda: any(m["type"] == "welcome" for m in watching), "the second welcome", watching)
        (welcome,) = [m for m in watching if m["type"] == "welcome"]
        assert (
            welcome["seat"] is None
            and second.session.watch
            and second.session.profile == first.session.profile is not None
        )
        assert [m["state"] for m in watching if m["type"] == "connection"] == ["watching", "connected"]
        await first.close()
        await second.close()

    arun(scenario())
    status, details = server.http("GET", f"/api/tables/{code}")
    assert status == 200 and [p["name"] for p in details["players"] if p is not None] == ["Tess"]


def test_the_seat_and_the_profile_take_the_joining_name(server: ServerProcess, tmp_path: Path, arun: Arun) -> None:
    """A terminal whose profile is Tess joins with ``--name Tessa``: the connected line
    says the profile was renamed, the seat shows Tessa and so does the profile."""
    code = server.create_table(2)
    file = ProfileFile(tmp_path / "profiles.json")
    secret, _ = ProfileKeeper(server.url, file).for_join("Tess")
    kept = file.get(server.url)
    assert secret is not None and kept is not None
    remote = RemoteTable(
        server.url, code, "Tessa", tokens=SeatTokens(tmp_path / "seats.json"), profiles=ProfileKeeper(server.url, file)
    )
    seen: list[dict[str, Any]] = []

    async def scenario() -> None:
        remote.start(seen.append)
        await _until(lambda: any(m["type"] == "welcome" for m in seen), "the welcome", seen)
        assert remote.session.profile == secret
        (connected,) = [m for m in seen if m["type"] == "connection"]
        assert connected["message"].endswith(": seat 1 (profile Tessa, renamed from Tess)")
        await remote.close()

    arun(scenario())
    status, details = server.http("GET", f"/api/tables/{code}")
    assert status == 200 and [p["name"] for p in details["players"] if p is not None] == ["Tessa"]
    assert ProfileKeeper(server.url, file).api.me(secret).name == "Tessa"
    assert file.get(server.url) == kept
