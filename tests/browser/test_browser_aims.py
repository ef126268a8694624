"""Live presence in a real browser on a phone (360×640): a rival that shares its aim (a
real WebSocket client, ``wsrival.Rival``) shows up faintly on the page, its card outlined
in its area and a marker with its initial on the pile it points at, without moving
anything, hidden from screen readers, gone when cleared and after ``FADE_MS`` without
news; the page's own drag sends nothing while "Show my aim to others" is off (so nothing
of it reaches the rival), and once switched on in the help dialog, the rival sees the
dragged card and the pile under it, then the clear when it is let go, and again after a
reload."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browserkit import host_table, start_match
from playwright.sync_api import Page, expect
from wsrival import Rival

FADE_MS = 2500
"""The page's ``aimFadeMs`` here (3 s in play), so the fade is seen sooner (yet not so soon
that a loaded machine lets an aim fade before the page is looked at)."""

BOXES = """() => [...document.querySelectorAll('.center, .pile, .opponent, .own')]
  .map((e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })"""


def _sent_by(page: Page) -> list[dict[str, Any]]:
    """Every message the page sends over its game socket, as it goes."""
    sent: list[dict[str, Any]] = []

    def listen(socket: Any) -> None:
        if socket.url.endswith("/ws"):
            socket.on("framesent", lambda frame: sent.append(json.loads(str(frame))))

    page.on("websocket", listen)
    return sent


def _drag_over_new_pile(page: Page, position: int) -> None:
    """Drag the own row card at ``position`` over the "new pile" place, and let it go
    away from any pile (nothing is played)."""
    card = page.locator(f'.own [data-slot="row-{position}"]').bounding_box()
    pile = page.locator('.pile[data-pile="new"]').bounding_box()
    assert card and pile
    page.mouse.move(card["x"] + card["width"] / 2, card["y"] + card["height"] / 2)
    page.mouse.down()
    page.mouse.move(card["x"] + card["width"] / 2, card["y"] - 20, steps=3)
    page.mouse.move(pile["x"] + pile["width"] / 2, pile["y"] + pile["height"] / 2, steps=5)
    page.wait_for_timeout(300)  # held over the pile a moment, as a person would
    page.mouse.move(card["x"] + card["width"] / 2, card["y"] - 30, steps=5)
    page.mouse.up()


def test_a_rivals_aim_shows_faintly_and_the_pages_own_only_once_shared(
    pages: Any, server: Any, shot: Callable[..., Path]
) -> None:
    context = pages.context(width=360, height=640)
    context.add_init_script(f"window.LIGRETTO_NET = {{ aimFadeMs: {FADE_MS} }};")
    page = pages.open("/", context=context)
    sent = _sent_by(page)
    code = host_table(page, "Ann", seats=2, rounds=1)
    rosa = Rival(server.port, code, "Rosa")
    try:
        page.wait_for_selector("#seats li:nth-child(2)")
        expect(page.locator("#waiting-aim")).not_to_be_checked()  # the setting, off by default
        start_match(page)
        page.wait_for_selector(".board.live")
        seat = rosa.seat
        with rosa.lock:
            mirror = rosa.session.mirror
            assert mirror is not None
            card = mirror.to_dict()["areas"][seat]["row"][1][-1]
        before = page.evaluate(BOXES)

        # Rosa shares her aim: row card 2 over a new pile.  Faint, beside the pile, not moving anything.
        rosa.send({"type": "share_aim", "share": True})
        rosa.send({"type": "aim", "source": "row", "position": 1, "pile": "new"})
        marker = page.locator('.pile[data-pile="new"] .aim-marker')
        expect(marker).to_have_text("R")
        aimed = page.locator(f'.opponent[data-seat="{seat}"] [data-slot="row-1"]')
        expect(aimed).to_have_class("slot aimed")
        assert aimed.locator(".card").get_attribute("data-card") == card
        assert page.evaluate(BOXES) == before, "an aim moved the board"
        assert marker.evaluate("(e) => e.closest('[aria-hidden=\"true\"]') !== null"), "read out on every change"
        assert float(marker.evaluate("(e) => getComputedStyle(e).opacity")) < 1
        assert "dashed" in marker.evaluate("(e) => getComputedStyle(e).borderStyle")  # not colour alone
        assert page.locator("[aria-live] .aim-marker, [role=status] .aim-marker").count() == 0
        shot(page, "rival-aims")

        # Cleared: gone at once.  One more aim, never refreshed: gone after FADE_MS.
        rosa.send({"type": "aim"})
        expect(marker).to_have_count(0)
        expect(page.locator(".aimed")).to_have_count(0)
        rosa.send({"type": "aim", "source": "stack", "pile": None})
        expect(page.locator(f'.opponent[data-seat="{seat}"] [data-slot="stack"].aimed')).to_have_count(1)
        expect(page.locator(".aimed")).to_have_count(0, timeout=FADE_MS + 2000)

        # The page's drag while "Show my aim to others" is off: nothing sent, nothing relayed
        # (a reaction, sent after the drag, reaches Rosa behind anything it caused).
        assert page.evaluate("() => localStorage.getItem('ligretto.aim')") is None
        _drag_over_new_pile(page, 0)
        mark = len(rosa.messages)
        page.click("#reaction-bar [data-emote]")
        rosa.wait(lambda m: m["type"] == "reaction", after=mark)
        assert not [m for m in sent if m["type"] in ("aim", "share_aim")], sent
        assert not [m for m in rosa.messages if m["type"] == "aimed"], "a page that does not share was relayed"

        # On a desktop too (the marker as drawn there); there, switched on in the help dialog:
        # the page shares, and Rosa sees its drag, then the clear.
        page.set_viewport_size({"width": 1280, "height": 800})
        before = page.evaluate(BOXES)
        rosa.send({"type": "aim", "source": "row", "position": 1, "pile": "new"})
        expect(marker).to_have_text("R")
        assert page.evaluate(BOXES) == before, "an aim moved the board"
        shot(page, "rival-aims-desktop")
        page.click(".keys-button")
        page.check("#help-aim")
        page.click(".help-dialog button.primary")
        mark = len(rosa.messages)
        _drag_over_new_pile(page, 0)
        shown = rosa.wait(lambda m: m["type"] == "aimed" and m["pile"] == "new", after=mark)
        mine = page.locator('.own [data-slot="row-0"]').get_attribute("data-card")
        assert shown["seat"] != seat and shown["source"] == "row" and shown["position"] == 0 and shown["card"] == mine
        rosa.wait(lambda m: m["type"] == "aimed" and m["source"] is None, after=mark)
        assert {"type": "share_aim", "share": True} in sent
        assert page.evaluate("() => localStorage.getItem('ligretto.aim')") == "on"
        assert not [m for m in sent if m["type"] == "act"], "a drag let go away from the piles played"

        # A reload is a new connection, which shares nothing until it says so: the page
        # says so after its welcome, as the setting is kept.
        page.reload()
        page.wait_for_selector(".board.live")
        mark = len(rosa.messages)
        _drag_over_new_pile(page, 0)
        rosa.wait(lambda m: m["type"] == "aimed" and m["pile"] == "new", after=mark)
        assert [m["type"] for m in sent].count("share_aim") == 2, sent
    finally:
        rosa.close()
