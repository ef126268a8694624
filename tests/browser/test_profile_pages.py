"""The player's profile in the browser (docs/clients.md, "Profiles"), against a real server:
made on the first visit and kept (its secret never on screen), sent in every ``hello``,
moved to a second browser context by a one-time code (the same id there), renamed (the
new name in another player's seat list), deleted (forgotten, and refused by the server),
a used or unknown code refused in the player's language, a profile the server no longer
knows replaced by a new one."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

STATIC = Path(__file__).resolve().parents[2] / "src" / "ligretto" / "server" / "static"
KEPT = "() => JSON.parse(localStorage.getItem('ligretto.profile'))"


def words(lang: str, key: str) -> str:
    text: str = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))[key]
    return text


def kept(page: Page) -> dict[str, str] | None:
    profile: dict[str, str] | None = page.evaluate(KEPT)
    return profile


def me(server: Any, secret: str) -> tuple[int, dict[str, Any]]:
    """``GET /api/profiles/me`` as the server answers it: (status, body)."""
    request = urllib.request.Request(server.url + "/api/profiles/me", headers={"Authorization": f"Bearer {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def open_profile(page: Page) -> None:
    page.click("#nav-profile")
    page.wait_for_selector("#profile-name")


def one_time_code(page: Page) -> str:
    """On the profile page: ask for a code; the code shown, its link checked."""
    page.click("#link-button")
    code = page.locator("#link-code").inner_text().strip()
    expect(page.locator("#link-url")).to_have_attribute("href", f"{page.url.split('#')[0]}#/claim/{code}")
    return code


def claim(pages: Any, code: str, *, locale: str = "en-US") -> Page:
    """A fresh browser context opening the claim link of ``code``."""
    page = pages.open(f"/#/claim/{code}", locale=locale)
    page.wait_for_selector("#profile-name, #claim-error")
    return page


def test_a_profile_is_made_on_the_first_visit_kept_and_its_secret_never_shown(pages: Any, server: Any) -> None:
    page = pages.open("/")
    profile = kept(page)
    assert profile and profile["id"] and profile["secret"]
    status, body = me(server, profile["secret"])
    assert status == 200 and body["id"] == profile["id"]
    assert body["symbol"] in ("sun", "moon", "star", "heart")

    page.reload()
    page.wait_for_selector("body[data-ready]")
    assert kept(page) == profile, "a reload made a second profile"
    open_profile(page)
    one_time_code(page)
    html: str = page.content()
    assert profile["secret"] not in html and profile["secret"] not in page.url


def test_every_hello_carries_the_profile(pages: Any) -> None:
    context: BrowserContext = pages.context()
    page = context.new_page()
    hellos: list[dict[str, Any]] = []

    def watch(socket: Any) -> None:
        def sent(frame: Any) -> None:
            message = json.loads(frame)
            if message.get("type") == "hello":
                hellos.append(message)

        socket.on("framesent", sent)

    page.on("websocket", watch)
    page.goto(pages.server.url + "/")
    page.wait_for_selector("body[data-ready]")
    page.fill("#player-name", "Hedda")
    page.click("#create-button")
    page.wait_for_selector("#seats .seat")
    profile = kept(page)
    assert profile is not None
    assert hellos and all(hello.get("profile") == profile["secret"] for hello in hellos), hellos
    # The name typed in the lobby is the profile's name now.
    open_profile(page)
    expect(page.locator("#profile-name")).to_have_value("Hedda")


def test_a_one_time_code_moves_the_profile_to_a_second_context(pages: Any, server: Any) -> None:
    first = pages.open("/")
    open_profile(first)
    first.fill("#profile-name", "Traveller")
    first.click("#profile-rename")
    expect(first.locator(".toast")).to_contain_text("Traveller")
    code = one_time_code(first)
    expect(first.locator("#link-expiry")).to_contain_text("Valid for")
    first.wait_for_function("() => document.querySelector('#link-qr')?.naturalWidth > 0")
    assert first.get_attribute("#link-qr", "alt") == words("en", "profile.device.qr.alt")
    assert code not in (first.get_attribute("#link-qr", "src") or ""), "the code in an address"

    second = claim(pages, code)
    expect(second.locator(".toast")).to_contain_text(words("en", "claim.done").format(name="Traveller"))
    expect(second.locator("#profile-name")).to_have_value("Traveller")
    moved = kept(second)
    assert moved is not None and moved["id"] == kept(first)["id"]  # type: ignore[index]
    status, body = me(server, moved["secret"])
    assert status == 200 and body["name"] == "Traveller"
    assert moved["secret"] != kept(first)["secret"], "each device has a secret of its own"  # type: ignore[index]
    assert "/claim/" not in second.url, "a reload would claim the used code again"
    second.click("#nav-lobby")
    expect(second.locator("#player-name")).to_have_value("Traveller")


def test_a_used_or_unknown_code_is_refused_in_the_players_language(pages: Any) -> None:
    owner = pages.open("/")
    open_profile(owner)
    code = one_time_code(owner)
    claim(pages, code)

    again = claim(pages, code, locale="de-DE")
    error = again.locator("#claim-error")
    refused = error.get_attribute("data-code")
    assert refused, "the refusal names no error code"
    expect(error).to_contain_text(words("de", f"error.{refused}"))
    before = kept(again)

    unknown = claim(pages, "ZZZZZZZZ", locale="fr-FR")
    assert unknown.locator("#claim-error").get_attribute("data-code")
    assert kept(again) == before, "a refused claim changed the kept profile"


def test_a_renamed_profile_shows_its_new_name_in_another_players_seat_list(pages: Any) -> None:
    host = pages.open("/")
    open_profile(host)
    host.fill("#profile-name", "Renamed Rita")
    host.click("#profile-rename")
    expect(host.locator(".toast")).to_contain_text("Renamed Rita")
    host.click("#nav-lobby")
    expect(host.locator("#player-name")).to_have_value("Renamed Rita")
    host.click("#create-button")
    host.wait_for_selector("#seats .seat")
    code = host.url.rsplit("/", 1)[1]

    guest = pages.open(f"/#/t/{code}")
    guest.fill("#prompt-name", "Guest")
    guest.locator("#prompt-name").press("Enter")
    expect(guest.locator("#seats .seat-name")).to_contain_text(["Renamed Rita", "Guest"])


def test_a_deleted_profile_is_forgotten_and_refused_by_the_server(pages: Any, server: Any) -> None:
    page = pages.open("/")
    profile = kept(page)
    assert profile is not None
    open_profile(page)
    page.click("#delete-button")
    expect(page.locator("#delete-dialog")).to_contain_text(words("en", "profile.delete.help"))
    page.click("#delete-cancel")
    assert kept(page) == profile and me(server, profile["secret"])[0] == 200, "cancel deleted it"

    page.click("#delete-button")
    page.click("#delete-confirm")
    expect(page.locator("#no-profile")).to_contain_text(words("en", "profile.deleted"))
    assert kept(page) is None
    assert me(server, profile["secret"])[0] in (401, 404, 410)


def test_a_profile_the_server_does_not_know_is_replaced_by_a_new_one(pages: Any, server: Any) -> None:
    context: BrowserContext = pages.context()
    stale = {"id": "gone", "secret": "not-a-secret-the-server-made"}
    context.add_init_script(f"localStorage.setItem('ligretto.profile', {json.dumps(json.dumps(stale))})")
    page = pages.open("/", context=context)
    fresh = kept(page)
    assert fresh is not None and fresh["secret"] != stale["secret"]
    assert me(server, fresh["secret"])[0] == 200


def test_the_code_counts_down_and_says_when_it_expired(pages: Any) -> None:
    context: BrowserContext = pages.context()
    page = context.new_page()
    page.clock.install()
    page.goto(pages.server.url + "/#/profile")
    page.wait_for_selector("#profile-name")
    page.click("#link-button")
    expect(page.locator("#link-expiry")).to_contain_text("Valid for")
    shown = page.locator("#link-expiry").inner_text()
    page.clock.run_for(2000)
    assert page.locator("#link-expiry").inner_text() != shown, "the countdown stood still"
    page.clock.run_for(60 * 60 * 1000)
    expect(page.locator("#link-expiry")).to_have_text(words("en", "profile.device.expired"))


def test_codes_and_countdowns_as_the_page_reads_and_writes_them(pages: Any) -> None:
    page = pages.open("/")
    found = page.evaluate(
        """async () => {
          const p = await import('/js/profile.js');
          return [
            p.claimCodeFrom('  AB12CD '), p.claimCodeFrom('https://x.org/#/claim/AB12CD'),
            p.claimCodeFrom('a-B_12cD'), p.claimCodeFrom('no!'),
            p.countdown(300), p.countdown(65.2), p.countdown(0.4), p.countdown(-3),
            p.anySymbol(() => 0), p.anySymbol(() => 0.99),
          ];
        }"""
    )
    assert found == ["AB12CD", "AB12CD", "a-B_12cD", "", "5:00", "1:06", "0:01", "0:00", "sun", "heart"]


def test_a_profile_deleted_on_another_device_is_replaced_when_the_page_next_says_hello(pages: Any, server: Any) -> None:
    first = pages.open("/")
    open_profile(first)
    first.fill("#profile-name", "Twin")
    first.click("#profile-rename")
    expect(first.locator(".toast")).to_contain_text("Twin")
    second = claim(pages, one_time_code(first))
    old = kept(first)
    assert old is not None and kept(second)["id"] == old["id"]  # type: ignore[index]
    second.click("#delete-button")
    second.click("#delete-confirm")
    expect(second.locator("#no-profile")).to_be_visible()

    # The first page, never reloaded, sits down under the same name: its hello's secret is
    # refused (bad_profile), so it makes a new profile and says hello again with it.
    first.click("#nav-lobby")
    expect(first.locator("#player-name")).to_have_value("Twin")
    first.click("#create-button")
    expect(first.locator("#seats .seat-name")).to_have_text(["Twin"])
    fresh = kept(first)
    assert fresh is not None and fresh["id"] != old["id"]
    status, body = me(server, fresh["secret"])
    assert status == 200 and body["name"] == "Twin"


def test_a_profile_seated_on_another_device_is_offered_to_watch(pages: Any) -> None:
    """The server refuses a hello whose profile has a seat at the table already
    (``profile_seated``; the test's network answers so for the server): the page says so
    in its language and offers to watch, which works."""
    host = pages.open("/")
    host.fill("#player-name", "Sitter")
    host.click("#create-button")
    host.wait_for_selector("#seats .seat")
    code = host.url.rsplit("/", 1)[1]

    context: BrowserContext = pages.context(locale="it-IT")

    def route(socket: Any) -> None:
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            hello = json.loads(message)
            if hello.get("type") == "hello" and not hello.get("watch"):
                assert hello.get("profile"), "the hello carries the profile"
                refusal = {"type": "error", "code": "profile_seated", "message": "seated already"}
                socket.send(json.dumps(refusal))
            else:
                server.send(message)

        socket.on_message(from_page)
        server.on_message(socket.send)

    context.route_web_socket(re.compile(r"/ws$"), route)
    other = pages.open(f"/#/t/{code}", context=context)
    other.fill("#prompt-name", "Sitter")
    other.locator("#prompt-name").press("Enter")
    expect(other.locator(".notice [role=alert]")).to_have_text(words("it", "error.profile_seated"))
    other.click("#watch-instead")
    expect(other.locator(".pill.watch")).to_be_visible()
