"""The client model on its own: protocol messages in, state and messages to send out."""

from __future__ import annotations

import random

import pytest

from ligretto import protocol
from ligretto.client.mirror import NEW_PILE, Mirror
from ligretto.engine.actions import Turn, Vote, Withdraw
from ligretto.engine.events import Applied
from ligretto.engine.rules import RuleSet
from ligretto.engine.serial import action_to_dict, event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table
from ligretto.terminal.model import Notice, Phase, TableModel


def snapshot(game: Round, seat: int | None, number: int = 1) -> dict[str, object]:
    return {"type": "snapshot", "view": view(game, seat).to_dict(), "round": number}


@pytest.mark.parametrize(("preset", "players", "seed"), [("classic", 2, 1), ("seed-es", 3, 2), ("expert", 4, 3)])
def test_the_mirror_follows_the_engine_through_a_whole_round(preset: str, players: int, seed: int) -> None:
    """Applying each action's events to the snapshot gives exactly the engine's view, at every step."""
    game = Round.deal(RuleSet.preset(preset), players, seed)
    model = TableModel()
    model.receive(snapshot(game, 0))
    choose = random.Random(seed)
    steps = 0
    while not game.over and steps < 3000:
        seat = choose.randrange(players)
        actions = game.legal_actions(seat)
        # Mostly moves and turns; now and then a vote or its withdrawal (a vote of all ends the round).
        moves = [action for action in actions if not isinstance(action, Vote | Withdraw)]
        result = game.apply(choose.choice(actions if choose.random() < 0.02 or not moves else moves))
        if isinstance(result, Applied):
            events = [event_to_dict(event) for event in result.events]
            model.receive({"type": "events", "round": 1, "seq": steps, "by": seat, "events": events})
        assert model.view == Mirror.from_view(view(game, 0).to_dict()), f"step {steps}"
        steps += 1
    assert steps > 50


def playing(model: TableModel, game: Round) -> TableModel:
    model.receive(snapshot(game, 0))
    model.phase = Phase.PLAYING
    model.session.rules = game.rules
    return model


def test_a_play_aims_at_an_existing_pile_and_a_one_starts_a_new_one() -> None:
    game = Round.deal(RuleSet(), 2, 7)
    model = playing(TableModel(), game)
    assert model.view is not None
    model.view.center = Mirror.from_view(
        {
            "viewer": 0,
            "players": 2,
            "ending": None,
            "stopped_by": None,
            "areas": [],
            "center": [
                {"index": 0, "colour": "red", "top": 10, "backs": [0] * 10},
                {"index": 1, "colour": "red", "top": 4, "backs": [0] * 4},
                {"index": 2, "colour": "red", "top": 4, "backs": [1] * 4},
            ],
        }
    ).center
    assert model.view.target_pile("r5") == 1  # the first pile that takes it
    assert model.view.target_pile("r1") == NEW_PILE  # a 1 starts a new pile
    assert model.view.target_pile("g5") is None  # nothing takes it
    me = model.me
    assert me is not None
    me.row[0] = ["r5"]
    message = model.play("row", 0)
    assert message == {
        "type": "act",
        "id": 1,
        "action": {"kind": "play", "source": "row", "position": 0, "pile": 1, "card": "r5"},
    }
    me.row[0] = ["g5"]
    assert model.play("row", 0) is None
    assert model.notice_kind is Notice.ERROR and "fits no pile" in model.notice


def test_refusals_say_beaten_to_it_or_the_engines_reason() -> None:
    model = playing(TableModel(), Round.deal(RuleSet(), 2, 7))
    assert model.turn() is not None and model.vote() is not None
    model.receive({"type": "ack", "id": 1, "applied": False, "reason": "does_not_fit", "message": "x"})
    assert model.notice.startswith("Beaten to it! turning the hand") and model.notice_kind is Notice.REFUSED
    model.receive(
        {"type": "ack", "id": 2, "applied": False, "reason": "already_voted", "message": "you have already voted"}
    )
    assert model.notice == "the stalemate vote refused: you have already voted"
    assert model.refusals == 2 and model.pending == {}


