"""The fair-judging half of the load-test client (``ligretto.harness.fairclient``): the
stamps, the race tally and the check of the judging's clamp; every time is passed in (the
clock sync itself is ``client.clocksync``'s, tested in tests/client/test_clocksync.py)."""

from __future__ import annotations

import asyncio
import time

from ligretto import protocol
from ligretto.client.mirror import Mirror
from ligretto.engine.cards import face_text
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import action_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.harness.client import ClientSettings, TableRun
from ligretto.harness.fairclient import FairClient, LostRace, RaceTally, ranked_too_early, seen_contested
from ligretto.harness.figures import Figures
from racedeals import a_race


def test_the_tally_counts_races_of_rounds_that_ended_for_the_far_seat() -> None:
    tally = RaceTally(far_seat=1)
    tally.lost += [
        LostRace(1, 0, "r5", winner=1, by_ms=3, acked=0.0),
        LostRace(1, 2, "b4", winner=0, by_ms=-20, acked=0.0),
        LostRace(1, 1, "g5", winner=1, by_ms=None, acked=0.0),  # too late: no race told
        LostRace(2, 0, "r6", winner=0, by_ms=3, acked=0.0),
        LostRace(3, 0, "r7", winner=1, by_ms=3, acked=0.0),
    ]
    for round_number, winner in ((1, 1), (1, 0), (2, 0), (3, 1)):
        tally.race(protocol.Race(round_number, 0, winner, 1 - winner, 3))
    tally.completed |= {1, 2, 4}  # round 3 still on; round 4 ended without a race
    assert tally.rounds() == [(3, 2), (1, 0), (0, 0)], "every beaten play, as the simulator counts"
    assert tally.told_races() == tally.told_by_ack() == 3, "the races told: those with a margin"


def test_a_winner_ranked_before_its_send_time_minus_twice_the_cap_is_caught() -> None:
    plays = {(1, 2, "b4"): 1000.0}  # the winner sent its b4 to pile 2 at 1000.0 (wall clock)
    cap = 0.150

    def lost(by_ms: int | None, acked: float = 1000.2, card: str = "b4") -> LostRace:
        return LostRace(1, 2, card, winner=0, by_ms=by_ms, acked=acked)

    # The loser's ack came at 1000.2: the winner was ranked at the latest 1000.2 - by_ms.
    assert ranked_too_early(lost(300), plays, cap) is False  # 999.9 >= 1000.0 - 0.3
    assert ranked_too_early(lost(499), plays, cap) is False  # 999.701: within the cap each way
    assert ranked_too_early(lost(700), plays, cap) is True  # 999.5: a 500 ms lie let through
    assert ranked_too_early(lost(None), plays, cap) is None  # no margin: nothing to check
    assert ranked_too_early(lost(700, card="b5"), plays, cap) is None  # not the winner's play


def test_acts_are_stamped_on_the_server_clock_and_a_liar_stamps_early() -> None:
    async def scenario() -> tuple[list[float], list[dict[str, object]], FairClient]:
        settings = ClientSettings(ws_url="ws://127.0.0.1:9/ws")
        table = TableRun("CODE")
        honest = FairClient(table, 0, settings, Figures(), RaceTally())
        liar = FairClient(table, 1, settings, Figures(), RaceTally(), far=True, lie_s=0.5)
        for client in (honest, liar):
            client.clock.ponged({"type": "pong", "t": 10.0, "server_t": 13.0}, 10.0)  # server 3 s ahead
            client.session.round = 2
        play = {"kind": "play", "source": "row", "position": 0, "pile": 1, "card": "g3"}
        before = time.time()
        messages = [honest.act_message(play), liar.act_message(play), honest.act_message({"kind": "turn"})]
        return [before, time.time()], messages, liar

    (before, after), (honest, lying, turn), liar = asyncio.run(scenario())
    assert before + 3.0 <= honest["t"] <= after + 3.0  # type: ignore[operator]
    assert before + 2.5 <= lying["t"] <= after + 2.5  # type: ignore[operator]
    assert "t" in turn
    assert honest["action"]["pile"] == 1  # type: ignore[index]
    assert before <= liar.plays[(2, 1, "g3")] <= after  # the true send time, for the check


def test_a_play_is_seen_contested_when_another_seat_shows_the_same_card() -> None:
    rules = RuleSet()
    seed, one, near_two, _ = a_race(rules)
    game = Round.deal(rules, 2, round_seed(seed, 1))
    before = Mirror.from_view(view(game, 0).to_dict())
    assert game.apply(one).ok
    mirror = Mirror.from_view(view(game, 0).to_dict())
    two = action_to_dict(near_two)
    play = {"kind": "play", "source": two["source"], "position": two["position"], "pile": two["pile"]}
    assert near_two.card is not None
    play["card"] = face_text(near_two.card.face)
    assert seen_contested(mirror, 0, play), "seat 1 shows the same 2"
    assert not seen_contested(mirror, 0, {**play, "pile": None}), "a new pile is never contested"
    assert not seen_contested(mirror, 0, {"kind": "turn"})
    assert not seen_contested(None, 0, play) and not seen_contested(before, 0, {**play, "card": None})
