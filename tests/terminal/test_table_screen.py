"""Snapshot-style tests of the table on screen: fixed protocol messages in, rendered text out.

The screen is read as plain text without colours (``screen_text``), so these tests also
show that every card can be told by its symbol and number on a monochrome terminal."""

from __future__ import annotations

import copy
from collections.abc import Callable, Coroutine
from typing import Any

from tui_support import Replay, screen_text, sheet_rows, until

from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.model import Phase

RULES = {
    "row_size": "classic",
    "short_turn": "recycle",
    "recycle_shuffle": False,
    "stack_penalty": 2,
    "floor_at_zero": True,
    "scoring": "cards",
    "match_end": "rounds:3",
    "expert": False,
}
SEATS = [
    {"seat": 0, "name": "Alice", "bot": None, "connected": True, "stand_in": False, "ready": False},
    {"seat": 1, "name": "Bob", "bot": None, "connected": False, "stand_in": True, "ready": True},
    {"seat": 2, "name": "Smart bot 3", "bot": "smart:expert", "connected": True, "stand_in": False, "ready": True},
]
SHEET = {
    "players": 3,
    "rounds": [
        {
            "ending": "stop",
            "stopped_by": 2,
            "lines": [
                {"center": 9, "stack": 4, "score": 1},
                {"center": 7, "stack": 8, "score": 0},
                {"center": 15, "stack": 0, "score": 15},
            ],
            "totals": [1, 0, 15],
            "winners": [2],
        }
    ],
    "totals": [1, 0, 15],
    "places": [2, 3, 1],
}
TABLE = {
    "type": "table",
    "code": "I7XLKMYrXIU",
    "phase": "playing",
    "seats": SEATS,
    "host": 0,
    "rules": RULES,
    "public": False,
    "grace_s": 60.0,
    "ready_s": 30.0,
    "round": 2,
    "start_at": 1795962803.75,
    "ready_by": None,
    "sheet": SHEET,
    "winners": None,
    "arbitration": "fair",
    "window_ms": 200,
    "rated": False,
    "match": 1,
}
VIEW = {
    "viewer": 0,
    "players": 3,
    "ending": None,
    "stopped_by": None,
    "areas": [
        {
            "seat": 0,
            "back": {"box": "red", "symbol": "sun"},
            "row": [["y7"], ["b8"], ["g3"], ["b9"]],
            "stack_top": "g6",
            "stack_size": 4,
            "discard_top": "y4",
            "discard_size": 13,
            "hand_size": 5,
            "voted": False,
        },
        {
            "seat": 1,
            "back": {"box": "red", "symbol": "moon"},
            "row": [["y8"], ["y9"], ["y3"], ["g9"]],
            "stack_top": "y6",
            "stack_size": 8,
            "discard_top": "r4",
            "discard_size": 17,
            "hand_size": 4,
            "voted": True,
        },
        {
            "seat": 2,
            "back": {"box": "red", "symbol": "star"},
            "row": [["g8"], ["b7"], ["r7"], ["g10"]],
            "stack_top": "g3",
            "stack_size": 1,
            "discard_top": None,
            "discard_size": 0,
            "hand_size": 24,
            "voted": False,
        },
    ],
    "center": [
        {"index": 0, "colour": "blue", "top": 5, "backs": [1, 0, 0, 0, 0]},
        {"index": 1, "colour": "red", "top": 10, "backs": [1, 0, 1, 2, 0, 0, 1, 2, 0, 0]},
        {"index": 2, "colour": "green", "top": 2, "backs": [1, 0]},
    ],
}
MESSAGES = [
    {"type": "welcome", "v": 1, "code": "I7XLKMYrXIU", "seat": 0, "token": "secret"},
    TABLE,
    {"type": "snapshot", "view": VIEW, "round": 2},
    {"type": "go", "round": 2},
]
STOP = {
    "type": "events",
    "round": 2,
    "seq": 40,
    "by": 2,
    "events": [
        {
            "type": "card_played",
            "player": 2,
            "card": "g3",
            "source": "stack",
            "position": 0,
            "pile": 2,
            "new_pile": False,
            "uncovered": None,
        },
        {"type": "round_stopped", "ending": "stop", "player": 2},
    ],
}


SITE = "http://127.0.0.1:8000"
TOKEN = "Zk3hQ0m1dYpW2b7xV9aR4g"