def test_a_refusal_names_who_was_faster_and_reactions_are_shown() -> None:
    model = playing(TableModel(), Round.deal(RuleSet(), 2, 7))
    model.receive(
        {
            "type": "table", "code": "C", "phase": "playing", "host": 0, "rules": RuleSet().to_dict(),
            "round": 1, "start_at": 0.0, "sheet": None, "winners": None, "public": False, "grace_s": 60.0,
            "ready_s": 30.0, "ready_by": None,
            "seats": [
                {"seat": 0, "name": "Tess", "bot": None, "connected": True, "stand_in": False, "ready": False},
                {"seat": 1, "name": "Alice", "bot": None, "connected": True, "stand_in": False, "ready": False},
            ],
            "arbitration": "fair", "window_ms": 200, "rated": False, "match": 1,
        }
    )  # fmt: skip
    assert model.turn() is not None and model.turn() is not None and model.turn() is not None
    model.receive({"type": "ack", "id": 1, "applied": False, "reason": "does_not_fit", "message": "x", "by": 1})
    assert model.notice.startswith("Beaten to it by Alice! turning the hand") and model.notice_kind is Notice.REFUSED
    model.receive({"type": "reaction", "seat": 1, "emote": "\U0001f389"})
    assert model.notice.startswith("Beaten to it by Alice!"), "an emote covered the refusal"
    model.receive({"type": "ack", "id": 2, "applied": False, "reason": "pile_complete", "message": "x", "by": 0})
    assert model.notice.startswith("Your other card got there first!")
    model.receive({"type": "ack", "id": 3, "applied": True})
    model.receive({"type": "reaction", "seat": 1, "emote": "\U0001f389"})
    assert model.notice == "Alice reacted \U0001f389" and model.notice_kind is Notice.INFO
    model.receive({"type": "reaction", "seat": 0, "emote": "\U0001f44d"})
    assert model.notice == "You reacted \U0001f44d"
    # An opponent's aim (live presence): kept by the session, shown nowhere, covering nothing.
    card = model.session.mirror.areas[1].row[0][-1]  # type: ignore[union-attr]
    model.receive(
        {"type": "aimed", "round": 1, "seq": 2, "seat": 1, "source": "row", "position": 0, "card": card, "pile": "new"}
    )
    assert model.notice == "You reacted \U0001f44d" and model.session.aims[1].card == card
    model.receive(
        {"type": "aimed", "round": 1, "seq": 2, "seat": 1, "source": None, "position": 0, "card": None, "pile": None}
    )
    assert model.session.aims == {} and model.notice == "You reacted \U0001f44d"


def test_no_action_before_go_or_after_the_end() -> None:
    game = Round.deal(RuleSet(), 2, 7)
    model = TableModel()
    model.receive(snapshot(game, 0))
    model.phase = Phase.COUNTDOWN
    assert model.turn() is None and "countdown" in model.notice
    model.phase = Phase.SCORING
    assert model.play("stack") is None and "no round" in model.notice


def test_the_countdown_uses_the_clock_offset_of_the_shortest_ping() -> None:
    model = TableModel(start_at=1000.0)
    model.phase = Phase.COUNTDOWN
    model.receive({"type": "pong", "t": 10.0, "server_t": 990.5}, now=11.0)  # trip 1 s: offset 980
    model.receive({"type": "pong", "t": 20.0, "server_t": 995.1}, now=20.2)  # trip 0.2 s: offset 975
    assert model.clock_offset == pytest.approx(975.0)
    assert model.countdown(now=22.0) == pytest.approx(3.0)
    assert model.countdown(now=30.0) == 0.0


