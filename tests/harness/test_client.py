"""The load-test client's player (``ligretto.harness.client``): the greedy bot's strategy
on the client model, against the engine."""

from __future__ import annotations

import random
from dataclasses import replace

import msgspec
import pytest

from ligretto import protocol
from ligretto.bots.reaction import Move
from ligretto.bots.strategies import GreedyStrategy
from ligretto.client.mirror import Mirror
from ligretto.engine import RuleSet
from ligretto.engine.actions import Place, Play
from ligretto.engine.events import Applied
from ligretto.engine.observation import Observation
from ligretto.engine.serial import event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.harness.client import choose


@pytest.mark.parametrize(("preset", "players", "seed"), [("classic", 4, 1), ("classic", 2, 7), ("seed-es", 3, 5)])
def test_the_client_follows_the_engine_and_chooses_as_the_greedy_bot(preset: str, players: int, seed: int) -> None:
    rules = RuleSet.preset(preset)
    game = Round.deal(rules, players, seed)
    mirrors = [Mirror.from_view(view(game, seat).to_dict(), strict=True) for seat in range(players)]
    clients = [GreedyStrategy(random.Random(seat)) for seat in range(players)]
    bots = [GreedyStrategy(random.Random(seat)) for seat in range(players)]
    rng = random.Random(seed)
    decoder = msgspec.json.Decoder(protocol.ActionMsg)
    steps = 0
    while not game.over and steps < 5000:
        steps += 1
        seat = rng.randrange(players)
        choice = choose(clients[seat], mirrors[seat], seat, rules)
        expected = bots[seat].choose(Observation(game, seat))
        if choice is None:
            assert expected is None
            continue
        move, message = choice
        action = protocol.to_action(seat, decoder.decode(msgspec.json.encode(message)))
        assert (replace(action, card=None) if isinstance(action, Play | Place) else action) == expected
        assert move is {"play": Move.PLAY, "turn": Move.TURN, "vote": Move.VOTE}[message["kind"]]
        result = game.apply(action)
        assert isinstance(result, Applied), (message, result)  # one at a time: no races, no stale mirror
        events = [event_to_dict(event) for event in result.events]
        for other, mirror in enumerate(mirrors):
            mirror.apply(events)
            assert mirror.problems == []
            assert mirror.to_dict() == view(game, other).to_dict()
    assert game.over
