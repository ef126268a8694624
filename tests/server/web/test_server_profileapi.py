"""The profiles' HTTP API and ``hello.profile`` against a real server process: made,
read, renamed, moved to a second device by a one-time code (once only), sat down with
(the seat keeps the profile's id in the store, nobody is shown it), deleted."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from typing import Any

import pytest

Answer = tuple[int, Any]

pytestmark = pytest.mark.shared_server  # one real server for the module's tests


def call(server: Any, method: str, path: str, body: Any = None, secret: str | None = None) -> Answer:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if secret is not None:
        request.add_header("Authorization", f"Bearer {secret}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            raw, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        raw, status = error.read(), error.code
    return status, json.loads(raw) if raw else None


def test_a_profile_is_made_read_renamed_moved_and_deleted(server: Any) -> None:
    status, made = call(server, "POST", "/api/profiles", {"name": "Ann", "symbol": "star"})
    assert status == 201 and set(made) == {"id", "secret", "name", "symbol"}
    secret = made["secret"]
    assert call(server, "GET", "/api/profiles/me", secret=secret) == (
        200,
        {"id": made["id"], "name": "Ann", "symbol": "star"},
    )
    assert call(server, "GET", "/api/profiles/me")[1]["error"] == "bad_profile"
    assert call(server, "GET", "/api/profiles/me", secret="wrong")[0] == 401
    status, renamed = call(server, "PATCH", "/api/profiles/me", {"name": "Annie"}, secret=secret)
    assert (status, renamed["name"], renamed["symbol"]) == (200, "Annie", "star")
    status, bad = call(server, "PATCH", "/api/profiles/me", {"symbol": "skull"}, secret=secret)
    assert (status, bad["error"]) == (400, "bad_symbol")
    assert call(server, "POST", "/api/profiles", {"name": "", "symbol": "sun"})[1]["error"] == "bad_name"

    status, link = call(server, "POST", "/api/profiles/me/link", secret=secret)
    assert status == 201 and link["expires_s"] > 0
    status, claimed = call(server, "POST", "/api/profiles/claim", {"code": link["code"]})
    assert status == 200 and claimed["id"] == made["id"] and claimed["name"] == "Annie"
    assert claimed["secret"] != secret
    assert call(server, "GET", "/api/profiles/me", secret=claimed["secret"])[1]["id"] == made["id"]
    status, again = call(server, "POST", "/api/profiles/claim", {"code": link["code"]})
    assert (status, again["error"]) == (410, "used_code")

    assert call(server, "DELETE", "/api/profiles/me", secret=secret) == (204, None)
    assert call(server, "GET", "/api/profiles/me", secret=secret)[0] == 401
    assert call(server, "GET", "/api/profiles/me", secret=claimed["secret"])[0] == 401


def test_a_real_server_gives_each_address_a_profile_quota_of_its_own(server_with: Any) -> None:
    server = server_with(tables_per_minute=2)
    for name in ("Ann", "Bob"):
        assert call(server, "POST", "/api/profiles", {"name": name, "symbol": "sun"})[0] == 201
    assert call(server, "POST", "/api/profiles", {"name": "", "symbol": "sun"})[1]["error"] == "bad_name"
    status, body = call(server, "POST", "/api/profiles", {"name": "Carl", "symbol": "sun"})
    assert (status, body["error"]) == (429, "too_many_profiles")
    assert body["message"].startswith("at most 2 profiles a minute from one address")
    server.create_table(2)  # the tables' quota is another


def test_hello_with_a_profile_links_the_seat_and_shows_nobody_the_profile(server: Any, arun: Any) -> None:
    _, made = call(server, "POST", "/api/profiles", {"name": "Ann", "symbol": "moon"})
    code = server.create_table(2)

    async def play() -> None:
        ann = server.client("Ann")
        await ann.connect()
        welcome = await ann.hello(code, profile=made["secret"])
        assert welcome["type"] == "welcome"
        twin = server.client("Ann-twin")
        await twin.connect()
        seated = await twin.hello(code, profile=made["secret"])
        assert (seated["type"], seated["code"]) == ("error", "profile_seated")
        await twin.close()
        bob = server.client("Bob")
        await bob.connect()
        refused = await bob.hello(code, "Bob", profile="not-a-secret")
        assert (refused["type"], refused["code"]) == ("error", "bad_profile")
        assert (await bob.hello(code, "Bob"))["type"] == "welcome"
        table = await bob.wait_for("table")
        names = [None if p is None else p["name"] for p in table["seats"]]
        assert names == ["Ann", "Bob"]
        await bob.barrier()
        for raw in ann.raw + bob.raw:
            assert made["id"] not in raw and made["secret"] not in raw
        await ann.close()
        await bob.close()

    arun(play())
    db = sqlite3.connect(server.db)
    try:
        (config,) = db.execute("SELECT config FROM tables WHERE code = ?", (code,)).fetchone()
    finally:
        db.close()
    seats = json.loads(config)["seats"]
    assert [seat["profile"] for seat in seats] == [made["id"], None]
    assert made["secret"] not in config