class Clock:
    """The app's wall clock, moved by the test alone (countdowns are drawn against it)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def run_app(
    messages: list[dict[str, Any]],
    check: Callable[[LigrettoApp, Replay, Any], Coroutine[Any, Any, None]],
    clock: Clock | None = None,
) -> Any:
    async def scenario() -> None:
        transport = Replay(copy.deepcopy(messages), site=SITE)
        app = LigrettoApp(transport, clock=clock or Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.model.view is not None, what="the snapshot")
            await check(app, transport, pilot)

    return scenario()


def lines_with(text: str, *words: str) -> list[str]:
    return [line for line in text.splitlines() if all(word in line for word in words)]


def test_the_table_shows_every_card_with_its_symbol(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    async def check(app: LigrettoApp, transport: Replay, pilot: Any) -> None:
        text = screen_text(app)
        # Own row with the keys that play it, the stack top and count, discard top, hand count.
        assert "1 ●7   2 ■8   3 ▲3   4 ■9" in text
        assert "s ▲6 (4 left)" in text
        assert "d ●4 (13)" in text
        assert "Hand 5" in text
        assert "Alice · score 1" in text
        # The center: blue 5, the complete red pile (ticked), green 2.
        assert "■5  ◆10✓  ▲2" in text
        # Every opponent on one line: name, row, stack top and count, discard top, hand, score.
        (bob,) = lines_with(text, "Bob")
        for part in ("away, a bot plays", "●8 ●9 ●3 ▲9", "stack ●6 ×8", "discard ◆4", "hand 4", "score 0", "voted"):
            assert part in bob, (part, bob)
        (bot,) = lines_with(text, "Smart bot 3")
        for part in ("▲8 ■7 ◆7 ▲10", "stack ▲3 ×1", "discard –", "hand 24", "score 15"):
            assert part in bot, (part, bot)
        assert "voted" not in bot
        assert "round 2 of 3 · races fair" in text.splitlines()[0]

    arun(run_app(MESSAGES, check))


def test_stop_banner_then_score_sheet_with_running_totals(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    clock = Clock()
    scoring = {
        **TABLE,
        "phase": "scoring",
        "sheet": {
            "players": 3,
            "rounds": [
                *SHEET["rounds"],
                {
                    "ending": "stop",
                    "stopped_by": 2,
                    "lines": [
                        {"center": 12, "stack": 4, "score": 4},
                        {"center": 6, "stack": 8, "score": 0},
                        {"center": 20, "stack": 0, "score": 20},
                    ],
                    "totals": [5, 0, 35],
                    "winners": [2],
                },
            ],
            "totals": [5, 0, 35],
            "places": [2, 3, 1],
        },
        "replay": TOKEN,
    }
    round_over = {
        "type": "round_over",
        "round": 2,
        "ending": "stop",
        "stopped_by": 2,
        "scores": [
            {"center": 12, "stack": 4, "score": 4},
            {"center": 6, "stack": 8, "score": 0},
            {"center": 20, "stack": 0, "score": 20},
        ],
        "totals": [5, 0, 35],
        "match_over": False,
        "winners": None,
        "replay": TOKEN,
    }

    async def check(app: LigrettoApp, transport: Replay, pilot: Any) -> None:
        assert transport.deliver is not None
        transport.deliver(STOP)
        await until(pilot, lambda: app.model.banner is not None, what="the stop")
        text = screen_text(app)
        assert "LIGRETTO STOP! Smart bot 3 emptied their Ligretto stack" in text
        assert "Replay of" not in text, "no round's link before it is over"
        assert "■5  ◆10✓  ▲3" in text  # the green 3 went onto the green 2
        (bot,) = lines_with(text, "Smart bot 3", "hand")
        assert "stack – ×0" in bot
        transport.deliver(round_over)
        transport.deliver(scoring)
        await until(pilot, lambda: app.model.phase is Phase.SCORING, what="scoring")
        text = screen_text(app)
        assert "Score sheet: round 2 ended with Ligretto Stop by Smart bot 3" in text
        rows = sheet_rows(text, ["Alice (you)", "Bob", "Smart bot 3"])
        # Center, stack, this round's score, round 1's score, running total.
        assert rows == {
            "Alice (you)": ["12", "4", "4", "1", "5"],
            "Bob": ["6", "8", "0", "0", "0"],
            "Smart bot 3": ["20", "0", "20", "15", "35"],
        }
        assert "Enter: ready for the next round." in text and "Next round in" not in text
        # The round's replay, as the browser's score sheet links it (its round_over's token).
        assert f"Replay of round 2: {SITE}/#/replay/{TOKEN}" in text
        await pilot.press("enter")
        assert transport.sent[-1] == {"type": "ready"}

        # Alice (the host) is ready: the sheet counts down the table's wait, and Enter
        # again deals the next round now.
        ready = copy.deepcopy(scoring)
        ready["seats"][0]["ready"] = True
        ready["ready_by"] = clock.now + 20.3  # no pong yet: the server's clock is taken as ours
        transport.deliver(ready)
        await until(pilot, lambda: "Ready. Next round in 21 s. Enter: start it now." in screen_text(app), what="21 s")
        clock.now += 1.0
        await until(pilot, lambda: "Ready. Next round in 20 s. Enter: start it now." in screen_text(app), what="20 s")
        await pilot.press("enter")
        assert transport.sent[-1] == {"type": "next_round"}

    arun(run_app(MESSAGES, check, clock))


def test_match_result_names_the_winners(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    clock = Clock()
    over = {**TABLE, "phase": "over", "winners": [2]}
    # A tie of the person (Alice, seat 0) and Bob at 1 point; the client came back on the
    # sheet, so the replay's token comes in the table message alone.
    rounds = [{**SHEET["rounds"][0], "totals": [1, 1, -2], "winners": [0, 1]}]
    tie = {**over, "winners": [1, 0], "sheet": {**SHEET, "rounds": rounds, "totals": [1, 1, -2]}, "replay": TOKEN}

    async def check(app: LigrettoApp, transport: Replay, pilot: Any) -> None:
        assert transport.deliver is not None
        transport.deliver(STOP)
        transport.deliver(over)
        await until(pilot, lambda: app.model.phase is Phase.OVER, what="the end")
        text = screen_text(app)
        assert "Match over: Smart bot 3 wins with 15 points. Enter: a rematch." in text
        assert "Replay of" not in text, "no token, no link"
        transport.deliver(tie)
        await until(pilot, lambda: app.model.winners == (1, 0), what="the tie")
        text = screen_text(app)
        assert "Match over: You and Bob win with 1 point. Enter: a rematch." in text
        assert f"Replay of round 1: {SITE}/#/replay/{TOKEN}" in text
        transport.deliver({**tie, "winners": [0]})
        await until(pilot, lambda: app.model.winners == (0,), what="the person alone")
        assert "Match over: You win with 1 point. Enter: a rematch." in screen_text(app)
        await pilot.press("enter")
        assert transport.sent[-1] == {"type": "ready"}, "Alice wants a rematch"
        seats = [{**seat, "ready": i in (0, 2)} for i, seat in enumerate(TABLE["seats"])]
        transport.deliver({**tie, "winners": [0], "seats": seats, "ready_by": clock.now + 20.4})
        want = ("Rematch wanted: waiting for the others. Rematch in 21 s.", "Enter: start it now.")
        await until(pilot, lambda: all(w in " ".join(screen_text(app).split()) for w in want), what="the wait")
        await pilot.press("enter")
        assert transport.sent[-1] == {"type": "start"}, "the host starts it now"

    arun(run_app(MESSAGES, check, clock))


def test_expert_columns_show_the_cards_under_the_exposed_one(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    messages = copy.deepcopy(MESSAGES)
    messages[1]["rules"] = {**RULES, "expert": True}
    messages[2]["view"]["areas"][0]["row"][1] = ["b9", "r8", "b7"]
    messages[2]["view"]["areas"][0]["stack_top"] = "g6"

    async def check(app: LigrettoApp, transport: Replay, pilot: Any) -> None:
        text = screen_text(app)
        assert "2 ■9›◆8›■7" in text
        assert "expert variant" in text
        # Shift+S then 2: the stack top (green 6) goes onto the blue 7 of column 2.
        await pilot.press("S", "2")
        assert transport.sent[-1]["action"] == {"kind": "place", "source": "stack", "column": 1, "card": "g6"}
        # Shift+D then 1: the discard top (yellow 4) cannot go on the yellow 7: nothing is sent.
        await pilot.press("D", "1")
        assert len(transport.sent) == 1
        assert "●4 cannot go on ●7" in screen_text(app)
        # Shift+D, Esc: cancelled, so 3 plays the row card again (green 3 onto the green 2).
        await pilot.press("D", "escape", "3")
        assert transport.sent[-1]["action"]["kind"] == "play"

    arun(run_app(messages, check))


def test_keys_send_the_protocol_actions(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    async def check(app: LigrettoApp, transport: Replay, pilot: Any) -> None:
        await pilot.press("2")  # blue 8 fits no pile: nothing is sent, the screen says so
        assert transport.sent == []
        assert "■8 fits no pile" in screen_text(app)
        await pilot.press("3")  # green 3 onto the green 2 (pile 3)
        await pilot.press("s")  # green 6: no pile
        await pilot.press("space", "v")
        actions = [message["action"] for message in transport.sent]
        assert actions == [
            {"kind": "play", "source": "row", "position": 2, "pile": 2, "card": "g3"},
            {"kind": "turn"},
            {"kind": "vote"},
        ]
        transport.deliver(
            {"type": "events", "round": 2, "seq": 9, "by": 0, "events": [{"type": "vote_cast", "player": 0}]}
        )
        await until(pilot, lambda: app.model.me is not None and app.model.me.voted, what="the vote")
        await pilot.press("v")
        assert transport.sent[-1]["action"] == {"kind": "withdraw"}
        assert "you voted stalemate" in screen_text(app)

    arun(run_app(MESSAGES, check))


def test_help_screen_lists_every_key_and_the_rules(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    from ligretto.terminal.keys import KEYS

    async def check(app: LigrettoApp, transport: Replay, pilot: Any) -> None:
        for key in ("question_mark", "f1"):  # ? as in the browser, F1 as in many terminal programs
            await pilot.press(key)
            await pilot.pause()
            text = screen_text(app)
            assert "Keys (the same in the browser" in text
            for binding in KEYS:
                assert binding.keys in text, binding
            assert "◆ red" in text and "■ blue" in text
            assert app.screen.query_one("#help-rules") is not None
            await pilot.press("escape")
            await pilot.pause()
            assert "Keys (the same in the browser" not in screen_text(app)

    arun(run_app(MESSAGES, check))


def test_a_spectator_sees_the_races(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    """At a tournament's stage table: its title names the tournament and stage, and the
    score sheet links the tournament's page."""
    watching = copy.deepcopy(MESSAGES)
    watching[0] = {"type": "welcome", "v": 1, "code": "I7XLKMYrXIU", "seat": None, "token": None}
    tournament = {"id": "uv4fjGVC7nSl", "name": "Friday cup", "stage": 2, "stages": 3}
    watching[1] = {**TABLE, "tournament": tournament}
    watching[2] = {"type": "snapshot", "view": {**VIEW, "viewer": None}, "round": 2}

    async def check(app: LigrettoApp, transport: Replay, pilot: Any) -> None:
        assert transport.deliver is not None
        assert "tournament Friday cup, stage 2 of 3 · round 2 of 3" in screen_text(app).splitlines()[0]
        transport.deliver({"type": "race", "round": 2, "pile": 2, "winner": 0, "loser": 1, "ms": 12})
        await until(pilot, lambda: "beat" in app.model.notice, what="the race")
        assert "Alice beat Bob to pile 3 by 12 ms" in screen_text(app)
        assert "You are watching this table." in screen_text(app)
        transport.deliver({**watching[1], "phase": "scoring"})
        await until(pilot, lambda: app.model.phase is Phase.SCORING, what="scoring")
        assert f"The tournament's standings: {SITE}/#/tournament/uv4fjGVC7nSl" in screen_text(app)

    arun(run_app(watching, check))


def test_the_lobby_says_how_races_are_judged(arun: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
    lobby = {**TABLE, "phase": "lobby", "round": 0, "sheet": None, "start_at": None}

    async def lobby_shows(judging: dict[str, Any], shown: str) -> None:
        app = LigrettoApp(Replay([MESSAGES[0], {**lobby, **judging}]))
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.model.phase is Phase.LOBBY, what="the lobby")
            assert shown in screen_text(app)

    arun(lobby_shows({"arbitration": "arrival", "window_ms": 80}, "Races for a pile judged by arrival"))
    arun(lobby_shows({"arbitration": "fair", "window_ms": 120}, "Races for a pile judged fair, window 120 ms"))
