"""Property tests: a Hypothesis state machine drives one round with legal and arbitrary actions.

After every step it checks the state invariants (``invariants.py``), that views hide
what RULES.md §9 hides, that a JSON round trip and a replay of the action log rebuild
the identical state and results, and that every action ``legal_actions`` offers is
applied (tried on copies).  Arbitrary actions check that ``legal_actions`` is exactly
the set of actions ``apply`` accepts and that a refused action changes nothing (§3:
a refusal is never a loss of a card).
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from ligretto.engine import (
    PRESETS,
    Action,
    Applied,
    Card,
    Ending,
    Place,
    Play,
    Refused,
    Result,
    Round,
    RoundRecord,
    RuleSet,
    Source,
    Turn,
    Vote,
    Withdraw,
    replay,
    state_from_dict,
    state_to_dict,
)
from ligretto.engine.cards import CARDS, DECK_SIZE, MAX_PLAYERS
from ligretto.engine.events import Reason
from ligretto.engine.serial import result_to_dict

try:
    from invariants import check_invariants, check_views, hidden_cards, same_state, without_log
except ImportError:  # tests/engine imported as a package
    from .invariants import check_invariants, check_views, hidden_cards, same_state, without_log

STACK_SIZE = 10


def json_round_trip(game: Round) -> Round:
    return state_from_dict(json.loads(json.dumps(state_to_dict(game))))


def cards_named(result: Applied) -> list[Card]:
    """Every card an event names."""
    return [
        getattr(event, f.name)
        for event in result.events
        for f in dataclasses.fields(event)
        if isinstance(getattr(event, f.name), Card)
    ]


def check_events_public(game: Round, result: Applied) -> None:
    """Events name only cards that are face up after the action (RULES.md §9)."""
    hidden = hidden_cards(game)
    for card in cards_named(result):
        assert (card.owner, str(card)) not in hidden, f"an event names hidden card {card} of seat {card.owner}"


def source_top(game: Round, action: Play | Place) -> int | None:
    """The face at the action's source now, or None if there is none."""
    area = game.areas[action.player]
    if action.source is Source.STACK:
        return area.stack[-1] if area.stack else None
    if action.source is Source.DISCARD:
        return area.discard[-1] if area.discard else None
    if isinstance(action, Play) and 0 <= action.position < len(area.row):
        return area.row[action.position][-1]
    return None


def expected_outcome(game: Round, action: Action) -> Reason | None:
    """Whether ``apply`` must accept the action (None) judged from ``legal_actions``; for a
    legal move naming the wrong card, the refusal it must get."""
    if game.ending is not None or not 0 <= action.player < game.players:
        return Reason.ROUND_OVER if game.ending is not None else Reason.NO_SUCH_PLAYER
    legal = game.legal_actions(action.player)
    if not isinstance(action, (Play, Place)):
        return None if action in legal else Reason.DOES_NOT_FIT  # any refusal
    plain: Play | Place = dataclasses.replace(action, card=None)
    if isinstance(plain, Play) and plain.source is not Source.ROW:
        plain = dataclasses.replace(plain, position=0)  # the position is ignored off the row
    if plain not in legal:
        return Reason.DOES_NOT_FIT  # any refusal
    if action.card is None:
        return None
    if action.card.owner != action.player:
        return Reason.NOT_YOUR_CARD
    face = source_top(game, action)
    return None if action.card.face == face else Reason.CARD_MOVED