def test_expert_placement_checks_colour_and_number_first() -> None:
    game = Round.deal(RuleSet.preset("expert"), 2, 7)
    model = playing(TableModel(), game)
    me = model.me
    assert me is not None
    me.row[0], me.stack_top, me.discard_top = ["b7"], "g6", "y6"
    assert model.place(0, "stack") is not None
    assert model.place(0, "discard") is not None
    me.row[0] = ["y7"]
    assert model.place(0, "discard") is None and "cannot go on" in model.notice
    classic = playing(TableModel(), Round.deal(RuleSet(), 2, 7))
    assert classic.placeable("stack") is None and "expert variant" in classic.notice


class _ModelListener:
    """A table's listener that feeds the terminal client's model, as the transport does."""

    def __init__(self, model: TableModel) -> None:
        self.seat: int | None = None
        self.model = model

    def send(self, message: object) -> None:
        self.model.receive(protocol.as_dict(message))  # type: ignore[arg-type]

    def detach(self) -> None:
        self.seat = None


def test_a_restored_round_counts_down_over_the_board_it_left() -> None:
    """After a server restart the round waits for its people in ``countdown`` with a
    half-played snapshot, and ``start_at`` moves earlier when the last one is back: the
    model shows the board as it was, counts down to the latest ``start_at`` and refuses to
    act until ``go``."""
    scheduler = VirtualScheduler()
    before = Table("RESTORED", seats=2, countdown_s=3.0, scheduler=scheduler, match_seeds=lambda n: 5)
    tokens = [before.join(_ModelListener(TableModel()), name)[1] for name in ("Tess", "Alice")]
    before.start(0)
    scheduler.advance(3.0)
    assert before.act(0, Turn(0)).ok and before.act(1, Turn(1)).ok
    before.close()
    assert before.game is not None
    actions = [action_to_dict(action) for action in before.game.log]

    scheduler = VirtualScheduler(start=2000.0)
    table = Table.restore(before.record(), actions, countdown_s=3.0, scheduler=scheduler)
    table.resume(15.0)
    model = TableModel()
    table.rejoin(_ModelListener(model), tokens[0])
    assert model.phase is Phase.COUNTDOWN and model.view is not None
    assert table.game is not None and model.view == Mirror.from_view(view(table.game, 0).to_dict())
    assert model.view.areas[0].discard_size == 3, "the board as it was left"
    assert model.countdown(now=2000.0) == 18.0, "Alice is awaited: the catch-up time and a countdown"
    assert model.turn() is None and "countdown" in model.notice
    scheduler.advance(4.0)
    table.rejoin(_ModelListener(TableModel()), tokens[1])
    assert model.countdown(now=2004.0) == 3.0, "a fresh countdown once Alice is back"
    scheduler.advance(3.0)
    assert model.phase is Phase.PLAYING and model.turn() is not None
    table.close()


def _at_table(seat: int | None, **judging: object) -> TableModel:
    """A model at a playing table of Tess, Alice and Bob, seated at ``seat`` (``None``: watching)."""
    model = playing(TableModel(), Round.deal(RuleSet(), 3, 7))
    model.receive({"type": "welcome", "v": 1, "code": "C", "seat": seat, "token": None if seat is None else "t"})
    names = ["Tess", "Alice", "Bob"]
    model.receive(
        {
            "type": "table", "code": "C", "phase": "playing", "host": 0, "rules": RuleSet().to_dict(),
            "round": 1, "start_at": 0.0, "sheet": None, "winners": None, "public": False, "grace_s": 60.0,
            "ready_s": 30.0, "ready_by": None,
            "seats": [
                {"seat": i, "name": name, "bot": None, "connected": True, "stand_in": False, "ready": False}
                for i, name in enumerate(names)
            ],
            "arbitration": "fair", "window_ms": 200, "rated": False, "match": 1,
            **judging,
        }
    )  # fmt: skip
    assert model.seat == seat
    return model


