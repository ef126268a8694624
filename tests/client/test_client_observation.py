"""A bot's window on the client model answers as the engine's Observation does, so the
bots' own strategies choose the same on either side of the wire."""

from __future__ import annotations

import random

import msgspec
import pytest

from ligretto import protocol
from ligretto.bots.strategies import STRATEGIES
from ligretto.client.mirror import Mirror
from ligretto.client.observation import MirrorObservation, action_message
from ligretto.engine import RuleSet
from ligretto.engine.actions import Play, Source
from ligretto.engine.events import Applied
from ligretto.engine.observation import Observation
from ligretto.engine.serial import event_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import view


def same_answers(engine: Observation, client: MirrorObservation) -> None:
    assert client.legal_actions() == engine.legal_actions()
    assert (client.players, client.over, client.center_size, client.votes) == (
        engine.players, engine.over, engine.center_size, engine.votes,
    )  # fmt: skip
    assert client.pile_tops() == engine.pile_tops()
    assert client.others_visible_faces() == engine.others_visible_faces()
    assert client.play_options() == engine.play_options()
    assert client.piles == engine.piles
    assert client.view() == engine.view()
    for face in range(40):
        assert client.others_show(face) == engine.others_show(face)
    for pile in range(len(engine.pile_tops())):
        assert client.pile_wants(pile) == engine.pile_wants(pile)
    for seat in range(engine.players):
        assert client.row(seat) == engine.row(seat)
        assert (client.stack_top(seat), client.stack_size(seat)) == (engine.stack_top(seat), engine.stack_size(seat))
        assert (client.discard_top(seat), client.discard_size(seat)) == (
            engine.discard_top(seat),
            engine.discard_size(seat),
        )
        assert (client.hand_size(seat), client.voted(seat)) == (engine.hand_size(seat), engine.voted(seat))
    for source in Source:
        card = engine.card_at(source)
        assert client.card_at(source) == card
        if card is not None:
            assert client.fits(card) == engine.fits(card)


@pytest.mark.parametrize(("preset", "players", "seed"), [("classic", 4, 1), ("seed-es", 3, 5), ("expert", 2, 8)])
def test_the_client_observation_answers_as_the_engines(preset: str, players: int, seed: int) -> None:
    rules = RuleSet.preset(preset)
    game = Round.deal(rules, players, seed)
    mirrors = [Mirror.from_view(view(game, seat).to_dict(), strict=True) for seat in range(players)]
    bots = [STRATEGIES["smart"](random.Random(seat)) for seat in range(players)]
    twins = [STRATEGIES["smart"](random.Random(seat)) for seat in range(players)]
    rng = random.Random(seed)
    for _ in range(400):
        if game.over:
            break
        seat = rng.randrange(players)
        engine, client = Observation(game, seat), MirrorObservation(mirrors[seat], seat, rules)
        same_answers(engine, client)
        action = bots[seat].choose(engine)
        assert twins[seat].choose(client) == action  # same strategy, same seed, same choice
        if action is None:
            continue
        result = game.apply(action)
        assert isinstance(result, Applied)
        events = [event_to_dict(event) for event in result.events]
        for mirror in mirrors:
            mirror.apply(events)
            assert mirror.problems == []


def test_an_action_is_written_as_the_protocols_act_and_names_its_card() -> None:
    rules = RuleSet.preset("classic")
    game = Round.deal(rules, 2, 4)
    mirror = Mirror.from_view(view(game, 0).to_dict())
    seen = MirrorObservation(mirror, 0, rules)
    decoder = msgspec.json.Decoder(protocol.ActionMsg)
    for action in seen.legal_actions():
        message = action_message(action, mirror)
        decoded = protocol.to_action(0, decoder.decode(msgspec.json.encode(message)))
        expected = action
        if isinstance(action, Play):
            assert message["card"] == mirror.areas[0].top(message["source"], action.position)
            assert decoded.card is not None and str(decoded.card) == message["card"]
            expected = Play(action.player, action.source, action.pile, action.position, decoded.card)
        assert decoded == expected