class RoundMachine(RuleBasedStateMachine):
    """One round, driven by legal and arbitrary actions of random seats."""

    def __init__(self) -> None:
        super().__init__()
        self.game: Round = Round.deal(RuleSet(), 2, 0)  # replaced by ``deal``
        self.results: list[Result] = []
        """Every result, in the order of ``game.log``."""
        self.result_dicts: list[dict[str, Any]] = []
        """``result_to_dict`` of each result, taken when it was returned."""

    # --- set-up ------------------------------------------------------------------------

    @initialize(
        preset=st.sampled_from([*sorted(PRESETS), "expert"]),  # expert twice: it has the most to check
        players=st.integers(2, 6),
        seed=st.integers(0, 2**40),
    )
    def deal(self, preset: str, players: int, seed: int) -> None:
        rules = RuleSet.preset(preset)
        game = Round.deal(rules, players, seed)
        row_length = rules.row_length(players)
        assert game.row_length == row_length
        assert not game.pile_seats and game.ending is None and game.stopped_by is None and game.log == []
        for seat, area in enumerate(game.areas):  # RULES.md §2
            assert [len(column) for column in area.row] == [1] * row_length, f"seat {seat} row"
            assert len(area.stack) == STACK_SIZE, f"seat {seat} stack"
            assert len(area.hand) == DECK_SIZE - STACK_SIZE - row_length, f"seat {seat} hand"
            assert area.discard == [] and not area.voted, f"seat {seat} discard/vote"
        assert state_to_dict(Round.deal(rules, players, seed)) == state_to_dict(game), "dealing is not deterministic"
        self.game = game
        self.results = []
        self.result_dicts = []

    def _record(self, result: Result) -> None:
        self.results.append(result)
        self.result_dicts.append(result_to_dict(result))

    # --- applying actions --------------------------------------------------------------

    def _apply(self, action: Action) -> Applied | Refused:
        before, before_log = without_log(self.game), list(self.game.log)
        result = self.game.apply(action)
        self._record(result)
        assert self.game.log == [*before_log, action], "the log must record every action"
        if isinstance(result, Refused):
            assert without_log(self.game) == before, f"refused {action} ({result.reason}) changed the state"
        else:
            assert isinstance(result, Applied) and result.events, f"{action} applied without events"
            check_events_public(self.game, result)
        return result

    def _seat(self, data: st.DataObject) -> int:
        return data.draw(st.integers(0, self.game.players - 1), label="seat")

    @rule(data=st.data())
    def legal_action(self, data: st.DataObject) -> None:
        seat = self._seat(data)
        legal = self.game.legal_actions(seat)
        if self.game.over:
            assert legal == [], "a finished round offers no actions"
            return
        assert all(a.player == seat for a in legal), "legal actions of another seat"
        assert len(set(legal)) == len(legal), f"duplicate legal actions: {legal}"
        assert (Withdraw(seat) if self.game.areas[seat].voted else Vote(seat)) in legal, "the vote is always offered"
        action = data.draw(st.sampled_from(legal), label="legal action")
        result = self._apply(action)
        assert isinstance(result, Applied), f"legal {action} refused: {result}"

    @rule(data=st.data(), placing=st.booleans())
    def card_move(self, data: st.DataObject, placing: bool) -> None:
        """A legal placement (expert) or play when the seat has one, else a turn: gets rounds further."""
        seat = self._seat(data)
        legal = self.game.legal_actions(seat)
        moves = (
            (placing and [a for a in legal if isinstance(a, Place)])
            or [a for a in legal if isinstance(a, (Play, Place))]
            or [a for a in legal if isinstance(a, Turn)]
        )
        if not moves:
            return
        result = self._apply(data.draw(st.sampled_from(moves), label="card move"))
        assert isinstance(result, Applied), f"legal move refused: {result}"

    @rule(steps=st.integers(1, 250), seed=st.integers(0, 2**32))
    def advance(self, steps: int, seed: int) -> None:
        """Several random legal actions without votes (placements preferred), checking invariants after each."""
        rng = random.Random(seed)
        for _ in range(steps):
            if self.game.over:
                break
            seat = rng.randrange(self.game.players)
            legal = [a for a in self.game.legal_actions(seat) if not isinstance(a, (Vote, Withdraw))]
            placements = [a for a in legal if isinstance(a, Place)]
            if placements and rng.random() < 0.5:
                legal = placements
            if not legal:
                continue
            action = rng.choice(legal)
            result = self.game.apply(action)
            self._record(result)
            assert isinstance(result, Applied), f"legal {action} refused: {result}"
            check_invariants(self.game)

    @rule(data=st.data(), count=st.integers(1, 5))
    def arbitrary_actions(self, data: st.DataObject, count: int) -> None:
        """Any actions at all, legal or not: each accepted exactly when ``legal_actions`` offers it."""
        for _ in range(count):
            self._arbitrary_action(data)

    def _arbitrary_action(self, data: st.DataObject) -> None:
        game = self.game
        draw = data.draw
        player = draw(st.integers(-1, game.players), label="player")
        kind = draw(st.sampled_from(["play", "place", "turn", "vote", "withdraw"]), label="kind")
        action: Action
        if kind in ("turn", "vote", "withdraw"):
            action = {"turn": Turn, "vote": Vote, "withdraw": Withdraw}[kind](player)
        else:
            source = draw(st.sampled_from(Source), label="source")
            if kind == "play":
                piles = st.integers(-1, len(game.pile_seats)) | st.integers(-1, 20)
                pile = draw(st.none() | piles, label="pile")
                action = Play(player, source, pile, draw(st.integers(-1, 6), label="position"))
            else:
                action = Place(player, source, draw(st.integers(-1, 6), label="column"))
            action = dataclasses.replace(action, card=self._draw_card(data, action))
        self._check_arbitrary(action)

    @rule(data=st.data(), count=st.integers(1, 5))
    def near_misses(self, data: st.DataObject, count: int) -> None:
        """Legal plays or placements with one thing changed: mostly refused, never half applied."""
        for _ in range(count):
            self._near_miss(data)

    def _near_miss(self, data: st.DataObject) -> None:
        seat = self._seat(data)
        moves = [a for a in self.game.legal_actions(seat) if isinstance(a, (Play, Place))]
        if not moves:
            return
        action: Play | Place = data.draw(st.sampled_from(moves), label="legal move")
        field = data.draw(st.sampled_from(["player", "source", "where", "pile", "card"]), label="change")
        draw = data.draw
        if field == "player":
            action = dataclasses.replace(action, player=draw(st.integers(-1, self.game.players)))
        elif field == "source":
            action = dataclasses.replace(action, source=draw(st.sampled_from(Source)))
        elif field == "where" and isinstance(action, Play):
            action = dataclasses.replace(action, position=draw(st.integers(-1, 6)))
        elif field == "where":
            action = dataclasses.replace(action, column=draw(st.integers(-1, 6)))
        elif field == "pile" and isinstance(action, Play):
            pile = draw(st.none() | st.integers(-1, len(self.game.pile_seats)), label="pile")
            action = dataclasses.replace(action, pile=pile)
        else:
            action = dataclasses.replace(action, card=self._draw_card(data, action))
        self._check_arbitrary(action)

    def _draw_card(self, data: st.DataObject, action: Play | Place) -> Card | None:
        """No card, any card of any deck, or the card really at the action's source."""
        game = self.game
        top = source_top(game, action) if 0 <= action.player < game.players else None
        choices = [st.none(), st.builds(lambda s, f: CARDS[s][f], st.integers(0, MAX_PLAYERS - 1), st.integers(0, 39))]
        if top is not None:
            choices.append(st.just(CARDS[action.player][top]))
        return data.draw(st.one_of(*choices), label="card")

    def _check_arbitrary(self, action: Action) -> None:
        expected = expected_outcome(self.game, action)
        result = self._apply(action)
        if expected is None:
            assert isinstance(result, Applied), f"{action} is legal but was refused: {result}"
        else:
            assert isinstance(result, Refused), f"{action} is not legal but was applied: {result}"
            if expected in (Reason.ROUND_OVER, Reason.NO_SUCH_PLAYER, Reason.NOT_YOUR_CARD, Reason.CARD_MOVED):
                assert result.reason is expected, f"{action}: refused for {result.reason}, expected {expected}"

    @rule()
    def continue_from_json(self) -> None:
        """Carry on with the state rebuilt from JSON: it must behave exactly as the original."""
        self.game = json_round_trip(self.game)

    @rule()
    def continue_from_copy(self) -> None:
        self.game = self.game.copy()

    def teardown(self) -> None:
        # The full replay check once per example (every step would cost too much): the record
        # through JSON, every result compared in its JSON form.
        record = RoundRecord.from_dict(json.loads(json.dumps(RoundRecord.of(self.game).to_dict())))
        replayed, results = replay(record)
        assert state_to_dict(replayed) == state_to_dict(self.game), "replay of the JSON record gives another state"
        assert [result_to_dict(r) for r in results] == self.result_dicts, "replay gives other results"
        event(f"ending: {self.game.ending}, rules expert={self.game.rules.expert}")
        event(f"piles >= 10: {len(self.game.pile_seats) >= 10}")
        event(f"recycled: {any(a.recycles for a in self.game.areas)}")
        event(f"expert column > 1: {any(len(c) > 1 for a in self.game.areas for c in a.row)}")

    # --- invariants --------------------------------------------------------------------

    @invariant()
    def state_is_consistent(self) -> None:
        check_invariants(self.game)

    @invariant()
    def views_hide_hidden_cards(self) -> None:
        check_views(self.game)

    @invariant()
    def json_round_trip_is_identical(self) -> None:
        game = self.game
        data = state_to_dict(game)
        restored = state_from_dict(json.loads(json.dumps(data)))
        assert state_to_dict(restored) == data, "JSON round trip changed the state"
        assert restored.wanted == game.wanted, "JSON round trip changed the pile index"
        assert restored.over == game.over and restored.row_length == game.row_length
        for seat in range(game.players):
            assert restored.legal_actions(seat) == game.legal_actions(seat), f"seat {seat}: legal actions differ"

    @invariant()
    def replay_is_deterministic(self) -> None:
        record = RoundRecord.of(self.game)
        assert len(record.actions) == len(self.results)
        replayed, results = replay(record)
        assert same_state(replayed, self.game), "replay gives another state"
        assert results == self.results, "replay gives other results"

    @invariant()
    def legal_actions_are_applied(self) -> None:
        game = self.game
        before, before_log = without_log(game), list(game.log)
        for seat in range(game.players):
            for action in game.legal_actions(seat):
                other = game.copy()
                result = other.apply(action)
                assert isinstance(result, Applied), f"legal {action} refused on a copy: {result}"
                check_invariants(other)
                check_events_public(other, result)
                if isinstance(action, Vote) and other.ending is Ending.STALEMATE_VOTE:
                    assert all(area.voted for area in other.areas)
        assert without_log(game) == before and game.log == before_log, "applying actions to copies changed the original"


TestRound = RoundMachine.TestCase
TestRound.settings = settings(
    max_examples=120,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