def _lost(ident: int, **by: object) -> dict[str, object]:
    message = "the card does not fit that pile (beaten to it?)"
    return {"type": "ack", "id": ident, "applied": False, "reason": "does_not_fit", "message": message, **by}


@pytest.mark.parametrize(
    ("by", "said"),
    [
        ({"by": 1, "by_ms": 12}, "Alice was 12 ms faster! turning the hand no longer fits"),
        ({"by": 1, "by_ms": 0}, "Beaten to it by Alice! turning the hand"),
        ({"by": 1, "by_ms": -30}, "Beaten to it by Alice! turning the hand"),  # too late for the window
        ({"by": 1}, "Beaten to it by Alice! turning the hand"),  # not known after a restart
        ({"by": 0, "by_ms": 40}, "Your other card got there first! turning the hand"),
        ({}, "Beaten to it! turning the hand"),
    ],
)
def test_a_refusal_says_who_won_the_race_and_by_how_much(by: dict[str, object], said: str) -> None:
    model = _at_table(0)
    assert model.turn() is not None
    model.receive(_lost(1, **by))
    assert model.notice.startswith(said), model.notice
    assert model.notice_kind is Notice.REFUSED and model.refusals == 1


def test_a_lost_race_is_one_notice_the_acks() -> None:
    """The loser gets its ack, then the race message everyone gets: the ack's text stays."""
    model = _at_table(0)
    assert model.turn() is not None
    model.receive(_lost(1, by=1, by_ms=12))
    said = model.notice
    model.receive({"type": "race", "round": 1, "pile": 2, "winner": 1, "loser": 0, "ms": 12})
    assert model.notice == said and model.notice_kind is Notice.REFUSED and model.refusals == 1
    model.receive({"type": "race", "round": 1, "pile": 0, "winner": 2, "loser": 1, "ms": 5})
    assert model.notice == said, "another race does not cover the refusal still to be read"


def test_everyone_else_sees_a_race_with_its_margin() -> None:
    race = {"type": "race", "round": 1, "pile": 2, "winner": 1, "loser": 2, "ms": 12}
    watcher = _at_table(None)
    watcher.receive(race)
    assert watcher.notice == "Alice beat Bob to pile 3 by 12 ms" and watcher.notice_kind is Notice.INFO
    winner = _at_table(1)
    winner.receive(race)
    assert winner.notice == "You beat Bob to pile 3 by 12 ms"
    third = _at_table(0)
    third.receive({**race, "ms": -4})
    assert third.notice == "Alice beat Bob to pile 3", "no margin shown unless it is one"
    third.receive({key: value for key, value in race.items() if key != "ms"})
    assert third.notice == "Alice beat Bob to pile 3"
    third.receive({**race, "winner": 2})
    assert third.notice == "Bob's other card got to pile 3 first"
    third.receive({**race, "round": 2, "winner": 0})
    assert third.notice == "Bob's other card got to pile 3 first", "a race of another round is old news"


def test_the_table_message_says_how_races_are_judged() -> None:
    assert _at_table(0, arbitration="fair", window_ms=80).judging == "fair, window 80 ms"
    assert _at_table(0, arbitration="fair", window_ms=0).judging == "fair, window 0 ms"
    assert _at_table(0, arbitration="arrival", window_ms=80).judging == "by arrival"
    assert TableModel().judging is None, "before the table says"


def test_the_host_reads_that_a_seat_was_flagged_for_inhuman_speed() -> None:
    host = _at_table(0)
    flag = {"type": "speed", "round": 1, "seat": 1, "why": "fast", "plays": 3, "fast": 3, "median_ms": 41, "cv": 0.3}
    host.receive(flag)
    assert host.notice.startswith("Alice is playing faster than any person can (3 plays answered in under 150 ms)")
    assert host.notice_kind is Notice.ERROR
    host.receive({**flag, "why": "regular"})
    assert host.notice.startswith("Alice is playing as regularly as a machine")
