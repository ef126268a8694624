"""The ``kill -9`` scenario's check of acknowledged actions (``harness/acks.py``), on
positions of the real engine: an acknowledged play whose card is not in the restored
view's center, or an action missing from the stored log, is counted as lost; one that is
there is not."""

from __future__ import annotations

import dataclasses
from typing import Any

from ligretto.client.mirror import Mirror
from ligretto.client.observation import action_message
from ligretto.engine import Applied, Card, Play, Round, RuleSet, Turn
from ligretto.engine.serial import action_to_dict
from ligretto.engine.views import view
from ligretto.harness.acks import Acked, acks_lost, in_log
from positions import play_some


def _a_play(seat: int) -> tuple[Round, Play]:
    """A round after some actions, and a play of ``seat`` onto an existing pile."""
    for seed in range(200):
        game = play_some(RuleSet(), 2, seed, 40, key="acks")
        plays = [a for a in game.legal_actions(seat) if isinstance(a, Play) and a.pile is not None]
        if plays and not game.over:
            return game, plays[0]
    raise AssertionError("no position with a play onto a pile")


def _acked_play(seat: int = 0) -> tuple[Acked, dict[str, Any], dict[str, Any], dict[int, Any]]:
    """The play acknowledged, the view before and after it, and the round's stored log."""
    game, play = _a_play(seat)
    before = view(game, seat).to_dict()
    message = action_message(play, Mirror.from_view(before))
    play = dataclasses.replace(play, card=Card.parse(message["card"], seat))  # as the server reads it
    seq = len(game.log)
    assert isinstance(game.apply(play), Applied)
    after = view(game, seat).to_dict()
    acked = Acked(match=1, round=1, seat=seat, action=message, after=seq - 1, seq=seq, pile=play.pile)
    return acked, before, after, {seq: action_to_dict(play)}


def test_an_acknowledged_play_is_found_in_the_restored_view_and_the_log() -> None:
    acked, _, after, log = _acked_play()
    assert acks_lost([acked], 1, 1, after, {(1, 1): log}) == []


def test_an_acknowledged_play_whose_card_is_missing_from_the_restored_view_is_lost() -> None:
    acked, before, _, log = _acked_play()
    # The restored round shows the position before the play: the card never reached the
    # center (it is still face up at its source), though the log has it.
    assert acks_lost([acked], 1, 1, before, {(1, 1): log}) == [acked]


def test_an_acknowledged_play_of_an_earlier_round_is_checked_in_its_log_only() -> None:
    acked, before, _, log = _acked_play()
    assert acks_lost([acked], 1, 2, before, {(1, 1): log}) == []
    assert acks_lost([acked], 1, 2, before, {(1, 1): {}}) == [acked]


def test_an_acknowledged_turn_missing_from_the_log_is_lost() -> None:
    game = Round.deal(RuleSet(), 2, 7)
    turn = {"kind": "turn"}
    acked = Acked(match=1, round=1, seat=1, action=turn, after=-1, seq=0)
    shown = view(game, 1).to_dict()
    assert acks_lost([acked], 1, 1, shown, {(1, 1): {0: action_to_dict(Turn(1))}}) == []
    assert acks_lost([acked], 1, 1, shown, {(1, 1): {}}) == [acked]
    # Another seat's turn at that index is not this one.
    assert acks_lost([acked], 1, 1, shown, {(1, 1): {0: action_to_dict(Turn(0))}}) == [acked]


def test_an_action_whose_events_never_came_is_looked_for_after_the_last_index_known() -> None:
    acked = Acked(match=1, round=1, seat=0, action={"kind": "turn"}, after=4)
    assert in_log(acked, {3: action_to_dict(Turn(0)), 7: action_to_dict(Turn(0))})
    assert not in_log(acked, {3: action_to_dict(Turn(0)), 4: action_to_dict(Turn(0))})
